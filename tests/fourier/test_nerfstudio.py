"""nerfstudio's NeRFEncoding (issue 43 item 2; SPEC §10.11) and the cosine written as a
shifted sine (SPEC §10.4 F1, §10.6 pythagoras).

nerfstudio computes sin(cat([a, a + π/2])) in float32: the cosine's angle is rounded once
more than the sine's, so sin² + cos² − 1 does not cancel the angle error exactly (residual
~2e-5 at |a| ≈ 2π·256 in float32, against the 2.2e-6 of a bound that ignored it).
Expected values come from an mpmath transcription of the source.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import pytest

from pespec.fourier.run import check
from tests.fourier.ports import shifted_sine_float32


def test_a_cosine_as_a_shifted_sine_is_conformant_with_its_pythagoras() -> None:
    report = check(shifted_sine_float32, config="nerfstudio-nerf")
    assert report.conformant, [(c.id, c.message) for c in report.checks if c.status == "failed"]
    assert "property:pythagoras" in {c.id for c in report.checks}


def test_a_cosine_of_another_angle_still_fails_pythagoras() -> None:
    def off(x: Any, config: Any) -> Any:  # cos column of (1 + 2^-12)·a: no rounding explains it
        out = shifted_sine_float32(x, config).astype(np.float64)
        x32 = np.asarray(x, dtype=np.float32)
        freqs = np.power(2.0, np.linspace(0, 8, 10))
        a = ((2 * math.pi * x32)[..., None] * freqs).reshape(x32.shape[0], -1)
        out[:, 30:60] = np.cos(a * (1 + 2.0**-12))
        return out.astype(np.float32)

    report = check(off, config="nerfstudio-nerf", stages=("property",))
    assert [c.status for c in report.checks if c.id == "property:pythagoras"] == ["failed"]


def test_the_real_nerf_encoding_matches_mpmath_and_is_conformant() -> None:
    torch = pytest.importorskip("torch")
    encodings = pytest.importorskip("nerfstudio.field_components.encodings")
    module = encodings.NeRFEncoding(3, 10, 0.0, 8.0, include_input=True)
    x = np.array([[0.0, 0.5, 1.0], [0.1, 0.7, 0.3]])
    out = module(torch.tensor(x, dtype=torch.float32)).numpy()
    with mpmath.workprec(200):  # sin(2π·x_i·2^(8j/9)) at column i·10 + j; cos 30 later
        for r in range(2):
            for i in range(3):
                for j in (0, 4, 9):
                    a = (
                        2
                        * mpmath.pi
                        * mpmath.mpf(float(x[r, i]))
                        * mpmath.mpf(2) ** (mpmath.mpf(8 * j) / 9)
                    )
                    # float32 angle up to 2π·256: its rounding moves it ≤ 2^-13 + 4 ulps
                    assert abs(out[r, i * 10 + j] - float(mpmath.sin(a))) < 2.0**-12
                    assert abs(out[r, 30 + i * 10 + j] - float(mpmath.cos(a))) < 2.0**-12
    assert np.array_equal(out[:, 60:], x.astype(np.float32))  # include_input: appended
    # the tiny-cuda-nn path takes no π option: tcnn's Frequency encoding (frequency.h)
    # computes sin(π·2^j·x) as (sin, cos) pairs per band, where this path has 2π·2^j
    assert encodings.NeRFEncoding.get_tcnn_encoding_config(10) == {
        "otype": "Frequency",
        "n_frequencies": 10,
    }
    from pespec.clients.catalog import get_client

    backend = get_client("nerfstudio:NeRFEncoding").build("float32", "nerfstudio-nerf")
    assert check(backend, config="nerfstudio-nerf").conformant
