"""Direct tests of the diagnosis fit (SPEC Annex D.1): fit_probe, combine, candidate_grid,
round_significant.

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

from pespec.sinusoidal.diagnosis.fit import (
    CombinedFit,
    ProbeFit,
    candidate_grid,
    combine,
    fit_probe,
    round_significant,
)

GRID = np.arange(129, dtype=np.float64) / 4.0  # the fractional fit grid of SPEC Annex D.1


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


def test_fit_probe_recovers_the_argument_scale_and_a_base_other_than_the_requested_one() -> None:
    # Asked for b = 10000, the member uses b = 500 and c = 2π (d = 32, s = 0): the probe gives
    # σ = ln 500/16 and ln c = ln 2π; the requested base is only recorded. Every pair is
    # usable: the fastest angle advances c·ω_0·0.25 = π/2 < 2 rad per grid step.
    fit = _fit(_family(32, base=500.0, scale=2 * math.pi), base=10000.0)
    assert (fit.layout, fit.scale_sign, fit.base, fit.d_model) == ("interleaved", 1.0, 1e4, 32)
    assert fit.slope == pytest.approx(math.log(500.0) / 16, rel=1e-6)
    assert fit.log_scale == pytest.approx(math.log(2 * math.pi), abs=1e-6)
    assert fit.offset == pytest.approx(0.0, abs=1e-6)
    assert fit.pairs_used == 16


def test_fit_probe_fits_only_the_pairs_that_do_not_alias() -> None:
    # c = 1000, b = 10000, d = 64: pair k advances 1000·10^(−k/8)·0.25 rad per grid step,
    # 2.5 rad at k = 16 and 1.87 rad at k = 17. The fit keeps the pairs below 2 rad per step
    # (SPEC Annex D.1), k = 17..31: 15 pairs, which still give σ = ln 10^4/32 and ln c = ln 1000.
    fit = _fit(_family(64, scale=1000.0))
    assert fit.pairs_used == 15
    assert fit.slope == pytest.approx(math.log(10000.0) / 32, rel=1e-6)
    assert fit.log_scale == pytest.approx(math.log(1000.0), abs=1e-6)


def test_fit_probe_at_d_model_4_fits_its_two_pairs() -> None:
    # d = 4 has two pairs, rates 1 and 10^-2: the line through ln 1 and ln 10^-2 has
    # σ = ln 100 = ln 10^4/(4/2) and ln c = 0, exactly determined by the two points.
    fit = _fit(_family(4))
    assert fit.pairs_used == 2
    assert fit.slope == pytest.approx(math.log(10000.0) / 2, rel=1e-9)
    assert fit.log_scale == pytest.approx(0.0, abs=1e-9)


def _combined(**more: Any) -> CombinedFit:
    """A CombinedFit of the canonical member (followed base 10^4, s = 0, c = 1, A = 1, o = 0)."""
    fields: dict[str, Any] = {
        "layout": "interleaved",
        "base": 10000.0,
        "base_follows_argument": True,
        "frequency_shift": 0.0,
        "argument_scale": 1.0,
        "position_offset": 0.0,
        "amplitudes": {64: 1.0, 32: 1.0},
    }
    return CombinedFit(**(fields | more))


def test_candidate_grid_snaps_a_fixed_base_to_round_values() -> None:
    # b = 999.7 to 1–6 significant digits: 1000 (1, 2 or 3 digits) and 999.7 (4 to 6 digits),
    # both within 5 %; the raw value is one of them. s, c and A are exact (one option each).
    grid = candidate_grid(_combined(base=999.7, base_follows_argument=False), [64, 32])
    assert sorted(c.base for c in grid) == [999.7, 1000.0]
    assert all(not c.base_follows_argument and c.snapped == 4 for c in grid)
    assert all(c.base_for(10000.0) == c.base for c in grid)  # the requested base is ignored


def test_candidate_grid_offers_the_sqrt_2_over_d_output_scale() -> None:
    # A = √(2/d) at both dimensions (MLX): the rule "sqrt(2/d)" is offered, given at the
    # largest dimension; the constant options are the mean (√(2/64) + √(2/32))/2 = 0.21339
    # and its 3 significant digits 0.213 (within 2 %; A = 1 is not).
    amplitudes = {64: math.sqrt(2 / 64), 32: math.sqrt(2 / 32)}
    grid = candidate_grid(_combined(amplitudes=amplitudes), [64, 32])
    rules = {(c.output_scale_rule, c.output_scale, c.snapped) for c in grid}
    mean = (math.sqrt(2 / 64) + math.sqrt(2 / 32)) / 2
    assert rules == {
        ("sqrt(2/d)", math.sqrt(2 / 64), 4),
        ("constant", 0.213, 4),
        ("constant", mean, 3),
    }
    mlx = next(c for c in grid if c.output_scale_rule == "sqrt(2/d)")
    assert (mlx.scale_for(32), mlx.scale_for(8)) == (0.25, 0.5)


def test_candidate_grid_is_every_combination_of_the_options() -> None:
    # c = 6.2832: 2π and 6.28 (3 digits) within 5 %, plus the raw value; c = 1 is not.
    # A = 1.001 over the two dimensions: 1 (within 2 %; also its 3 digits), plus the raw 1.001.
    # The followed base and s = 0 are one option each: 3 × 2 = 6 candidates.
    grid = candidate_grid(
        _combined(argument_scale=6.2832, amplitudes={64: 1.001, 32: 1.001}), [64, 32]
    )
    pairs = sorted((float(c.convention.argument_scale), c.output_scale, c.snapped) for c in grid)
    expected = [
        (6.28, 1.0, 4),
        (6.28, 1.001, 3),
        (2 * math.pi, 1.0, 4),
        (2 * math.pi, 1.001, 3),
        (6.2832, 1.0, 3),
        (6.2832, 1.001, 2),
    ]
    assert pairs == sorted(expected)


def test_candidate_grid_keeps_a_negative_argument_scale_negative() -> None:
    # c = −1.003 (interleaved with the sine negated): −1 within 5 % (also its 3 digits), and
    # the raw value; never +1.
    grid = candidate_grid(_combined(argument_scale=-1.003), [64, 32])
    assert sorted(float(c.convention.argument_scale) for c in grid) == [-1.003, -1.0]


def test_round_significant_rounds_decimal_digits_and_keeps_zero_and_infinity() -> None:
    assert round_significant(999.7, 3) == 1000.0
    assert round_significant(999.7, 4) == 999.7
    assert round_significant(-0.0123456, 2) == -0.012
    assert round_significant(0.0, 3) == 0.0
    assert round_significant(math.inf, 3) == math.inf
