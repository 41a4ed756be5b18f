"""The scaled timestep rounded to a 16-bit format (issue 39: the flux bfloat16 row).

A Flux pipeline computes the embedding of t' = bfloat16(1000·t): at t = 0.375 the scaled
timestep 375 becomes 376 (bfloat16 has 8 significant bits: 375 = 101110111₂ needs 9, and
rounds to 376). The diagnosis must name that step and the measured error at t = 0.375:
max_k |y(376) − y(375)| over the row (computed independently below with mpmath).
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import pytest

from pespec.sinusoidal.diagnosis import diagnose
from pespec.sinusoidal.diagnosis.rounding import scaled_rounding
from pespec.sinusoidal.properties.base import Level
from pespec.sinusoidal.reference.conventions import preset

ml_dtypes = pytest.importorskip("ml_dtypes")

D = 64


def _row(argument: float) -> list[float]:
    """[cos(aω_k) | sin(aω_k)] (flux: cos first, halves), ω_k = 10^(−4k/(D/2)), 40 digits."""
    mpmath.mp.dps = 40
    half = D // 2
    omegas = [mpmath.mpf(10) ** (-4 * mpmath.mpf(k) / half) for k in range(half)]
    a = mpmath.mpf(argument)
    return [float(mpmath.cos(a * w)) for w in omegas] + [float(mpmath.sin(a * w)) for w in omegas]


def _flux_bfloat16(positions: Any, d_model: int, base: float) -> Any:
    """A NumPy Flux timestep embedding whose scaled timestep is rounded to bfloat16."""
    t = np.asarray(positions, dtype=np.float64)
    scaled = (1000.0 * t).astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)
    k = np.arange(d_model // 2)
    omegas = np.exp(-np.log(base) * k / (d_model // 2))
    phase = scaled[:, None] * omegas[None, :]
    return np.concatenate([np.cos(phase), np.sin(phase)], axis=1).astype(np.float32)


def test_the_scaled_timestep_rounding_is_measured() -> None:
    found = scaled_rounding(_flux_bfloat16, preset("flux"), d_model=D, base=1e4, name="bfloat16")
    assert found is not None
    assert found["rounding"] == "scaled"
    assert (found["t"], found["scaled"], found["used"]) == (0.375, 375.0, 376.0)
    expected = max(abs(a - b) for a, b in zip(_row(376.0), _row(375.0), strict=True))
    # the backend's float32 row is within 1e-4 of _row(376) (|arg|·16u + 4u, u = 2^-24)
    assert abs(found["error"] - expected) <= 376 * 16 * 2.0**-24 + 4 * 2.0**-24


def test_the_sentence_names_the_scaled_timestep_and_no_integer_declaration() -> None:
    found = diagnose(
        _flux_bfloat16, level=Level("float32", "float32"), declared=preset("flux"), max_position=1.0
    )
    text = found.sentence()
    assert "the scaled timestep 1000·t rounded to bfloat16" in text, text
    assert "1000·t = 375 is used as 376" in text
    assert "declare integer_positions_only" not in text


def test_the_published_diffusers_row_names_the_scaled_timestep() -> None:
    pytest.importorskip("diffusers")
    from pespec.clients.sinusoidal_libraries import flux_timesteps_bfloat16

    found = scaled_rounding(
        flux_timesteps_bfloat16, preset("flux"), d_model=256, base=1e4, name="bfloat16"
    )
    assert found is not None and found["used"] == 376.0
    assert round(found["error"], 3) == 0.956  # the figure
