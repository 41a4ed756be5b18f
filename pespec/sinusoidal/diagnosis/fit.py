"""Fit a backend's output to the sinusoidal convention family (SPEC Annex D.1).

The model of one probe (positions p (n,), d columns, requested base B) is

    Y[p, sin_col(k)] = A·sin θ_k(p),  Y[p, cos_col(k)] = A·cos θ_k(p),
    θ_k(p) = c·(p + o)·b^(−k/(d/2 − s)),

with layout, output scale A, argument scale c, offset o, shift s and base b unknown.
:func:`fit_probe` recovers, from one probe, the layout and A (sin² + cos² = A²), the
per-pair angular rates a_k = c·ω_k and phases a_k·o (atan2 of the pairs, unwrapped along
the position grid), then ln a_k = ln c − σ·k by weighted least squares with
σ = ln b/(d/2 − s). :func:`combine` separates b and s from σ at two model dimensions
(1/σ_d = (d/2 − s)/ln b is linear in d/2) and :func:`candidate_grid` proposes the raw
fitted values together with their snapped ("round") neighbours, to be ranked by how well
they reproduce the probes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.conventions import Convention, Layout

__all__ = [
    "NUMERIC_ERRORS",
    "Candidate",
    "CombinedFit",
    "ProbeFit",
    "candidate_grid",
    "combine",
    "fit_probe",
    "line_fits",
    "round_significant",
]

NUMERIC_ERRORS = (
    ValueError,
    TypeError,
    FloatingPointError,
    OverflowError,
    ZeroDivisionError,
    np.linalg.LinAlgError,
)
"""What absurd backend numbers can make the fit raise; they mean "no known convention"."""

_MAX_AMPLITUDE_SPREAD = 0.05
"""Largest relative spread of sqrt(sin² + cos²) accepted as "these columns are a pair".

Output rounding alone moves it by at most 2·u_out ≈ 0.008 in bfloat16 (SPEC Annex D.1)."""

_MAX_STEP_ANGLE = 2.0
"""Pairs whose angle advances by more than this (radians) per grid step may be aliased."""

_MIN_PAIRS = 3
"""Fewest usable pairs for the log-linear frequency fit (2 at d_model = 4, which has no more:
ln a_0 and ln a_1 then give ln c and σ exactly, and the candidates are verified anyway)."""


@dataclass(frozen=True)
class ProbeFit:
    """What one probe says: layout, output scale A, ln c, σ (per pair index), offset o."""

    d_model: int
    base: float
    layout: Layout
    amplitude: float
    amplitude_spread: float
    log_scale: float
    scale_sign: float
    slope: float
    offset: float
    pairs_used: int


@dataclass(frozen=True)
class CombinedFit:
    """The family parameters fitted from all probes (raw, before snapping)."""

    layout: Layout
    base: float
    base_follows_argument: bool
    frequency_shift: float
    argument_scale: float
    position_offset: float
    amplitudes: dict[int, float]


@dataclass(frozen=True)
class Candidate:
    """One fully specified member of the family with an output-scale rule.

    ``base`` is the base used at the primary probe base; when ``base_follows_argument`` the
    backend uses whatever base it is asked for. ``output_scale_rule`` is ``"constant"``
    (A = ``output_scale``) or ``"sqrt(2/d)"`` (MLX).
    """

    convention: Convention
    base: float
    base_follows_argument: bool
    output_scale: float
    output_scale_rule: str
    snapped: int

    def base_for(self, requested: float) -> float:
        """The base the backend uses when asked for ``requested``."""
        return requested if self.base_follows_argument else self.base

    def scale_for(self, d_model: int) -> float:
        """The output scale A at model dimension ``d_model``."""
        if self.output_scale_rule == "sqrt(2/d)":
            return math.sqrt(2.0 / d_model)
        return self.output_scale

    def to_dict(self, d_model: int) -> dict[str, Any]:
        """JSON-ready parameters; ``output_scale`` is given at ``d_model``."""
        return {
            "layout": self.convention.layout,
            "frequency_shift": float(self.convention.frequency_shift),
            "base": float(self.base),
            "base_follows_argument": self.base_follows_argument,
            "position_offset": int(self.convention.position_offset),
            "argument_scale": float(self.convention.argument_scale),
            "output_scale": float(self.scale_for(d_model)),
            "output_scale_rule": self.output_scale_rule,
        }


def round_significant(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` significant decimal digits (0 stays 0)."""
    if value == 0 or not math.isfinite(value):
        return value
    exponent = math.floor(math.log10(abs(value)))
    return round(value, digits - 1 - exponent)


def _pairings(d_model: int) -> list[tuple[str, NDArray[np.intp], NDArray[np.intp]]]:
    """(name, first-role columns, second-role columns) for the two ways columns pair up."""
    half = d_model // 2
    k = np.arange(half, dtype=np.intp)
    return [("interleaved", 2 * k, 2 * k + 1), ("halves", k, k + half)]


def _relative_spread(radius: NDArray[np.float64]) -> tuple[float, float]:
    """(median radius, 95th percentile of |radius − median|/median)."""
    centre = float(np.median(radius))
    if not centre > 0 or not math.isfinite(centre):
        return centre, math.inf
    return centre, float(np.quantile(np.abs(radius - centre), 0.95)) / centre


def line_fits(x: NDArray[np.float64], phi: NDArray[np.float64]) -> tuple[Any, Any, Any]:
    """Least-squares lines phi[:, k] ≈ rate_k·x + phase_k; (rate, phase, rate_bound), each
    (m,); x (n,) with n ≥ 3.

    rate_bound = max|residual|·Σ|x − x̄|/Σ(x − x̄)² is how far the slope can move when every
    point moves by up to the largest residual: rounding errors of neighbouring outputs are
    correlated, so the statistical standard error would be too optimistic.
    """
    xc = x - x.mean()
    spread = float(xc @ xc)
    rate = (xc @ (phi - phi.mean(axis=0))) / spread
    phase = phi.mean(axis=0) - rate * x.mean()
    residual = phi - (rate[None, :] * x[:, None] + phase[None, :])
    rate_bound = np.abs(residual).max(axis=0) * float(np.abs(xc).sum()) / spread
    return rate, phase, rate_bound


def _usable_suffix(rate: NDArray[np.float64], step: float) -> int:
    """First pair index of the longest run k0..m−1 free of aliasing.

    Rates decrease geometrically with k. Walking from the lowest frequency (last pair)
    upwards, a pair is usable while its rate is positive, grows (within 2 %) and advances
    less than 2 rad per grid step; the first pair that breaks this may be aliased.
    """
    start = len(rate)
    previous = 0.0
    for k in range(len(rate) - 1, -1, -1):
        value = float(rate[k])
        if not (value > 0 and value * step < _MAX_STEP_ANGLE and value >= previous * 0.98):
            break
        previous = value
        start = k
    return start


def _offset_from_phases(rate: NDArray[np.float64], phase: NDArray[np.float64]) -> float:
    """Offset o with phase_k ≡ o·rate_k (mod 2π), resolved from low to high frequency."""
    numerator = 0.0
    denominator = 0.0
    estimate = 0.0
    for k in np.argsort(rate):
        a = float(rate[k])
        turns = round((estimate * a - float(phase[k])) / (2 * math.pi))
        b = float(phase[k]) + 2 * math.pi * turns
        numerator += a * b
        denominator += a * a
        estimate = numerator / denominator
    return estimate


def fit_probe(
    positions: NDArray[np.float64], values: NDArray[np.float64], base: float
) -> ProbeFit | None:
    """Fit one probe: ``positions`` (n,) a uniform grid from 0, ``values`` (n, d) float64.

    Returns None when the columns do not pair into sine/cosine pairs of one amplitude or
    the angles do not advance (a constant output), i.e. when no member of the family can
    describe the probe.
    """
    d = values.shape[1]
    best: tuple[float, str, NDArray[np.intp], NDArray[np.intp], float] | None = None
    for name, first, second in _pairings(d):
        amplitude, spread = _relative_spread(np.hypot(values[:, first], values[:, second]))
        if best is None or spread < best[0]:
            best = (spread, name, first, second, amplitude)
    assert best is not None
    spread, pairing, first, second, amplitude = best
    if not spread <= _MAX_AMPLITUDE_SPREAD:
        return None
    step = float(positions[1] - positions[0])
    x = positions - positions[0]
    phi = np.unwrap(np.arctan2(values[:, first], values[:, second]), axis=0)
    rate, phase, _ = line_fits(x, phi)
    # The lowest frequencies never alias; if their angles fall with p, either the halves
    # are the other way round (cos|sin) or, interleaved, the argument scale is negative.
    layout: Layout = "interleaved" if pairing == "interleaved" else "sin_cos_halves"
    sign = 1.0
    if float(np.median(rate[-_MIN_PAIRS:])) < 0:
        if pairing == "halves":
            layout = "cos_sin_halves"
            phi = np.unwrap(np.arctan2(values[:, second], values[:, first]), axis=0)
        else:
            sign, phi = -1.0, -phi
        rate, phase, _ = line_fits(x, phi)
    start = _usable_suffix(rate, step)
    if len(rate) - start < min(_MIN_PAIRS, max(2, len(rate))):
        return None
    k = np.arange(start, len(rate), dtype=np.float64)
    usable = rate[start:]
    span = float(x[-1])
    weight = np.minimum(usable * span, 1.0) ** 2
    design = np.stack([np.ones_like(k), -k], axis=1) * np.sqrt(weight)[:, None]
    target = np.log(usable) * np.sqrt(weight)
    (log_scale, slope), *_ = np.linalg.lstsq(design, target, rcond=None)
    if not (math.isfinite(log_scale) and slope > 0):
        return None
    offset = _offset_from_phases(usable, phase[start:]) - float(positions[0])
    return ProbeFit(
        d_model=d,
        base=base,
        layout=layout,
        amplitude=amplitude,
        amplitude_spread=spread,
        log_scale=float(log_scale),
        scale_sign=sign,
        slope=float(slope),
        offset=offset,
        pairs_used=len(usable),
    )


def combine(fits: list[ProbeFit], primary_base: float) -> CombinedFit | None:
    """Join probe fits into one parameter set; None when the probes disagree on the layout.

    σ_d = ln b/(d/2 − s): two model dimensions at the primary base give ln b and s; with a
    single one the backend is assumed to use the base it is asked for. A probe at another
    requested base tells whether it does (ln b within 2 % of the requested one).
    """
    if not fits or len({(fit.layout, fit.scale_sign) for fit in fits}) != 1:
        return None
    primary = [fit for fit in fits if fit.base == primary_base]
    if not primary:
        return None
    by_d = {fit.d_model: fit for fit in primary}
    dims = sorted(by_d)
    if len(dims) >= 2:
        low, high = by_d[dims[0]], by_d[dims[-1]]
        inverse_gap = 1.0 / high.slope - 1.0 / low.slope
        if not inverse_gap > 0:
            return None
        log_base = (high.d_model - low.d_model) / 2.0 / inverse_gap
        shift = high.d_model / 2.0 - log_base / high.slope
    else:
        log_base = math.log(primary_base)
        shift = dims[0] / 2.0 - log_base / by_d[dims[0]].slope
    if not (log_base > 0 and math.isfinite(shift)):
        return None
    follows = abs(log_base / math.log(primary_base) - 1.0) < 0.02
    for fit in fits:
        if fit.base != primary_base:
            fitted = fit.slope * (fit.d_model / 2.0 - shift)
            follows = follows and abs(fitted / math.log(fit.base) - 1.0) < 0.02
    return CombinedFit(
        layout=fits[0].layout,
        base=primary_base if follows else math.exp(log_base),
        base_follows_argument=follows,
        frequency_shift=shift,
        argument_scale=fits[0].scale_sign
        * math.exp(float(np.mean([fit.log_scale for fit in fits]))),
        position_offset=float(np.mean([fit.offset for fit in fits])),
        amplitudes={fit.d_model: fit.amplitude for fit in fits},
    )


def _options(raw: float, snapped: list[float], tolerance: float) -> list[tuple[float, int]]:
    """(value, 1 if snapped else 0): snapped values within ``tolerance`` (relative), then raw."""
    chosen: list[tuple[float, int]] = []
    for value in snapped:
        if abs(value - raw) <= tolerance * max(abs(raw), 1e-300) and all(
            value != seen for seen, _ in chosen
        ):
            chosen.append((value, 1))
    if all(raw != seen for seen, _ in chosen):
        chosen.append((raw, 0))
    return chosen


def candidate_grid(fit: CombinedFit, dims: list[int]) -> list[Candidate]:
    """Raw fitted parameters and their round neighbours, every combination that is defined.

    Snapping: base to 1–6 significant digits, s to an integer or half-integer (within
    0.25), c to 1, 2π or 3 significant digits, A to 1, √(2/d) or 3 significant digits,
    the offset to the nearest integer (a :class:`Convention` offset is an int).
    """
    if fit.base_follows_argument:
        bases = [(fit.base, 1)]
    else:
        bases = _options(fit.base, [round_significant(fit.base, n) for n in range(1, 7)], 0.05)
    shifts = _options(
        fit.frequency_shift,
        [float(round(fit.frequency_shift)), round(2 * fit.frequency_shift) / 2],
        math.inf,
    )
    shifts = [(s, snapped) for s, snapped in shifts if abs(s - fit.frequency_shift) <= 0.25]
    sign = math.copysign(1.0, fit.argument_scale)
    scales = _options(
        fit.argument_scale,
        [sign, sign * 2 * math.pi, round_significant(fit.argument_scale, 3)],
        0.05,
    )
    mean_amplitude = float(np.mean(list(fit.amplitudes.values())))
    amplitude_rules: list[tuple[str, float, int]] = []
    if all(abs(a * math.sqrt(d / 2.0) - 1.0) < 0.02 for d, a in fit.amplitudes.items()):
        amplitude_rules.append(("sqrt(2/d)", math.sqrt(2.0 / max(dims)), 1))
    for value, snapped in _options(
        mean_amplitude, [1.0, round_significant(mean_amplitude, 3)], 0.02
    ):
        amplitude_rules.append(("constant", value, snapped))
    offset = round(fit.position_offset)
    candidates = []
    for base, base_snapped in bases:
        for shift, shift_snapped in shifts:
            if any(d / 2.0 - shift <= 0 for d in dims):
                continue
            for scale, scale_snapped in scales:
                for rule, amplitude, amplitude_snapped in amplitude_rules:
                    convention = Convention(
                        layout=fit.layout,
                        frequency_shift=shift,
                        position_offset=offset,
                        argument_scale=scale,
                        name="fitted",
                    )
                    candidates.append(
                        Candidate(
                            convention=convention,
                            base=base,
                            base_follows_argument=fit.base_follows_argument,
                            output_scale=amplitude,
                            output_scale_rule=rule,
                            snapped=base_snapped
                            + shift_snapped
                            + scale_snapped
                            + amplitude_snapped,
                        )
                    )
    return candidates
