"""Diagnosis of a non-conformant backend: its convention and its working precision (SPEC §10).

Called by the conformance suite only after a failing verdict, so a conformant backend is
never slowed down. :func:`diagnose` probes the backend with a few small configurations,
fits the convention family of SPEC §3 (layout × frequency shift × base × position offset ×
argument scale, plus an overall output scale such as MLX's √(2/d)), estimates the working
precision from how the error grows with the angle and from which integer positions the
backend can still tell apart, and returns a :class:`Diagnosis` with a JSON form and a
one-sentence summary. A backend that raises, returns the wrong shape, NaN, garbage or a
constant gets "no known convention", never an exception.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance._diagnosis_fit import (
    Candidate,
    candidate_grid,
    combine,
    fit_probe,
    line_fits,
)
from pespec.conformance._diagnosis_slips import find_slip
from pespec.conformance.backends import BACKEND_ERRORS
from pespec.properties.base import (
    DTYPES,
    SIGNIFICAND_BITS,
    Encoder,
    EncodingConfig,
    Level,
)
from pespec.properties.errormodel import element_bound, exact_frequencies
from pespec.reference.conventions import PRESETS, Convention, diffusers_convention
from pespec.reference.encoding import encode
from pespec.reference.naive import naive_encode

__all__ = [
    "LIMIT_TOLERANCE",
    "PRIMARY_BASE",
    "SECONDARY_BASE",
    "Diagnosis",
    "classify_error_bits",
    "diagnose",
    "fit_dims",
    "precision_classes_table",
    "probe_table",
]

PRIMARY_BASE = 10000.0
"""Base of the main probes (the canonical base)."""

SECONDARY_BASE = 500.0
"""A second requested base: tells a backend that honours ``base`` from one that fixes it."""

FIT_DIMS = (64, 32)
"""Model dimensions of the fit probes; two are needed to separate the base from the shift s.

A backend declaring a smaller ``max_d_model`` is probed within it (:func:`fit_dims`)."""


def fit_dims(max_d_model: int | None) -> tuple[int, ...]:
    """The fit-probe model dimensions within ``max_d_model`` (None: no limit), largest first.

    (64, 32) when allowed; otherwise M = max_d_model and the even M/2 rounded down, at least
    4 (the smallest d with two frequency pairs, ω_0 = 1 and ω_1): M = 16 gives (16, 8),
    M = 6 gives (6, 4). M = 4 and M = 2 give a single dimension: at d = 2 the only frequency
    is ω_0 = 1 whatever the base and shift, so a d = 2 probe cannot help separate them.
    """
    if max_d_model is None or max_d_model >= FIT_DIMS[0]:
        return FIT_DIMS
    low = max(4, 2 * (max_d_model // 4))
    return (max_d_model, low) if low < max_d_model else (max_d_model,)


LIMIT_TOLERANCE = 1e-2
"""|output/A − exact| allowed for a position to count as meaningful (SPEC §10.5)."""

_FORMATS_COARSE_TO_FINE = ("bfloat16", "float16", "float32", "float64")

_SPREAD_BITS = 2.5
"""bits = −log2(largest angle-error ratio) of a p-bit format lies near [p, p + 2.5] (SPEC §10.3):
p for frequencies computed through exp, up to p + 2.5 for singly rounded ones."""

_REPRESENTABILITY_FORMATS = ("bfloat16", "float16", "float32")
"""Formats whose integer range (2^p) the large-position probe straddles."""

_AMPLITUDE_ULPS = 16.0
"""|sqrt(sin² + cos²)/A − 1| allowed, in units u of the format the values lie in: each of
sin, cos within 4 ulps = 8u (FUNCTION_ULPS, SPEC §4.2), and the radius within 2 × that."""

_NUMERIC_ERRORS = (
    ValueError,
    TypeError,
    FloatingPointError,
    OverflowError,
    ZeroDivisionError,
    np.linalg.LinAlgError,
)
"""What absurd backend numbers can make the fit raise; they mean "no known convention"."""

_MIN_INFORMATIVE_FRACTION = 0.25
"""Fraction of fit-probe elements whose bound must be below 0.05·A for `explained` to count."""


def _fit_positions(integer_positions_only: bool) -> NDArray[Any]:
    """The uniform grid of the fit probes: 0..48 (integers) or 0..32 in steps of 1/4."""
    if integer_positions_only:
        return np.arange(49, dtype=np.int64)
    return np.arange(129, dtype=np.float64) / 4.0


def _large_positions() -> NDArray[np.int64]:
    """2^j − 1, 2^j, 2^j + 1, 2^j + 2 and 3·2^(j−1) + 1 for j = 6..30, sorted."""
    values: set[int] = set()
    for j in range(6, 31):
        values.update({2**j - 1, 2**j, 2**j + 1, 2**j + 2, 3 * 2 ** (j - 1) + 1})
    return np.array(sorted(values), dtype=np.int64)


@dataclass
class _Probe:
    """One call of the backend: the request and, when usable, its output as float64."""

    d_model: int
    base: float
    positions: NDArray[Any]
    values: NDArray[np.float64] | None = None
    dtype: str | None = None
    note: str = ""

    @property
    def label(self) -> str:
        return f"d_model={self.d_model}, base={self.base:g}, {len(self.positions)} positions"


def _format_name(dtype: Any) -> str | None:
    for name, known in DTYPES.items():
        if dtype == known:
            return name
    return None


def _call(encoder: Encoder, probe: _Probe) -> None:
    """Run the backend on ``probe``; store float64 values or a note saying what went wrong."""
    try:
        raw = np.asarray(encoder(probe.positions.copy(), probe.d_model, probe.base))
        with np.errstate(all="ignore"):
            values = raw.astype(np.float64)
    except BACKEND_ERRORS as exc:  # a misbehaving backend must not crash the diagnosis
        probe.note = f"raised {type(exc).__name__}: {exc}"[:200]
        return
    expected = (len(probe.positions), probe.d_model)
    if values.shape != expected:
        probe.note = f"returned shape {values.shape}, expected {expected}"
        return
    probe.values = values
    probe.dtype = _format_name(raw.dtype)


def _repeat_differs(encoder: Encoder, probe: _Probe) -> dict[str, Any] | None:
    """Call ``probe`` again; where the two outputs differ (largest difference), or None."""
    again = _Probe(probe.d_model, probe.base, probe.positions)
    _call(encoder, again)
    if probe.values is None or again.values is None:
        return None
    if np.array_equal(probe.values, again.values, equal_nan=True):
        return None
    with np.errstate(invalid="ignore"):
        difference = np.abs(probe.values - again.values)
    difference[~np.isfinite(difference)] = np.inf
    row, column = np.unravel_index(int(np.argmax(difference)), difference.shape)
    return {
        "probe": probe.label,
        "max_difference": float(difference[row, column]),
        "position": float(probe.positions[row]),
        "column": int(column),
        "elements_differing": int(np.count_nonzero(difference > 0)),
    }


def _call_rowwise(encoder: Encoder, probe: _Probe) -> None:
    """Like :func:`_call`, falling back to one call per position (failed rows become NaN)."""
    if len(probe.positions) == 0:
        probe.note = "no position inside the declared max_position"
        return
    _call(encoder, probe)
    if probe.values is not None:
        return
    note = probe.note
    rows = np.full((len(probe.positions), probe.d_model), np.nan)
    for i in range(len(probe.positions)):
        single = _Probe(probe.d_model, probe.base, probe.positions[i : i + 1])
        _call(encoder, single)
        if single.values is not None:
            rows[i] = single.values[0]
            probe.dtype = probe.dtype or single.dtype
    if np.isfinite(rows).any():
        probe.values = rows
        probe.note = f"whole call {note}; evaluated position by position"
    else:
        probe.note = note


def _trim_non_finite(probe: _Probe) -> list[float]:
    """Drop non-finite rows at the ends of a fit probe (e.g. NaN at position 0); returns
    their positions. Non-finite rows inside the grid, or more than a fifth of the rows,
    make the probe unusable."""
    if probe.values is None:
        return []
    finite = np.isfinite(probe.values).all(axis=1)
    if finite.all():
        return []
    kept = np.flatnonzero(finite)
    dropped = [float(p) for p in probe.positions[~finite]]
    if kept.size < 0.8 * finite.size or kept[-1] - kept[0] + 1 != kept.size:
        probe.values, probe.note = None, "returned non-finite values"
        return dropped
    probe.positions = probe.positions[kept]
    probe.values = probe.values[kept]
    probe.note = f"non-finite rows at positions {dropped[:4]} left out"
    return dropped


def _model(candidate: Candidate, probe: _Probe, fast: bool = False) -> NDArray[np.float64]:
    """The candidate's float64 reference output for ``probe``, shape (n, d).

    ``fast``: the naive float64 formula (error ~1e-16·|θ|, ample for ranking candidates on
    the small fit probes) instead of the exact reference, about ten times cheaper.
    """
    reference = (naive_encode if fast else encode)(
        probe.positions,
        probe.d_model,
        base=candidate.base_for(probe.base),
        convention=candidate.convention,
    )
    return candidate.scale_for(probe.d_model) * reference


def _angles(candidate: Candidate, probe: _Probe) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(|θ| per element (n, d), λ = |ln ω_k| per column (d,)) of the candidate at ``probe``."""
    convention = candidate.convention
    omega, lam = exact_frequencies(probe.d_model, candidate.base_for(probe.base), convention)
    pair, _ = convention.column_roles(probe.d_model)
    shifted = probe.positions.astype(np.float64) + float(convention.position_offset)
    theta = np.abs(float(convention.argument_scale) * shifted[:, None] * omega[pair][None, :])
    return theta, lam[pair]


def _element_bound(candidate: Candidate, probe: _Probe, level: Level) -> NDArray[np.float64]:
    """Per-element bound (n, d) in output units: the error model of SPEC §4 times A."""
    config = EncodingConfig(
        probe.positions, probe.d_model, candidate.base_for(probe.base), candidate.convention
    )
    return candidate.scale_for(probe.d_model) * element_bound(config, level)


def _rms(candidate: Candidate, probes: list[_Probe]) -> float:
    """Root-mean-square difference between the probes and the candidate's (naive) output."""
    total = 0.0
    count = 0
    for probe in probes:
        assert probe.values is not None
        diff = probe.values - _model(candidate, probe, fast=True)
        finite = np.isfinite(diff)
        with np.errstate(over="ignore"):
            total += float(np.sum(diff[finite] ** 2))
        count += int(finite.sum())
    return math.sqrt(total / count) if count else math.inf


def _best_candidate(candidates: list[Candidate], probes: list[_Probe]) -> tuple[Candidate, float]:
    """The candidate with the most snapped parameters among those within 1.5× the best RMS.

    The raw fit also fits the backend's rounding errors, so a round value can be the truth
    while being a little worse in RMS; 1.5× tolerates that, a wrong round value is far off.
    """
    scored = [(_rms(candidate, probes), candidate) for candidate in candidates]
    best_rms = min(rms for rms, _ in scored)
    near = [(c.snapped, -rms, c) for rms, c in scored if rms <= 1.5 * best_rms + 1e-300]
    _, negative_rms, chosen = max(near, key=lambda item: (item[0], item[1]))
    return chosen, -negative_rms


def classify_error_bits(bits: float, floor_bits: float) -> str:
    """Working precision from bits = −log2(max angle-error ratio) (SPEC §10.3).

    A format with p significand bits shows bits near [p, p + 2.5]; the cut between two
    neighbouring formats is halfway between the coarse one's p + 2.5 and the fine one's p.
    bits below p_bfloat16 − 1.5 is more error than any format explains ("unknown"). When
    nothing was seen (bits = inf), the precision is finer than every format that the probes
    could have seen (those with p + 2.5 < floor_bits): float64 if float32 was visible.
    """
    if math.isinf(bits):
        float32_visible = SIGNIFICAND_BITS["float32"] + _SPREAD_BITS < floor_bits
        return "float64" if float32_visible else "unknown"
    if bits < SIGNIFICAND_BITS["bfloat16"] - 1.5:
        return "unknown"
    for coarse, fine in itertools.pairwise(_FORMATS_COARSE_TO_FINE):
        cut = (SIGNIFICAND_BITS[coarse] + _SPREAD_BITS + SIGNIFICAND_BITS[fine]) / 2.0
        if bits < cut:
            return coarse
    return "float64"


def _error_growth(candidate: Candidate, probes: list[_Probe], u_out: float) -> tuple[float, float]:
    """(bits, floor_bits): −log2 of the largest angle-error ratio and of the resolution.

    ratio = max(0, |y/A − exact| − 2·u_out) / (1 + |θ|·(2 + |ln ω_k|)): output rounding
    removed, normalised by how a relative error of the working precision enters the angle
    (position, frequency — through exp of an argument of size |ln ω| — and product).
    """
    largest = 0.0
    resolution = math.inf
    for probe in probes:
        assert probe.values is not None
        scale = candidate.scale_for(probe.d_model)
        error = np.abs(probe.values - _model(candidate, probe)) / scale
        theta, log_omega = _angles(candidate, probe)
        denominator = 1.0 + theta * (2.0 + log_omega[None, :])
        finite = np.isfinite(error)
        ratio = np.maximum(error[finite] - 2.0 * u_out, 0.0) / denominator[finite]
        if ratio.size:
            largest = max(largest, float(ratio.max()))
            resolution = min(resolution, float((2.0 * u_out / denominator[finite]).min()))
    bits = -math.log2(largest) if largest > 0 else math.inf
    floor_bits = -math.log2(resolution) if resolution > 0 else math.inf
    return bits, floor_bits


def _frequency_grid(candidate: Candidate, probes: list[_Probe]) -> str | None:
    """The coarser of bfloat16/float16 whose grid holds every measured frequency, or None.

    The angular rate of each pair, measured by a straight-line fit of its unwrapped angle,
    is ω̂_k itself when c = 1. Frequencies stored in a format (a buffer cast with the model)
    are numbers of that format: every pair whose rate is pinned down to a margin below a
    quarter of the format's spacing must lie within that margin of a format number. A random
    rate does so with probability 2·margin/spacing; the product over the tested pairs must
    be ≤ 1e-6. Error growth alone hardly tells a singly rounded bfloat16 frequency from a
    float16 one computed through exp (§10.3).
    """
    if float(candidate.convention.argument_scale) != 1.0:
        return None
    rates: list[NDArray[np.float64]] = []
    margins: list[NDArray[np.float64]] = []
    for probe in probes:
        assert probe.values is not None
        convention = candidate.convention
        sin = probe.values[:, convention.sin_columns(probe.d_model)]
        cos = probe.values[:, convention.cos_columns(probe.d_model)]
        x = probe.positions.astype(np.float64)
        step = float(x[1] - x[0])
        rate, _, margin = line_fits(x, np.unwrap(np.arctan2(sin, cos), axis=0))
        keep = (rate > 0) & (rate * step < 2.0)
        rates.append(rate[keep])
        margins.append(margin[keep])
    rate = np.concatenate(rates)
    margin = np.maximum(np.concatenate(margins), 1e-12 * rate)  # float64 arithmetic of the fit
    for name in ("bfloat16", "float16"):
        with np.errstate(over="ignore", under="ignore"):
            nearest = rate.astype(DTYPES[name]).astype(np.float64)
        spacing = 2.0 ** (np.floor(np.log2(rate)) + 1 - SIGNIFICAND_BITS[name])
        testable = margin < 0.25 * spacing
        chance = float(np.prod(2.0 * margin[testable] / spacing[testable]))
        if chance <= 1e-6 and np.all(np.abs(rate - nearest)[testable] <= margin[testable]):
            return name
    return None


def _representability(probe: _Probe | None) -> str | None:
    """The coarsest format whose rounding of integer positions shows in the output.

    In a format with p significand bits 2^p + 1 rounds to 2^p while 2^p + 2 stays exact, so
    the rows of 2^p and 2^p + 1 are identical and the row of 2^p + 2 differs.
    """
    if probe is None or probe.values is None:
        return None
    index = {int(p): i for i, p in enumerate(probe.positions)}
    for name in _REPRESENTABILITY_FORMATS:
        start = 2 ** SIGNIFICAND_BITS[name]
        if any(start + j not in index for j in range(3)):
            continue  # beyond the declared max_position
        rows = [probe.values[index[start + j]] for j in range(3)]
        if not all(np.isfinite(row).all() for row in rows):
            continue
        if np.array_equal(rows[0], rows[1]) and not np.array_equal(rows[0], rows[2]):
            return name
    return None


def _coarser(first: str, second: str) -> str:
    return first if SIGNIFICAND_BITS[first] <= SIGNIFICAND_BITS[second] else second


def _meaningful_limit(candidate: Candidate, probes: list[_Probe]) -> tuple[float | None, bool]:
    """(largest position up to which every probed row is within 1e-2·A, is a lower bound)."""
    positions: list[NDArray[np.float64]] = []
    errors: list[NDArray[np.float64]] = []
    for probe in probes:
        assert probe.values is not None
        error = np.abs(probe.values - _model(candidate, probe)) / candidate.scale_for(probe.d_model)
        row = np.where(np.isfinite(error).all(axis=1), error.max(axis=1, initial=0.0), np.inf)
        positions.append(probe.positions.astype(np.float64))
        errors.append(row)
    position = np.concatenate(positions)
    error = np.concatenate(errors)
    order = np.argsort(position, kind="stable")
    position, error = position[order], error[order]
    failing = np.flatnonzero(~(error <= LIMIT_TOLERANCE))
    if failing.size == 0:
        return float(position[-1]), True
    first = int(failing[0])
    return (float(position[first - 1]) if first > 0 else None), False


def _values_format(probes: list[_Probe]) -> str:
    """The coarsest format holding every output value exactly: where the values were last
    rounded (bfloat16 values returned as float32 still lie on the bfloat16 grid)."""
    values = np.concatenate([probe.values.ravel() for probe in probes if probe.values is not None])
    for name in _FORMATS_COARSE_TO_FINE:
        with np.errstate(over="ignore"):
            if np.array_equal(values.astype(DTYPES[name]).astype(np.float64), values):
                return name
    return "float64"


def _amplitude_deviation(candidate: Candidate, probes: list[_Probe]) -> float:
    """max |sqrt(sin² + cos²)/A − 1| over the candidate's column pairs.

    A low working precision moves the angles, not the amplitude: only the rounding of the
    values themselves (or a bug) makes sin² + cos² differ from A².
    """
    worst = 0.0
    for probe in probes:
        assert probe.values is not None
        convention = candidate.convention
        sin = probe.values[:, convention.sin_columns(probe.d_model)]
        cos = probe.values[:, convention.cos_columns(probe.d_model)]
        radius = np.hypot(sin, cos) / candidate.scale_for(probe.d_model)
        worst = max(worst, float(np.abs(radius - 1.0).max()))
    return worst


def _error_and_bound(
    candidate: Candidate, probe: _Probe, level: Level
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(|y − A·x|, the §4 bound times A), both (n, d), for a probe with values."""
    assert probe.values is not None
    error = np.abs(probe.values - _model(candidate, probe))
    return error, _element_bound(candidate, probe, level)


def _verify(candidate: Candidate, probes: list[_Probe], level: Level) -> tuple[bool, float]:
    """(every element within the bound and enough elements informative, max error/bound).

    An element is informative when its bound is below 0.05·A; at a coarse working precision
    large angles have bounds of order 1 and prove nothing, so at least a quarter of the
    elements must be informative.
    """
    worst = 0.0
    informative = 0
    total = 0
    for probe in probes:
        error, bound = _error_and_bound(candidate, probe, level)
        worst = max(worst, float((error / bound).max()))
        informative += int((bound <= 0.05 * candidate.scale_for(probe.d_model)).sum())
        total += bound.size
    enough = total > 0 and informative >= _MIN_INFORMATIVE_FRACTION * total
    return (worst <= 1.0 and enough), worst


def _departure(candidate: Candidate, probe: _Probe, level: Level) -> float | None:
    """First large-probe position whose row leaves the bound (or fails), None if none does."""
    if probe.values is None:
        return None
    error, bound = _error_and_bound(candidate, probe, level)
    with np.errstate(invalid="ignore"):
        # An infinite bound: the working format cannot hold the position; nothing expected.
        bad = ~((error <= bound) | np.isinf(bound)).all(axis=1)
    rows = np.flatnonzero(bad)
    return float(probe.positions[rows[0]]) if rows.size else None


def _matching_presets(convention: Convention) -> list[str]:
    return [name for name, preset in PRESETS.items() if preset == convention]


def _describe(candidate: Candidate, d_model: int) -> dict[str, Any]:
    """The JSON ``convention`` object of a candidate."""
    data = candidate.to_dict(d_model)
    names = _matching_presets(candidate.convention)
    data["preset"] = names[0] if names else None
    data["matching_presets"] = names
    return data


def _residuals(
    candidate: Candidate, probes: list[_Probe], level: Level, d_model: int
) -> dict[str, Any]:
    """A candidate's residuals on the fit probes, in output units (scale given at d_model)."""
    largest = 0.0
    over_bound = 0.0
    for probe in probes:
        error, bound = _error_and_bound(candidate, probe, level)
        largest = max(largest, float(error.max()))
        over_bound = max(over_bound, float((error / bound).max()))
    return {
        "convention": _describe(candidate, d_model),
        "rms_error": _rms(candidate, probes),
        "max_abs_error": largest,
        "max_error_over_bound": over_bound,
    }


def _closest(
    fitted: Candidate | None, probes: list[_Probe], level: Level, amplitude: float
) -> list[dict[str, Any]]:
    """The three distinct candidates (fitted, then the presets) with the lowest RMS residual
    (a fit equal to a preset, or presets that coincide, are listed once); presets undefined
    at a probed d_model (s ≥ d/2) are left out."""
    pool = [] if fitted is None else [fitted]
    dims = sorted({probe.d_model for probe in probes}, reverse=True)
    for preset in PRESETS.values():
        if all(d / 2 - preset.frequency_shift > 0 for d in dims):
            pool.append(Candidate(preset, PRIMARY_BASE, True, amplitude, "constant", 0))
    ranked = sorted(pool, key=lambda candidate: _rms(candidate, probes))
    listed: list[dict[str, Any]] = []
    for candidate in ranked:
        described = _describe(candidate, dims[0])
        if all(entry["convention"] != described for entry in listed):
            listed.append(_residuals(candidate, probes, level, dims[0]))
        if len(listed) == 3:
            break
    return listed


def _finite_or_null(value: Any) -> Any:
    """``value`` with every non-finite float, at any depth, replaced by None."""
    if isinstance(value, dict):
        return {key: _finite_or_null(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite_or_null(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class Diagnosis:
    """What a failing backend computes (SPEC §10).

    ``convention``: the fitted family member (``layout``, ``frequency_shift``, ``base``,
    ``base_follows_argument``, ``position_offset``, ``argument_scale``, ``output_scale`` at
    the first fit dimension (d = 64 unless a smaller max_d_model is declared) with its
    ``output_scale_rule``, ``preset``, ``matching_presets``), or None when no member explains
    the output. ``working_precision``: the format the angles are effectively
    computed in, or "unknown". ``known_mistake``: when no member explains the output but a
    named mistake of SPEC §10.4 does (sin and cos swapped within each pair, the exponent
    4i/d or i/d), its ``name``, ``description``, ``working_precision`` and
    ``max_error_over_bound``. ``meaningful_position_limit``: the largest probed position up
    to which every probed row stays within 1e-2 (relative to the output scale) of the exact
    encoding of the fitted convention; ``limit_is_lower_bound`` when no probed row failed.
    """

    convention: dict[str, Any] | None
    explained: bool
    working_precision: str
    meaningful_position_limit: float | None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    limit_is_lower_bound: bool = False
    departs_from_position: float | None = None
    non_finite_positions: list[float] = field(default_factory=list)
    non_deterministic: dict[str, Any] | None = None
    explained_at_integers_only: bool = False
    known_mistake: dict[str, Any] | None = None
    level: str = "float64"
    level_working_precision: str = "float64"
    evidence: dict[str, Any] = field(default_factory=dict)
    declared: dict[str, Any] | None = None
    """The convention the backend declared (``Convention.to_dict()``), when one was."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the report's ``diagnosis`` object), with the sentence; a
        non-finite number (a residual of an absurd output) becomes null."""
        data: dict[str, Any] = _finite_or_null({**asdict(self), "sentence": self.sentence()})
        return data

    @property
    def precision_is_cause(self) -> bool:
        """True when the backend works in a coarser format than its level assumes."""
        return (
            self.working_precision in SIGNIFICAND_BITS
            and SIGNIFICAND_BITS[self.working_precision]
            < SIGNIFICAND_BITS[self.level_working_precision]
        )

    def _reach(self) -> str:
        limit = self.meaningful_position_limit
        if limit is None:
            return "is not within 1e-2 of exact even at the first probed position"
        if self.limit_is_lower_bound:
            return f"stays within 1e-2 of exact at every probed position (up to {limit:.0f})"
        return f"stays within 1e-2 of exact only up to position ~{limit:.0f}"

    @property
    def positions_rounded_in(self) -> str | None:
        """The format the positions (timesteps) are rounded to before the embedding, when
        that, not the angle arithmetic, is the coarse step: integer positions merge in a
        format coarser than the level's working precision while the error growth of the
        angles shows a finer one (a pipeline casting timesteps to bfloat16, SPEC §10.3)."""
        growth = self.evidence.get("precision_from_error_growth")
        probed = self.evidence.get("positions_rounded_to")
        merged = self.evidence.get("positions_merged_in")
        if probed in SIGNIFICAND_BITS:
            found = str(probed)
        elif merged in SIGNIFICAND_BITS and self.precision_is_cause:
            found = str(merged)
        else:
            return None
        if SIGNIFICAND_BITS[found] >= SIGNIFICAND_BITS[self.level_working_precision]:
            return None
        if growth in SIGNIFICAND_BITS and SIGNIFICAND_BITS[growth] <= SIGNIFICAND_BITS[found]:
            return None  # the angles themselves are that coarse: the rounding is part of it
        return found

    def _clauses(self) -> list[str]:
        """The precision and large-position findings, as clauses."""
        clauses = []
        rounded = self.positions_rounded_in
        if rounded is not None and self.explained:
            growth = self.evidence.get("precision_from_error_growth")
            angles = f"; the angles are computed in {growth}" if growth in SIGNIFICAND_BITS else ""
            clauses.append(
                f"timesteps rounded to {rounded} before the embedding (each position p is "
                f"used as {rounded}(p){angles}): the encoding {self._reach()}"
            )
        elif self.precision_is_cause:
            clauses.append(
                f"angles are computed in {self.working_precision}: the encoding {self._reach()}"
            )
        if self.non_finite_positions:
            shown = ", ".join(f"{p:g}" for p in self.non_finite_positions[:4])
            more = ", …" if len(self.non_finite_positions) > 4 else ""
            clauses.append(f"it returns non-finite values at position {shown}{more}")
        if self.explained_at_integers_only:
            clauses.append(
                "only at integer positions: at fractional positions its output is not their "
                "encoding (a table looked up by integer index? declare integer_positions_only)"
            )
        if self.departs_from_position is not None:
            reach = "" if clauses else f" (the encoding {self._reach()})"
            if self.evidence.get("departure_row_failed"):
                clauses.append(
                    f"from position ~{self.departs_from_position:.0f} on the backend fails "
                    f"(raises or returns nothing usable){reach}"
                )
            else:
                clauses.append(
                    f"from position ~{self.departs_from_position:.0f} on the output departs "
                    f"from it by more than {self.working_precision} rounding explains{reach}"
                )
        return clauses

    def _dims_note(self) -> str | None:
        """What a declared max_d_model ≤ 4 leaves undetermined (None: nothing)."""
        dims = self.evidence.get("fit_dims") or list(FIT_DIMS)
        if len(dims) > 1:
            return None
        declared = self.evidence.get("max_d_model")
        if dims[0] <= 2:
            return (
                f"at the declared max_d_model={declared} the only frequency is ω_0 = 1, so "
                "neither the base nor the frequency shift affects the output and neither can "
                "be determined"
            )
        return (
            f"at the declared max_d_model={declared} only ln(base)/(d/2 − s) is observable "
            "(two model dimensions ≥ 4 are needed to separate base and frequency shift s), "
            "so the base is taken to be the one requested and s follows from it"
        )

    def sentence(self) -> str:
        """One sentence for the terminal report."""
        text = self._sentence()
        note = self._dims_note()
        return text if note is None else f"{text[:-1]}; {note}."

    def _sentence(self) -> str:
        """:meth:`sentence` without the note on undetermined parameters."""
        if self.non_deterministic is not None:
            found = self.non_deterministic
            return (
                "Output is not deterministic: two identical calls "
                f"({found['probe']}) differ by up to {found['max_difference']:.3g} "
                f"(position {found['position']:g}, column {found['column']}), so neither a "
                "convention nor a working precision can be inferred from it."
            )
        if self.known_mistake is not None:
            return (
                f"Output is the canonical encoding with {self.known_mistake['description']}, "
                f"computed in {self.working_precision}: a mistake, not a convention of the "
                "family."
            )
        notes = self.evidence.get("probe_notes") or {}
        if not self.explained and not self.candidates and notes:  # no fit probe was usable
            label, note = next(iter(notes.items()))
            return (
                "Output matches no known convention of the sinusoidal family: no diagnosis "
                f"probe gave a usable output ({label}: {note})."
            )
        if not self.explained or self.convention is None:
            text = "Output matches no known convention of the sinusoidal family"
            if self.candidates:
                best = self.candidates[0]
                text += (
                    f" (closest: {_convention_name(best['convention'])}, max error "
                    f"{best['max_abs_error']:.3g})"
                )
            if self.declared is not None:
                text += f", not the declared {self.declared.get('name', 'custom')} convention"
            rounded = self.positions_rounded_in
            if rounded is not None:
                text += f"; timesteps rounded to {rounded} before the embedding"
            return text + "."
        clauses = self._clauses()
        if self.declared is not None:
            return self._declared_sentence(clauses)
        if _is_canonical(self.convention):
            if clauses:
                return f"Output follows the canonical convention, but {'; '.join(clauses)}."
            return (
                f"Output matches the canonical convention computed in {self.working_precision}; "
                "the failure is neither a different convention nor a lower working precision."
            )
        if _is_canonical({**self.convention, "base_follows_argument": True}):
            base = self.convention["base"]
            computed = "" if self.precision_is_cause else f" computed in {self.working_precision}"
            text = (
                f"Output follows the canonical convention{computed}, but with the base fixed "
                f"at {base:g} whatever base is requested (the base argument is ignored)"
            )
            return "; ".join([text, *clauses]) + "."
        text = (
            f"Output matches {_convention_name(self.convention)} ({_details(self.convention)}): "
            "it is a valid variant, not the canonical encoding"
        )
        return "; ".join([text, *clauses]) + "."


    def _declared_sentence(self, clauses: list[str]) -> str:
        """The sentence relative to a declared convention (the fit explained the output)."""
        assert self.declared is not None and self.convention is not None
        declared = Convention.from_dict(self.declared)
        name = f"the declared {declared.name} convention"
        if _is_member(self.convention, declared):
            if clauses:
                return f"Output follows {name}, but {'; '.join(clauses)}."
            return (
                f"Output matches {name} computed in {self.working_precision}; the failure is "
                "neither a different convention nor a lower working precision."
            )
        wanted = {**declared.to_dict(), "base_follows_argument": True, "base": PRIMARY_BASE}
        wanted |= {"output_scale": 1.0, "output_scale_rule": "constant"}
        text = (
            f"Output computes {_convention_name(self.convention)} "
            f"({_details(self.convention)}), not {name} ({_details(wanted)})"
        )
        return "; ".join([text, *clauses]) + "."


def _is_member(data: dict[str, Any], declared: Convention) -> bool:
    """True when the fitted convention ``data`` is ``declared`` (unit output, base honoured)."""
    return (
        _convention_of(data) == declared
        and data["output_scale_rule"] == "constant"
        and data["output_scale"] == 1.0
        and (data["base_follows_argument"] or data["base"] == PRIMARY_BASE)
    )


def _is_canonical(data: dict[str, Any]) -> bool:
    return (
        _convention_of(data).is_canonical
        and data["output_scale_rule"] == "constant"
        and data["output_scale"] == 1.0
        and data["base_follows_argument"]
    )


def _convention_of(data: dict[str, Any]) -> Convention:
    keys = ("layout", "frequency_shift", "position_offset", "argument_scale")
    return Convention.from_dict({key: data[key] for key in keys} | {"name": "fitted"})


def _convention_name(data: dict[str, Any]) -> str:
    """ "the tensor2tensor/whisper/diffusers convention", a diffusers parameterisation, or
    "a convention of the family"."""
    names = data.get("matching_presets") or []
    if names == ["canonical"]:
        canonical = _is_canonical(data)
        return "the canonical convention" if canonical else "a variant of the canonical convention"
    if names:
        return f"the {'/'.join(names)} convention"
    convention = _convention_of(data)
    if convention.layout != "interleaved" and convention.position_offset == 0:
        name = diffusers_convention(
            convention.layout == "cos_sin_halves",
            float(convention.frequency_shift),
            float(convention.argument_scale),
        ).name
        return f"the {name} convention"
    return "a convention of the family"


_LAYOUT_WORDS = {
    "interleaved": "interleaved sin/cos",
    "sin_cos_halves": "sines|cosines halves",
    "cos_sin_halves": "cosines|sines halves",
}


def _details(data: dict[str, Any]) -> str:
    """Layout, frequency law and every non-default parameter, in words."""
    shift = float(data["frequency_shift"])
    if shift == 0:
        law = "ω_k = base^(−2k/d)"
    elif shift == 1:
        law = "ω_k = base^(−k/(d/2−1))"
    else:
        law = f"ω_k = base^(−k/(d/2{-shift:+g}))".replace("-", "−")
    parts = [_LAYOUT_WORDS[data["layout"]], law]
    if not data["base_follows_argument"]:
        parts.append(f"base fixed at {data['base']:g} whatever base is requested")
    if data["position_offset"]:
        parts.append(f"positions shifted by {data['position_offset']:+d}")
    if data["argument_scale"] != 1.0:
        parts.append(f"angles scaled by {data['argument_scale']:g}")
    if data["output_scale_rule"] == "sqrt(2/d)":
        parts.append("outputs scaled by √(2/d)")
    elif data["output_scale"] != 1.0:
        parts.append(f"outputs scaled by {data['output_scale']:g}")
    return ", ".join(parts)


def diagnose(
    encoder: Encoder,
    *,
    level: Level,
    integer_positions_only: bool = False,
    max_position: float | None = None,
    bases: tuple[float, ...] | None = None,
    max_d_model: int | None = None,
    declared: Convention | None = None,
) -> Diagnosis:
    """Which convention ``encoder`` implements and in what precision it computes (SPEC §10).

    ``encoder``: ``(positions (n,), d_model, base) -> (n, d_model)`` array in any float dtype.
    ``level``: the conformance level it failed. ``integer_positions_only``: probe with
    integer positions only. ``max_position``: the largest position the backend declares
    (a table of rows); no probe goes beyond it. ``bases``: the bases it declares; the probe
    at base 500 is left out unless it is one of them. ``max_d_model``: the widest model it
    declares; the fit probes use :func:`fit_dims` within it (with a single dimension, at
    max_d_model ≤ 4, base and shift cannot be separated and the sentence says so). Makes 3
    small calls, each twice (an output that changes between identical calls is reported as
    not deterministic, not fitted), plus
    one of up to 125 large positions (row by row if that one raises), plus at most two
    asking for positions p and bfloat16(p), float16(p) (rounded timesteps). When the fractional
    grid explains nothing, the integer grid is tried (the same calls again): a table looked
    up by integer index is then named as such. ``declared``: the convention the backend
    declared; the sentence then says whether the output follows it, or what it computes
    instead. Never raises because of the backend's behaviour.
    """
    found = _diagnose_both(
        encoder,
        level=level,
        integer_positions_only=integer_positions_only,
        max_position=max_position,
        bases=bases,
        max_d_model=max_d_model,
    )
    from pespec.conformance._position_rounding import position_rounding

    if found.non_deterministic is None:
        base = PRIMARY_BASE if bases is None or PRIMARY_BASE in bases else bases[0]
        rounded = position_rounding(
            encoder,
            d_model=fit_dims(max_d_model)[0],
            base=base,
            max_position=max_position,
            integer_positions_only=integer_positions_only,
        )
        found.evidence["positions_rounded_to"] = rounded
    if declared is None:
        return found
    return replace(found, declared=declared.to_dict())


def _diagnose_both(
    encoder: Encoder,
    *,
    level: Level,
    integer_positions_only: bool,
    max_position: float | None,
    bases: tuple[float, ...] | None,
    max_d_model: int | None,
) -> Diagnosis:
    """:func:`diagnose` without the declared convention: the fractional grid, then integers."""
    found = _diagnose_grid(
        encoder,
        level=level,
        integer_positions_only=integer_positions_only,
        max_position=max_position,
        bases=bases,
        max_d_model=max_d_model,
    )
    if (
        integer_positions_only
        or found.explained
        or found.non_deterministic is not None
        or found.known_mistake is not None
    ):
        return found
    on_integers = _diagnose_grid(
        encoder,
        level=level,
        integer_positions_only=True,
        max_position=max_position,
        bases=bases,
        max_d_model=max_d_model,
    )
    if not on_integers.explained:
        return found
    evidence = {**on_integers.evidence, "fractional_grid": found.evidence}
    return replace(on_integers, explained_at_integers_only=True, evidence=evidence)


def _diagnose_grid(
    encoder: Encoder,
    *,
    level: Level,
    integer_positions_only: bool,
    max_position: float | None,
    bases: tuple[float, ...] | None,
    max_d_model: int | None = None,
) -> Diagnosis:
    """:func:`diagnose` on one grid of fit positions (fractional, or integers only)."""
    grid = _fit_positions(integer_positions_only)
    if max_position is not None:
        grid = grid[grid <= max_position]
    dims = fit_dims(max_d_model)
    fit_probes = [_Probe(d, PRIMARY_BASE, grid) for d in dims]
    if bases is None or SECONDARY_BASE in bases:  # never a call outside the declared bases
        fit_probes.append(_Probe(dims[0], SECONDARY_BASE, grid))
    non_finite: set[float] = set()
    repeated: dict[str, Any] | None = None
    for probe in fit_probes:
        _call(encoder, probe)
        if repeated is None:  # each fit probe twice: a fit of a random glitch is no diagnosis
            repeated = _repeat_differs(encoder, probe)
        non_finite.update(_trim_non_finite(probe))
    large_positions = _large_positions()
    if max_position is not None:
        large_positions = large_positions[large_positions <= max_position]
    large = _Probe(dims[0], PRIMARY_BASE, large_positions)
    _call_rowwise(encoder, large)
    usable = [probe for probe in fit_probes if probe.values is not None]
    dtypes = {probe.dtype for probe in [*usable, large] if probe.dtype is not None}
    u_out = max([level.u_out, *(2.0 ** -SIGNIFICAND_BITS[name] for name in dtypes)])
    evidence: dict[str, Any] = {
        "probe_notes": {probe.label: probe.note for probe in [*fit_probes, large] if probe.note},
        "output_dtypes": sorted(dtypes),
        "fit_dims": list(dims),
        "max_d_model": max_d_model,
    }

    def unexplained(fitted: Candidate | None, precision: str = "unknown") -> Diagnosis:
        amplitude = 1.0
        if usable:
            assert usable[0].values is not None
            amplitude = float(np.max(np.abs(usable[0].values))) or 1.0
        candidates = _closest(fitted, usable, level, amplitude) if usable else []
        slip = _find_slip(usable, level)
        return Diagnosis(
            convention=None,
            explained=False,
            known_mistake=slip,
            working_precision=precision if slip is None else slip["working_precision"],
            meaningful_position_limit=None,
            candidates=candidates,
            level=level.name,
            level_working_precision=level.working_dtype,
            evidence=evidence,
        )

    if repeated is not None:
        return Diagnosis(
            convention=None,
            explained=False,
            working_precision="unknown",
            meaningful_position_limit=None,
            non_deterministic=repeated,
            level=level.name,
            level_working_precision=level.working_dtype,
            evidence=evidence,
        )
    representability = _representability(large)
    evidence["positions_merged_in"] = representability
    fits = []
    for probe in usable:
        assert probe.values is not None
        try:
            fit = fit_probe(probe.positions.astype(np.float64), probe.values, probe.base)
        except _NUMERIC_ERRORS:
            fit = None
        if fit is not None:
            fits.append(fit)
    # A probe that does not fit (e.g. every pair aliased at base 500) is still verified.
    try:
        combined = combine(fits, PRIMARY_BASE)
        candidates = candidate_grid(combined, list(dims)) if combined is not None else []
        if not candidates:
            return unexplained(None, representability or "unknown")
        chosen, rms = _best_candidate(candidates, usable)
    except _NUMERIC_ERRORS as exc:  # absurd fitted values (e.g. c = e^1000)
        evidence["fit_error"] = f"{type(exc).__name__}: {exc}"
        return unexplained(None, representability or "unknown")
    evidence["fit_rms_error"] = rms
    # Precision from the fit probes; the large positions only where those cannot resolve it
    # (a low-precision output hides float32 rounding at small angles), so that a bug at
    # large positions (a clipped table) is not mistaken for a low precision.
    bits, floor_bits = _error_growth(chosen, usable, u_out)
    growth = classify_error_bits(bits, floor_bits)
    if growth == "unknown" and math.isinf(bits) and large.values is not None:
        bits, floor_bits = _error_growth(chosen, [*usable, large], u_out)
        growth = classify_error_bits(bits, floor_bits)
    evidence["error_bits"] = None if math.isinf(bits) else round(bits, 2)
    evidence["resolution_bits"] = None if math.isinf(floor_bits) else round(floor_bits, 2)
    evidence["precision_from_error_growth"] = growth
    if growth == "unknown" and not math.isinf(bits):
        return unexplained(chosen, representability or "unknown")
    precision = growth
    stored_in = _frequency_grid(chosen, usable) if growth in ("bfloat16", "float16") else None
    evidence["frequencies_on_grid_of"] = stored_in
    if stored_in is not None:
        precision = stored_in
    if growth != "unknown" and representability is not None:
        precision = _coarser(precision, representability)
    working = level.working_dtype if precision == "unknown" else precision
    verify_level = Level(level.output_dtype, _coarser(level.working_dtype, working))
    explained, worst = _verify(chosen, usable, verify_level)
    evidence["verified_at"] = verify_level.name
    evidence["max_error_over_bound"] = worst
    values_format = _values_format(usable)
    deviation = _amplitude_deviation(chosen, usable)
    evidence["values_format"] = values_format
    evidence["amplitude_deviation"] = deviation
    if deviation > _AMPLITUDE_ULPS * 2.0 ** -SIGNIFICAND_BITS[values_format]:
        explained = False
    if not explained:
        return unexplained(chosen, precision)
    departure = _departure(chosen, large, verify_level)
    if departure is not None and large.values is not None:
        row = large.values[int(np.flatnonzero(large.positions == departure)[0])]
        evidence["departure_row_failed"] = not bool(np.isfinite(row).all())
    main = [probe for probe in [*usable, large] if probe.values is not None]
    main = [p for p in main if p.d_model == dims[0] and p.base == PRIMARY_BASE]
    limit, lower_bound = _meaningful_limit(chosen, main)
    return Diagnosis(
        convention=_describe(chosen, dims[0]),
        explained=True,
        working_precision=precision,
        meaningful_position_limit=limit,
        candidates=[],
        limit_is_lower_bound=lower_bound,
        departs_from_position=departure,
        non_finite_positions=sorted(non_finite),
        level=level.name,
        level_working_precision=level.working_dtype,
        evidence=evidence,
    )


def _find_slip(probes: list[_Probe], level: Level) -> dict[str, Any] | None:
    """A named mistake explaining every usable fit probe (SPEC §10.4), or None."""
    found = [(p.positions, p.d_model, p.base, p.values) for p in probes if p.values is not None]
    try:
        return find_slip(found, level)
    except _NUMERIC_ERRORS:  # absurd values: no mistake of the list either
        return None


def precision_classes_table() -> str:
    """Markdown table of the precision classes of SPEC §10.2 (generated into SPEC.md)."""
    lines = [
        "| format | p | u = 2^−p | integers exact up to | merged probe rows "
        "| error bits classified as |",
        "|---|---|---|---|---|---|",
    ]
    low = SIGNIFICAND_BITS["bfloat16"] - 1.5
    for coarse_index, name in enumerate(_FORMATS_COARSE_TO_FINE):
        p = SIGNIFICAND_BITS[name]
        if coarse_index + 1 < len(_FORMATS_COARSE_TO_FINE):
            fine = _FORMATS_COARSE_TO_FINE[coarse_index + 1]
            high = (p + _SPREAD_BITS + SIGNIFICAND_BITS[fine]) / 2.0
            interval = f"[{low:g}, {high:g})"
            low = high
        else:
            interval = f"≥ {low:g} (or none seen where float32 would show)"
        merged = f"{2**p} and {2**p + 1}" if name in _REPRESENTABILITY_FORMATS else "—"
        lines.append(f"| {name} | {p} | {2.0**-p:.3g} | {2**p} | {merged} | {interval} |")
    return "\n".join(lines)


def _describe_positions(positions: NDArray[Any]) -> str:
    first, last = (f"{int(v)}" if float(v).is_integer() else f"{v:g}" for v in positions[[0, -1]])
    return f"{len(positions)} positions {first} … {last}"


def probe_table() -> str:
    """Markdown table of the probes :func:`diagnose` makes (generated into SPEC.md)."""
    fractional = _describe_positions(_fit_positions(False))
    integer = _describe_positions(_fit_positions(True))
    rows = [
        ("fit", FIT_DIMS[0], PRIMARY_BASE, fractional, integer),
        ("fit", FIT_DIMS[1], PRIMARY_BASE, fractional, integer),
        ("fit", FIT_DIMS[0], SECONDARY_BASE, fractional, integer),
        (
            "precision and limit",
            FIT_DIMS[0],
            PRIMARY_BASE,
            _describe_positions(_large_positions()),
            "same",
        ),
    ]
    lines = [
        "| probe | d_model | base | positions | with integer positions only |",
        "|---|---|---|---|---|",
    ]
    for role, d, base, positions, integer_only in rows:
        lines.append(f"| {role} | {d} | {base:g} | {positions} | {integer_only} |")
    return "\n".join(lines)
