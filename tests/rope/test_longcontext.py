"""The long-context table (SPEC Annex G) against a brute-force recomputation.

The expected crossing is recomputed here independently: ω'_j from the plain mpmath
transcription of tests/rope/test_oracle.py at 200 bits, rounded to float32 by NumPy from a value
exact to far more than float32's precision (float64 of a 200-bit value, then float32: a double
rounding could only differ when ω' lies within 2^-53 relative of a float32 midpoint; the test
asserts it does not), the phase as NumPy float32 arithmetic computes it, every position
0 … reach + 1 and every pair, the error against the 200-bit phase.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from rope_mpmath import mp_schedule

from pespec.rope import PRESETS
from pespec.rope.longcontext import reach


@pytest.fixture(autouse=True)
def _precision() -> None:
    mpmath.mp.prec = 200  # restored by the conftest fixture


@pytest.mark.parametrize(
    "name, threshold",
    [("Llama-2-7B", 1e-3), ("DeepSeek-V3", 1e-3), ("Gemma-3-4B global layers", 1e-3)],
)
def test_float32_reach_is_the_first_crossing(name: str, threshold: float) -> None:
    config = PRESETS[name]
    exact, _ = mp_schedule(config)
    omega64 = np.array([float(w) for w in exact])
    omega32 = omega64.astype(np.float32)
    for w, w32 in zip(exact, omega32.tolist(), strict=True):  # no double rounding (docstring)
        up = float(np.nextafter(np.float32(w32), np.float32(np.inf)))
        down = float(np.nextafter(np.float32(w32), np.float32(-np.inf)))
        assert abs(w - w32) < min(abs(w - up), abs(w - down)) * (1 - 2.0**-40)
    last = reach(config, "float32", threshold)
    p = np.arange(last + 2, dtype=np.int64)
    phase = p.astype(np.float32)[:, None] * omega32[None, :]  # float32 product, as torch does
    assert phase.dtype == np.float32
    ok = []
    for chunk in np.array_split(np.arange(p.shape[0]), 8):
        hi = p[chunk, None].astype(np.float64) * omega64[None, :]
        lo = p[chunk, None].astype(np.float64) * np.array(
            [float(w - mpmath.mpf(h)) for w, h in zip(exact, omega64.tolist(), strict=True)]
        )
        error = np.abs((phase[chunk].astype(np.float64) - hi) - lo)
        ok.append(np.max(error, axis=1) < threshold)
    below = np.concatenate(ok)
    assert np.all(below[:-1]), "an earlier position already crosses"
    assert not below[-1], "the reported first crossing does not cross"


@pytest.mark.slow
def test_bfloat16_positions_reach_256() -> None:
    # bfloat16 holds every integer up to 256; 257 rounds to 256 (ties to even): the phase of
    # pair 0 moves by ω'_0 ≥ 1/8 rad
    for config in PRESETS.values():
        assert reach(config, "bf16-position", 1e-2) == 256


def test_unknown_method_is_named() -> None:
    with pytest.raises(ValueError, match="method must be one of"):
        reach(PRESETS["Llama-2-7B"], "float16", 1e-3)
