"""Ranking and verifying candidate conventions against the probes (SPEC Annex D.1, Annex D.5).

A candidate (a member of the family with an output scale, from :mod:`.fit`) is ranked by the
RMS difference between its naive float64 output and the probes, verified element by element
against the error model of SPEC §4 at the inferred working precision, and measured for how
far (in position) its encoding stays meaningful.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.diagnosis.fit import Candidate
from pespec.sinusoidal.diagnosis.probes import PRIMARY_BASE, Probe
from pespec.sinusoidal.properties.base import EncodingConfig, Level
from pespec.sinusoidal.properties.errormodel import element_bound, frequencies_and_logs
from pespec.sinusoidal.reference.conventions import PRESETS, Convention
from pespec.sinusoidal.reference.encoding import encode
from pespec.sinusoidal.reference.naive import naive_encode

__all__ = [
    "LIMIT_TOLERANCE",
    "amplitude_deviation",
    "angles",
    "best_candidate",
    "closest",
    "departure",
    "describe",
    "meaningful_limit",
    "model",
    "rms",
    "verify",
]

LIMIT_TOLERANCE = 1e-2
"""|output/A − exact| allowed for a position to count as meaningful (SPEC Annex D.5)."""

_MIN_INFORMATIVE_FRACTION = 0.25
"""Fraction of fit-probe elements whose bound must be below 0.05·A for `explained` to count."""


def model(candidate: Candidate, probe: Probe, fast: bool = False) -> NDArray[np.float64]:
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


def angles(candidate: Candidate, probe: Probe) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(|θ| per element (n, d), λ = |ln ω_k| per column (d,)) of the candidate at ``probe``."""
    convention = candidate.convention
    omega, lam = frequencies_and_logs(probe.d_model, candidate.base_for(probe.base), convention)
    pair, _ = convention.column_roles(probe.d_model)
    shifted = probe.positions.astype(np.float64) + float(convention.position_offset)
    theta = np.abs(float(convention.argument_scale) * shifted[:, None] * omega[pair][None, :])
    return theta, lam[pair]


def _element_bound(candidate: Candidate, probe: Probe, level: Level) -> NDArray[np.float64]:
    """Per-element bound (n, d) in output units: the error model of SPEC §4 times A."""
    config = EncodingConfig(
        probe.positions, probe.d_model, candidate.base_for(probe.base), candidate.convention
    )
    return candidate.scale_for(probe.d_model) * element_bound(config, level)


def rms(candidate: Candidate, probes: list[Probe]) -> float:
    """Root-mean-square difference between the probes and the candidate's (naive) output."""
    total = 0.0
    count = 0
    for probe in probes:
        assert probe.values is not None
        diff = probe.values - model(candidate, probe, fast=True)
        finite = np.isfinite(diff)
        with np.errstate(over="ignore"):
            total += float(np.sum(diff[finite] ** 2))
        count += int(finite.sum())
    return math.sqrt(total / count) if count else math.inf


def best_candidate(candidates: list[Candidate], probes: list[Probe]) -> tuple[Candidate, float]:
    """The candidate with the most snapped parameters among those within 1.5× the best RMS.

    The raw fit also fits the backend's rounding errors, so a round value can be the truth
    while being a little worse in RMS; 1.5× tolerates that, a wrong round value is far off.
    """
    scored = [(rms(candidate, probes), candidate) for candidate in candidates]
    best_rms = min(rms for rms, _ in scored)
    near = [(c.snapped, -rms, c) for rms, c in scored if rms <= 1.5 * best_rms + 1e-300]
    _, negative_rms, chosen = max(near, key=lambda item: (item[0], item[1]))
    return chosen, -negative_rms


def meaningful_limit(candidate: Candidate, probes: list[Probe]) -> tuple[float | None, bool]:
    """(largest position up to which every probed row is within 1e-2·A, is a lower bound)."""
    positions: list[NDArray[np.float64]] = []
    errors: list[NDArray[np.float64]] = []
    for probe in probes:
        assert probe.values is not None
        error = np.abs(probe.values - model(candidate, probe)) / candidate.scale_for(probe.d_model)
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


def amplitude_deviation(candidate: Candidate, probes: list[Probe]) -> float:
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
    candidate: Candidate, probe: Probe, level: Level
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(|y − A·x|, the §4 bound times A), both (n, d), for a probe with values."""
    assert probe.values is not None
    error = np.abs(probe.values - model(candidate, probe))
    return error, _element_bound(candidate, probe, level)


def verify(candidate: Candidate, probes: list[Probe], level: Level) -> tuple[bool, float]:
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


def departure(candidate: Candidate, probe: Probe, level: Level) -> float | None:
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


def describe(candidate: Candidate, d_model: int) -> dict[str, Any]:
    """The JSON ``convention`` object of a candidate. A √(2/d) fit is matched with that scale
    (``mlx``, not ``tensor2tensor``: the scale is part of that preset); a constant factor is no
    preset's, so it is matched apart from it (``canonical``, the factor in ``output_scale``),
    whatever its value."""
    data = candidate.to_dict(d_model)
    convention = candidate.convention
    if candidate.output_scale_rule == "sqrt(2/d)":
        convention = dataclasses.replace(convention, output_scale="sqrt(2/d)")
    names = _matching_presets(convention) if candidate.output_scale > 0 else []
    data["preset"] = names[0] if names else None
    data["matching_presets"] = names
    return data


def _residuals(
    candidate: Candidate, probes: list[Probe], level: Level, d_model: int
) -> dict[str, Any]:
    """A candidate's residuals on the fit probes, in output units (scale given at d_model)."""
    largest = 0.0
    over_bound = 0.0
    for probe in probes:
        error, bound = _error_and_bound(candidate, probe, level)
        largest = max(largest, float(error.max()))
        over_bound = max(over_bound, float((error / bound).max()))
    return {
        "convention": describe(candidate, d_model),
        "rms_error": rms(candidate, probes),
        "max_abs_error": largest,
        "max_error_over_bound": over_bound,
    }


def _preset_candidate(preset: Convention, amplitude: float) -> Candidate:
    """A preset as a candidate: its output scale becomes the candidate's rule (candidates
    hold unscaled conventions; :func:`model` applies the scale once)."""
    unscaled = dataclasses.replace(preset, output_scale=1.0)
    if preset.output_scale == "sqrt(2/d)":
        return Candidate(unscaled, PRIMARY_BASE, True, 1.0, "sqrt(2/d)", 0)
    scale = amplitude * float(preset.output_scale)
    return Candidate(unscaled, PRIMARY_BASE, True, scale, "constant", 0)


def closest(
    fitted: Candidate | None, probes: list[Probe], level: Level, amplitude: float
) -> list[dict[str, Any]]:
    """The three distinct candidates (fitted, then the presets) with the lowest RMS residual
    (a fit equal to a preset, or presets that coincide, are listed once); presets undefined
    at a probed d_model (s ≥ d/2) are left out."""
    pool = [] if fitted is None else [fitted]
    dims = sorted({probe.d_model for probe in probes}, reverse=True)
    for preset in PRESETS.values():
        if all(d / 2 - preset.frequency_shift > 0 for d in dims):
            pool.append(_preset_candidate(preset, amplitude))
    ranked = sorted(pool, key=lambda candidate: rms(candidate, probes))
    listed: list[dict[str, Any]] = []
    for candidate in ranked:
        described = describe(candidate, dims[0])
        if all(entry["convention"] != described for entry in listed):
            listed.append(_residuals(candidate, probes, level, dims[0]))
        if len(listed) == 3:
            break
    return listed
