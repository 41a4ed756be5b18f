"""Direct tests of the diagnosis fit (SPEC §10.1): fit_probe, combine, candidate_grid.

The probe outputs are built here with NumPy from the family's formula (SPEC §3),
Y[p, sin_col(k)] = A·sin θ_k(p), Y[p, cos_col(k)] = A·cos θ_k(p),
θ_k(p) = c·(p + o)·b^(−k/(d/2 − s)), with chosen A, c, o, b, s, so the expected fit is the
construction's own parameters, not the fit's output. The data are float64 and exact to
~1e-16 relative; the fitted lines are exact lines plus that rounding, so 1e-6 relative is
ample and still far below any difference between two conventions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.conformance.diagnosis.fit import (
    CombinedFit,
    ProbeFit,
    candidate_grid,
    combine,
    fit_probe,
)

GRID = np.arange(129, dtype=np.float64) / 4.0  # the fractional fit grid of SPEC §10.1


def _family(
    d: int,
    *,
    layout: str = "interleaved",
    base: float = 10000.0,
    shift: float = 0.0,
    offset: float = 0.0,
    scale: float = 1.0,
    amplitude: float = 1.0,
) -> NDArray[np.float64]:
    """The family member's output on GRID, (129, d), written from the formula."""
    k = np.arange(d // 2, dtype=np.float64)
    omega = base ** (-k / (d / 2 - shift))
    theta = scale * (GRID[:, None] + offset) * omega[None, :]
    sin, cos = amplitude * np.sin(theta), amplitude * np.cos(theta)
    out = np.empty((len(GRID), d))
    if layout == "interleaved":
        out[:, 0::2], out[:, 1::2] = sin, cos
    elif layout == "sin_cos_halves":
        out[:, : d // 2], out[:, d // 2 :] = sin, cos
    else:
        out[:, : d // 2], out[:, d // 2 :] = cos, sin
    return out


def _fit(values: NDArray[np.float64], base: float = 10000.0) -> ProbeFit:
    fit = fit_probe(GRID, values, base)
    assert fit is not None
    return fit


def test_fit_probe_recovers_every_parameter_of_a_halves_member() -> None:
    # tensor2tensor-like: halves, s = 1, with A = 0.5, c = 1, o = 2 chosen here.
    d, b, s = 64, 10000.0, 1.0
    fit = _fit(_family(d, layout="sin_cos_halves", shift=s, offset=2.0, amplitude=0.5))
    assert fit.layout == "sin_cos_halves" and fit.scale_sign == 1.0
    assert fit.amplitude == pytest.approx(0.5, rel=1e-9)
    assert fit.slope == pytest.approx(math.log(b) / (d / 2 - s), rel=1e-6)
    assert fit.log_scale == pytest.approx(0.0, abs=1e-6)
    assert fit.offset == pytest.approx(2.0, abs=1e-6)


def test_fit_probe_tells_cos_sin_halves_and_a_negative_argument_scale() -> None:
    # cos|sin halves and interleaved with c < 0 both make the low-frequency angles fall.
    assert _fit(_family(64, layout="cos_sin_halves")).layout == "cos_sin_halves"
    negative = _fit(_family(64, scale=-1.0))
    assert (negative.layout, negative.scale_sign) == ("interleaved", -1.0)
    assert negative.log_scale == pytest.approx(0.0, abs=1e-6)  # |c| = 1


def test_fit_probe_rejects_outputs_no_member_describes() -> None:
    constant = np.full((len(GRID), 64), 0.5)  # pairs of one radius, but no angle advances
    assert fit_probe(GRID, constant, 10000.0) is None
    noise = np.random.default_rng(0).uniform(-1, 1, (len(GRID), 64))  # no common radius
    assert fit_probe(GRID, noise, 10000.0) is None


def _probe_fit(d: int, requested: float, log_base: float, shift: float, **more: Any) -> ProbeFit:
    """A ProbeFit as fit_probe would give it for a member using base e^log_base."""
    fields: dict[str, Any] = {
        "d_model": d,
        "base": requested,
        "layout": "interleaved",
        "amplitude": 1.0,
        "amplitude_spread": 0.0,
        "log_scale": 0.0,
        "scale_sign": 1.0,
        "slope": log_base / (d / 2 - shift),
        "offset": 0.0,
        "pairs_used": d // 2,
    }
    return ProbeFit(**(fields | more))


def test_combine_separates_base_and_shift_from_two_dimensions() -> None:
    # σ_d = ln b/(d/2 − s) at d = 64 and 32 gives ln b = 16/(1/σ_64 − 1/σ_32) and s.
    fits = [_probe_fit(d, 10000.0, math.log(10000.0), 1.0) for d in (64, 32)]
    fits.append(_probe_fit(64, 500.0, math.log(500.0), 1.0))  # honours the requested base
    combined = combine(fits, 10000.0)
    assert combined is not None
    assert combined.base_follows_argument and combined.base == 10000.0
    assert combined.frequency_shift == pytest.approx(1.0, abs=1e-9)


def test_combine_sees_a_fixed_base_and_disagreeing_layouts() -> None:
    fixed = math.log(1000.0)  # the backend uses 1000 whatever it is asked for
    fits = [_probe_fit(d, 10000.0, fixed, 0.0) for d in (64, 32)]
    fits.append(_probe_fit(64, 500.0, fixed, 0.0))
    combined = combine(fits, 10000.0)
    assert combined is not None and not combined.base_follows_argument
    assert combined.base == pytest.approx(1000.0, rel=1e-9)
    mixed = [fits[0], _probe_fit(32, 10000.0, fixed, 0.0, layout="sin_cos_halves")]
    assert combine(mixed, 10000.0) is None


def test_candidate_grid_offers_the_round_neighbours_of_a_noisy_fit() -> None:
    raw = CombinedFit(
        layout="interleaved",
        base=10000.0,
        base_follows_argument=True,
        frequency_shift=0.97,
        argument_scale=1.004,
        position_offset=0.03,
        amplitudes={64: 1.001, 32: 0.999},
    )
    grid = candidate_grid(raw, [64, 32])
    best = max(grid, key=lambda c: c.snapped)
    # base (followed) + s = 1 + c = 1 + A = 1: four snapped parameters, offset rounded to 0.
    assert best.snapped == 4
    assert float(best.convention.frequency_shift) == 1.0
    assert float(best.convention.argument_scale) == 1.0
    assert best.convention.position_offset == 0
    assert (best.output_scale_rule, best.output_scale) == ("constant", 1.0)
    # the raw values stay candidates too (a non-round truth is not lost)
    assert any(float(c.convention.frequency_shift) == 0.97 for c in grid)


def test_candidate_grid_leaves_out_shifts_undefined_at_a_probed_dimension() -> None:
    # s within 0.25 of d/2 = 2 (d = 4): ω_k = b^(−k/(d/2 − s)) is undefined at s = 2.
    raw = CombinedFit("interleaved", 10000.0, True, 1.9, 1.0, 0.0, {4: 1.0})
    grid = candidate_grid(raw, [4])
    assert grid and all(float(c.convention.frequency_shift) < 2.0 for c in grid)
