"""keras-hub's ``RotaryEmbedding`` through the rotary suite at float32 (optional: skipped
without keras-hub; issue 26). Run on keras's torch backend (``KERAS_BACKEND``, unless set).

keras-hub 0.32 ``src/layers/modeling/rotary_embedding.py``: halves (``rotate_half`` on the
whole feature axis), ω = ``max_wavelength``^(−2j/d) in float32, then by ``rope_type``:
``"linear"`` divides ω by ``scaling_factor`` (the ``linear`` schedule) and ``"dynamic"``
divides *every* ω by ``scaling_factor``^(d/(d − 2)). The latter is not static NTK (θ·s^(d/(d −
2)) in the base, which leaves ω_0 = 1 and divides ω_j by s^(2j/(d − 2))): it is linear scaling
by s^(d/(d − 2)). Declared as ``ntk`` it is NON-CONFORMANT; the mpmath computation below
confirms the cause from the layer's own frequencies (a library finding, not a SPEC change).
"""

from __future__ import annotations

import os
from typing import Any

import mpmath
import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.rope import RopeConfig, check

os.environ.setdefault("KERAS_BACKEND", "torch")
keras_hub = pytest.importorskip("keras_hub")
keras = pytest.importorskip("keras")

D, S = 64, 4.0


def _backend(**kwargs: Any) -> Any:
    """The layer on (1, n, 1, d) float32 rows with explicit positions (one per row)."""
    layer = keras_hub.layers.RotaryEmbedding(max_wavelength=10000, **kwargs)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        rows = x.astype(np.float32)[None, :, None, :]
        out = layer(rows, positions=positions.astype(np.float32))
        return keras.ops.convert_to_numpy(out)[0, :, 0, :]

    return fn


def _report(fn: Any, rope: RopeConfig) -> Any:
    return check(fn, rope, level="float32", diagnose=False)


def test_keras_hub_default_and_linear() -> None:
    report = _report(_backend(), RopeConfig(head_dim=D))
    assert report.conformant, report.summary()
    linear = RopeConfig(head_dim=D, rope_type="linear", factor=S)
    report = _report(_backend(scaling_factor=S, rope_type="linear"), linear)
    assert report.conformant, report.summary()


def test_keras_hub_dynamic_is_linear_by_s_to_the_ntk_exponent() -> None:
    fn = _backend(scaling_factor=S, rope_type="dynamic")
    ntk = RopeConfig(head_dim=D, rope_type="ntk", factor=S)
    assert not _report(fn, ntk).conformant
    linear = RopeConfig(head_dim=D, rope_type="linear", factor=S ** (D / (D - 2)))
    report = _report(fn, linear)
    assert report.conformant, report.summary()


def test_keras_hub_dynamic_frequencies_against_mpmath() -> None:
    # The table's rows keras-hub:RotaryEmbedding Llama-2-7B-dynamic-4-seq-len-{4096,16384}
    # (NON-CONFORMANT, "a linear scaling by s^(d/(d−2))"; issue 36) rest on this computation.
    # the layer's own float32 ω against the exact NTK and linear-by-s^(d/(d − 2)) ω (200 bits)
    layer = keras_hub.layers.RotaryEmbedding(
        max_wavelength=10000, scaling_factor=S, rope_type="dynamic"
    )
    held = keras.ops.convert_to_numpy(layer._get_inverse_freq(D)).astype(np.float64)
    with mpmath.workprec(200):
        theta, s, d = mpmath.mpf(10000), mpmath.mpf(S), D
        ntk = [
            theta ** (-mpmath.mpf(2 * j) / d) * s ** (-mpmath.mpf(2 * j) / (d - 2))
            for j in range(d // 2)
        ]
        lin = [
            theta ** (-mpmath.mpf(2 * j) / d) / s ** (mpmath.mpf(d) / (d - 2))
            for j in range(d // 2)
        ]
        to_ntk = [mpmath.mpf(h) / w for h, w in zip(held, ntk, strict=True)]
        to_lin = [abs(mpmath.mpf(h) / w - 1) for h, w in zip(held, lin, strict=True)]
        # ω_0: NTK leaves it at 1; the layer divides it by s^(d/(d − 2)) = 4^(32/31) ≈ 4.18
        assert abs(to_ntk[0] - s ** (-mpmath.mpf(d) / (d - 2))) < mpmath.mpf(2) ** -20
        assert all(r < 0.99 for r in to_ntk)  # every pair slower than NTK's, none equal
        assert max(to_lin) < 8 * mpmath.mpf(2) ** -24  # linear by s^(d/(d − 2)), float32 pow


def test_keras_hub_dynamic_as_ntk_is_diagnosed_as_linear() -> None:
    fn = _backend(scaling_factor=S, rope_type="dynamic")
    report = check(fn, RopeConfig(head_dim=D, rope_type="ntk", factor=S), level="float32")
    assert "every ω divided by s^(d_r/(d_r − 2))" in report.summary(), report.summary()
