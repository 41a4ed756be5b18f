"""Every family's diagnosis on arbitrary outputs (issue 39 item 4): the multi-axis rotary,
the multi-axis sinusoidal and the Fourier-features families, as test_never_fails.py does
for rotary and sinusoidal. Hypothesis (the derandomized CI profile of tests/conftest.py)
draws the output's shape: identity, zeros, a constant, NaN or ±inf somewhere, noise, huge
values, every row the same; each run must end in a report (no exception escapes the
diagnosis), fail, and carry a sentence: a cause, or "not explained"/what was measured."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

KINDS = ("identity", "zeros", "constant", "nan", "inf", "noise", "huge", "one_row")


def _arbitrary(kind: str, value: float, seed: int, like: Any, width: int) -> Any:
    """An output of ``kind`` with the rows of ``like`` ((n, ·) array) and ``width`` columns."""
    rng = np.random.default_rng(seed)
    n = len(like)
    if kind == "identity" and like.ndim == 2 and like.shape[1] == width:
        return np.array(like, dtype=np.float64)
    if kind == "zeros":
        return np.zeros((n, width))
    if kind == "constant":
        return np.full((n, width), value)
    if kind in ("nan", "inf"):
        y = rng.standard_normal((n, width))
        y[rng.integers(0, n, size=3), rng.integers(0, width, size=3)] = (
            np.nan if kind == "nan" else np.inf * np.sign(value or 1.0)
        )
        return y
    if kind == "huge":
        return np.full((n, width), 1e300) * (value or 1.0)
    if kind == "one_row":
        return np.tile(rng.standard_normal(width), (n, 1))
    return rng.standard_normal((n, width)) * value


def _sentence(report: Any) -> str:
    return str(report.diagnosis_sentence or (report.diagnosis or {}).get("cause") or "")


PARAMS = {
    "kind": st.sampled_from(KINDS),
    "value": st.floats(-1e3, 1e3, allow_nan=False),
    "seed": st.integers(0, 2**16),
}


@settings(max_examples=10, deadline=None)
@given(**PARAMS)
def test_multiaxis_rotary_diagnosis_never_raises(kind: str, value: float, seed: int) -> None:
    from pespec.multiaxis.rope.presets import PRESETS
    from pespec.multiaxis.rope.run import check

    preset = PRESETS["flux.1"]
    config = {"config": preset.config.to_dict(), "ids": preset.ids, "grid": [1, 4, 4]}

    def backend(x: Any, positions: Any, cfg: Any) -> Any:
        return _arbitrary(kind, value, seed, np.asarray(x), x.shape[1])

    report = check(backend, config=config)
    assert not report.conformant
    assert _sentence(report)


@settings(max_examples=10, deadline=None)
@given(**PARAMS)
def test_multiaxis_sinusoidal_diagnosis_never_raises(kind: str, value: float, seed: int) -> None:
    from pespec.multiaxis.sinusoidal.run import check

    def backend(positions: Any, config: Any) -> Any:
        return _arbitrary(kind, value, seed, np.asarray(positions), config.d_model)

    report = check(backend, config="big-vision-vit-s16", stages=["contract", "reference"])
    assert not report.conformant
    assert _sentence(report)


@settings(max_examples=10, deadline=None)
@given(**PARAMS)
def test_fourier_diagnosis_never_raises(kind: str, value: float, seed: int) -> None:
    from pespec.fourier.run import check
    from tests.fourier.ports import nerf_code

    def backend(x: Any, config: Any) -> Any:
        width = np.asarray(nerf_code(x, config)).shape[-1]
        return _arbitrary(kind, value, seed, np.atleast_2d(np.asarray(x)), width)

    report = check(backend, config="nerf")
    assert not report.conformant
    assert _sentence(report)
