"""The diagnosis as a sequence: probe → fit → classify → verify (SPEC Annex D).

Each step takes the frozen state of the one before and returns the next, or the final
:class:`~pespec.sinusoidal.diagnosis.result.Diagnosis` when the output is not explained
there; the ``evidence`` of the report grows step by step in new dicts, never mutated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pespec.numerics.formats import SIGNIFICAND_BITS
from pespec.sinusoidal.diagnosis.fit import (
    NUMERIC_ERRORS,
    Candidate,
    candidate_grid,
    combine,
    fit_probe,
)
from pespec.sinusoidal.diagnosis.growth import phase_error_growth, repeated_row
from pespec.sinusoidal.diagnosis.precision import (
    AMPLITUDE_ULPS,
    classify_error_bits,
    coarser,
    error_growth,
    frequency_grid,
    representability,
    values_format,
)
from pespec.sinusoidal.diagnosis.probes import (
    PRIMARY_BASE,
    SECONDARY_BASE,
    Probe,
    call,
    call_rowwise,
    fit_dims,
    fit_positions,
    large_positions,
    repeat_differs,
    trim_non_finite,
)
from pespec.sinusoidal.diagnosis.result import Diagnosis
from pespec.sinusoidal.diagnosis.rounding import position_rounding, scaled_rounding
from pespec.sinusoidal.diagnosis.slips import find_slip
from pespec.sinusoidal.diagnosis.stages import stage_format
from pespec.sinusoidal.diagnosis.verify import (
    amplitude_deviation,
    best_candidate,
    closest,
    departure,
    describe,
    meaningful_limit,
    verify,
)
from pespec.sinusoidal.properties.base import Encoder, Level
from pespec.sinusoidal.reference.conventions import Convention

__all__ = ["diagnose"]


@dataclass(frozen=True)
class _Request:
    """What the caller asked and the backend declared; fixed for the whole diagnosis."""

    level: Level
    integer_positions_only: bool
    max_position: float | None
    bases: tuple[float, ...] | None
    max_d_model: int | None


@dataclass(frozen=True)
class _Probed:
    """After probing: the answered fit probes, the large-position probe, what they showed."""

    request: _Request
    dims: tuple[int, ...]
    usable: tuple[Probe, ...]
    large: Probe
    non_finite: tuple[float, ...]
    repeated: dict[str, Any] | None
    u_out: float
    evidence: dict[str, Any]


@dataclass(frozen=True)
class _Fitted:
    """After the fit: the chosen candidate and the integer positions merged in a format."""

    probed: _Probed
    chosen: Candidate
    merged_in: str | None
    evidence: dict[str, Any]


@dataclass(frozen=True)
class _Classified:
    """After classifying the precision: the working precision and the level to verify at."""

    fitted: _Fitted
    precision: str
    verify_level: Level
    evidence: dict[str, Any]


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
    """Which convention ``encoder`` implements and in what precision it computes (SPEC Annex D).

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
    request = _Request(level, integer_positions_only, max_position, bases, max_d_model)
    found = _diagnose_both(encoder, request)
    if found.non_deterministic is None:
        base = PRIMARY_BASE if bases is None or PRIMARY_BASE in bases else bases[0]
        rounded = position_rounding(
            encoder,
            d_model=fit_dims(max_d_model)[0],
            base=base,
            max_position=max_position,
            integer_positions_only=integer_positions_only,
        )
        found = replace(found, evidence={**found.evidence, "positions_rounded_to": rounded})
        scaled = _scaled_rounding(encoder, found, declared, rounded, fit_dims(max_d_model)[0])
        if scaled is not None:
            found = replace(found, evidence={**found.evidence, "scaled_rounding": scaled})
        stage = _stage(encoder, found, declared, fit_dims(max_d_model)[0], max_position)
        if stage is not None:
            found = replace(found, evidence={**found.evidence, "stage_format": stage})
    if declared is None:
        return found
    return replace(found, declared=declared.to_dict())


def _fitted(found: Diagnosis, declared: Convention | None) -> Convention | None:
    """The convention the diagnosis fitted (else the declared one), as a Convention."""
    keys = ("layout", "frequency_shift", "position_offset", "argument_scale")
    if found.convention is not None and all(k in found.convention for k in keys):
        data = {k: found.convention[k] for k in keys}
        if "output_scale" in found.convention:
            rule = found.convention.get("output_scale_rule")
            data["output_scale"] = (
                "sqrt(2/d)" if rule == "sqrt(2/d)" else found.convention["output_scale"]
            )
        try:
            return Convention.from_dict(data)
        except (TypeError, ValueError):
            return declared
    return declared


def _stage(
    encoder: Encoder,
    found: Diagnosis,
    declared: Convention | None,
    d_model: int,
    max_position: float | None,
) -> dict[str, Any] | None:
    """Which stage is in the 16-bit working precision found (:mod:`.stages`)."""
    if not found.explained or found.working_precision not in ("float16", "bfloat16"):
        return None
    if found.positions_rounded_in is not None:  # the rounded positions are the coarse step
        return None
    convention = _fitted(found, declared)
    if convention is None:
        return None
    base = float(found.convention.get("base", PRIMARY_BASE)) if found.convention else PRIMARY_BASE
    try:
        return stage_format(
            encoder,
            convention,
            d_model=d_model,
            base=base,
            name=found.working_precision,
            max_position=max_position,
        )
    except (ValueError, TypeError, OverflowError):
        return None


def _scaled_rounding(
    encoder: Encoder,
    found: Diagnosis,
    declared: Convention | None,
    rounded: str | None,
    d_model: int,
) -> dict[str, Any] | None:
    """Which rounding of a scaled timestep (s·t) the output shows, when positions are
    rounded and the convention (declared, else fitted) scales them (SPEC Annex D.3)."""
    if rounded is None:
        return None
    convention = declared
    if convention is None and found.convention is not None:
        keys = ("layout", "frequency_shift", "position_offset", "argument_scale")
        if all(k in found.convention for k in keys):
            convention = Convention.from_dict({k: found.convention[k] for k in keys})
    if convention is None:
        return None
    base = float(found.convention.get("base", PRIMARY_BASE)) if found.convention else PRIMARY_BASE
    return scaled_rounding(encoder, convention, d_model=d_model, base=base, name=rounded)


def _diagnose_both(encoder: Encoder, request: _Request) -> Diagnosis:
    """:func:`diagnose` without the declared convention: the fractional grid, then integers."""
    found = _diagnose_grid(encoder, request)
    if (
        request.integer_positions_only
        or found.explained
        or found.non_deterministic is not None
        or found.known_mistake is not None
    ):
        return found
    on_integers = _diagnose_grid(encoder, replace(request, integer_positions_only=True))
    if not on_integers.explained:
        return found
    evidence = {**on_integers.evidence, "fractional_grid": found.evidence}
    return replace(on_integers, explained_at_integers_only=True, evidence=evidence)


def _diagnose_grid(encoder: Encoder, request: _Request) -> Diagnosis:
    """:func:`diagnose` on one grid of fit positions (fractional, or integers only)."""
    probed = _probe(encoder, request)
    if probed.repeated is not None:
        return _non_deterministic(probed)
    fitted = _fit(probed)
    if isinstance(fitted, Diagnosis):
        return fitted
    classified = _classify(fitted)
    if isinstance(classified, Diagnosis):
        return classified
    return _verified(classified)


def _probe(encoder: Encoder, request: _Request) -> _Probed:
    """Call the fit probes (each twice) and the large-position probe."""
    grid = fit_positions(request.integer_positions_only)
    top = large_positions()
    if request.max_position is not None:
        grid = grid[grid <= request.max_position]
        top = top[top <= request.max_position]
    dims = fit_dims(request.max_d_model)
    asked = [Probe(d, PRIMARY_BASE, grid) for d in dims]
    if request.bases is None or SECONDARY_BASE in request.bases:  # never outside the declared
        asked.append(Probe(dims[0], SECONDARY_BASE, grid))
    non_finite: set[float] = set()
    repeated: dict[str, Any] | None = None
    fit_probes = []
    for request_probe in asked:
        answered = call(encoder, request_probe)
        if repeated is None:  # each fit probe twice: a fit of a random glitch is no diagnosis
            repeated = repeat_differs(encoder, answered)
        trimmed, dropped = trim_non_finite(answered)
        non_finite.update(dropped)
        fit_probes.append(trimmed)
    large = call_rowwise(encoder, Probe(dims[0], PRIMARY_BASE, top))
    usable = tuple(probe for probe in fit_probes if probe.values is not None)
    dtypes = {probe.dtype for probe in [*usable, large] if probe.dtype is not None}
    u_out = max([request.level.u_out, *(2.0 ** -SIGNIFICAND_BITS[name] for name in dtypes)])
    evidence: dict[str, Any] = {
        "probe_notes": {probe.label: probe.note for probe in [*fit_probes, large] if probe.note},
        "output_dtypes": sorted(dtypes),
        "fit_dims": list(dims),
        "max_d_model": request.max_d_model,
    }
    return _Probed(request, dims, usable, large, tuple(non_finite), repeated, u_out, evidence)


def _fit(probed: _Probed) -> _Fitted | Diagnosis:
    """Fit the family to the usable probes and choose the best candidate."""
    merged_in = representability(probed.large)
    evidence = {**probed.evidence, "positions_merged_in": merged_in}
    fits = []
    for probe in probed.usable:
        assert probe.values is not None
        try:
            fit = fit_probe(probe.positions.astype(np.float64), probe.values, probe.base)
        except NUMERIC_ERRORS:
            fit = None
        if fit is not None:
            fits.append(fit)
    # A probe that does not fit (e.g. every pair aliased at base 500) is still verified.
    try:
        combined = combine(fits, PRIMARY_BASE)
        candidates = candidate_grid(combined, list(probed.dims)) if combined is not None else []
        if not candidates:
            return _unexplained(probed, evidence, None, merged_in or "unknown")
        chosen, rms = best_candidate(candidates, list(probed.usable))
    except NUMERIC_ERRORS as exc:  # absurd fitted values (e.g. c = e^1000)
        evidence = {**evidence, "fit_error": f"{type(exc).__name__}: {exc}"}
        return _unexplained(probed, evidence, None, merged_in or "unknown")
    return _Fitted(probed, chosen, merged_in, {**evidence, "fit_rms_error": rms})


def _classify(fitted: _Fitted) -> _Classified | Diagnosis:
    """The working precision: error growth, then frequencies on a grid, then merged positions.

    Precision from the fit probes; the large positions only where those cannot resolve it
    (a low-precision output hides float32 rounding at small angles), so that a bug at large
    positions (a clipped table) is not mistaken for a low precision.
    """
    probed, chosen = fitted.probed, fitted.chosen
    usable = list(probed.usable)
    bits, floor_bits = error_growth(chosen, usable, probed.u_out)
    growth = classify_error_bits(bits, floor_bits)
    if growth == "unknown" and math.isinf(bits) and probed.large.values is not None:
        bits, floor_bits = error_growth(chosen, [*usable, probed.large], probed.u_out)
        growth = classify_error_bits(bits, floor_bits)
    evidence = {
        **fitted.evidence,
        "error_bits": None if math.isinf(bits) else round(bits, 2),
        "resolution_bits": None if math.isinf(floor_bits) else round(floor_bits, 2),
        "precision_from_error_growth": growth,
    }
    if growth == "unknown" and not math.isinf(bits):
        return _unexplained(probed, evidence, chosen, fitted.merged_in or "unknown")
    stored_in = frequency_grid(chosen, usable) if growth in ("bfloat16", "float16") else None
    evidence["frequencies_on_grid_of"] = stored_in
    precision = growth if stored_in is None else stored_in
    if growth != "unknown" and fitted.merged_in is not None:
        precision = coarser(precision, fitted.merged_in)
    level = probed.request.level
    working = level.working_dtype if precision == "unknown" else precision
    verify_level = Level(level.output_dtype, coarser(level.working_dtype, working))
    return _Classified(fitted, precision, verify_level, evidence)


def _verified(classified: _Classified) -> Diagnosis:
    """Verify the chosen candidate at the classified precision; where it departs, how far."""
    fitted = classified.fitted
    probed, chosen, level = fitted.probed, fitted.chosen, classified.verify_level
    usable = list(probed.usable)
    explained, worst = verify(chosen, usable, level)
    stored = values_format(usable)
    deviation = amplitude_deviation(chosen, usable)
    evidence = {
        **classified.evidence,
        "verified_at": level.name,
        "max_error_over_bound": worst,
        "values_format": stored,
        "amplitude_deviation": deviation,
    }
    if deviation > AMPLITUDE_ULPS * 2.0 ** -SIGNIFICAND_BITS[stored]:
        explained = False
    if not explained:
        return _unexplained(probed, evidence, chosen, classified.precision)
    large = probed.large
    departs = departure(chosen, large, level)
    if departs is not None and large.values is not None:
        row = large.values[int(np.flatnonzero(large.positions == departs)[0])]
        evidence["departure_row_failed"] = not bool(np.isfinite(row).all())
        growth = repeated_row(large.positions, large.values, departs) or phase_error_growth(
            chosen, large.positions, large.values, large.base
        )
        if growth is not None:
            evidence["phase_error_growth"] = growth
    main = [probe for probe in [*usable, large] if probe.values is not None]
    main = [p for p in main if p.d_model == probed.dims[0] and p.base == PRIMARY_BASE]
    limit, lower_bound = meaningful_limit(chosen, main)
    return Diagnosis(
        convention=describe(chosen, probed.dims[0]),
        explained=True,
        working_precision=classified.precision,
        meaningful_position_limit=limit,
        candidates=[],
        limit_is_lower_bound=lower_bound,
        departs_from_position=departs,
        non_finite_positions=sorted(probed.non_finite),
        level=probed.request.level.name,
        level_working_precision=probed.request.level.working_dtype,
        evidence=evidence,
    )


def _non_deterministic(probed: _Probed) -> Diagnosis:
    """Two identical calls differed: nothing can be fitted."""
    level = probed.request.level
    return Diagnosis(
        convention=None,
        explained=False,
        working_precision="unknown",
        meaningful_position_limit=None,
        non_deterministic=probed.repeated,
        level=level.name,
        level_working_precision=level.working_dtype,
        evidence=probed.evidence,
    )


def _unexplained(
    probed: _Probed,
    evidence: dict[str, Any],
    fitted: Candidate | None,
    precision: str = "unknown",
) -> Diagnosis:
    """No member of the family explains the output: the closest ones, and a named mistake."""
    level = probed.request.level
    usable = list(probed.usable)
    amplitude = 1.0
    if usable:
        assert usable[0].values is not None
        amplitude = float(np.max(np.abs(usable[0].values))) or 1.0
    candidates = closest(fitted, usable, level, amplitude) if usable else []
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


def _find_slip(probes: list[Probe], level: Level) -> dict[str, Any] | None:
    """A named mistake explaining every usable fit probe (SPEC Annex D.4), or None."""
    found = [(p.positions, p.d_model, p.base, p.values) for p in probes if p.values is not None]
    try:
        return find_slip(found, level)
    except NUMERIC_ERRORS:  # absurd values: no mistake of the list either
        return None
