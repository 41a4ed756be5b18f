"""Per-section frequencies, offsets and layout measured from a multi-axis table (issue 39).

When no neighbouring configuration reproduces the output, the diagnosis measures instead of
guessing. Each section's pair k sits in two output columns (the arrangement's); the rows are
a (sin, cos) pair when sin² + cos² = 1 within 1e-2, else the arrangement is tried the other
way (sectioned ↔ grouped). The angle atan2(sin, cos), grouped by the section's axis position
(circular mean per value), unwrapped along consecutive integer positions and fitted by least
squares, gives ω̂_k and φ̂_k(0) (:func:`pespec.multiaxis.rope.measure.phase_line`). Named per section:
cos and sin exchanged (falling angles starting at π/2), the axis's positions shifted by o
(φ̂_k(0) = ω̂_k·o in every pair), and the frequency law ω̂_k = b̂^(−k/m̂) against the
declared base^(−k/(d/2 − s)): the base measured (the denominator as declared) or,
equally, the denominator measured (the base as declared), with m̂ = D/2 named as
frequencies over the whole width. Rates are read only beyond the fit's precision.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.rope.measure import phase_line
from pespec.multiaxis.sinusoidal.config import Arrangement, MultiAxisConfig

__all__ = ["section_facts"]

F64 = NDArray[np.float64]


def _pairs(y: F64, config: MultiAxisConfig, index: int) -> tuple[F64, F64] | None:
    """(sin, cos) (n, d/2) of section ``index`` when its columns hold unit pairs."""
    section = config.sections[index]
    cols = config.columns(index)
    d = section.d_model
    s = y[:, cols[section.convention.sin_columns(d)]]
    c = y[:, cols[section.convention.cos_columns(d)]]
    with np.errstate(invalid="ignore"):
        unit = np.abs(np.hypot(s, c) - 1) <= 1e-2
    return (s, c) if bool(np.all(unit)) else None


def _law(omega: F64, sigma: F64, index: int, config: MultiAxisConfig) -> str | None:
    """The frequency law measured, against the declared one; None when it matches."""
    section = config.sections[index]
    d, base = section.d_model, section.base
    den = d / 2 - float(section.convention.frequency_shift)
    k = np.arange(omega.size, dtype=np.float64)
    declared = base ** (-k / den)
    if np.all(np.abs(omega - declared) <= sigma + 1e-6 * declared) or np.any(omega <= 0):
        return None
    slope, start = np.polyfit(k, np.log(omega), 1)
    if slope >= 0 or abs(start) > 1e-3:
        return None
    den_hat = -math.log(base) / slope
    base_hat = math.exp(-slope * den)
    text = (
        f"base measured {base_hat:.6g} where the config says {base:g} (equally, the "
        f"frequency denominator {den_hat:.4g} instead of d/2 − s = {den:g})"
    )
    total = config.d_model / 2
    if abs(den_hat - total) < 1e-2 * total:
        text += f"; the denominator is D/2 = {total:g}: frequencies over the whole width D"
    return text


def _one(y: F64, positions: F64, config: MultiAxisConfig, index: int) -> str | None:
    found = _pairs(y, config, index)
    if found is None:
        return None
    section = config.sections[index]
    sin, cos = found
    phase = np.arctan2(sin, cos)
    lines = [phase_line(phase[:, k], positions[:, section.axis]) for k in range(sin.shape[1])]
    fits = [f for f in lines if not isinstance(f, str)]
    if len(fits) < max(3, len(lines) // 2):
        return None
    omega = np.array([f[0] for f in fits])
    start = np.array([f[1] for f in fits])
    sigma = np.array([f[2] for f in fits])
    facts = []
    if np.median(omega) < 0 and np.all(np.abs(np.abs(start) - math.pi / 2) < 0.05):
        facts.append("cos and sin exchanged within the section (the cosines written first)")
        omega, start = -omega, np.pi / 2 - start
        start = np.remainder(start + np.pi, 2 * np.pi) - np.pi
    usable = (omega > 1e-3) & (omega < 0.5)
    if usable.sum() >= 2:
        shifts = start[usable] / omega[usable]
        shift = float(np.median(shifts))
        if float(np.max(np.abs(shifts - shift))) < 0.05 and abs(shift) > 0.05:
            facts.append(f"axis {section.axis}'s positions shifted by {shift:+.3g}")
    if len(fits) == len(lines):
        law = _law(omega, sigma, index, config)
        if law:
            facts.append(law)
    return f"section {index} (axis {section.axis}): " + "; ".join(facts) if facts else None


def section_facts(y: F64, positions: F64, config: MultiAxisConfig) -> list[str]:
    """The measured facts that depart from ``config`` (empty when none is measurable)."""
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(positions, dtype=np.float64)
    out: list[str] = []
    readable = [_pairs(y, config, i) is not None for i in range(len(config.sections))]
    if not all(readable):
        other: Arrangement = "grouped" if config.arrangement == "sectioned" else "sectioned"
        swapped = replace(config, arrangement=other)
        if all(_pairs(y, swapped, i) is not None for i in range(len(config.sections))):
            out.append(
                f"the sections are arranged {other} where the config says {config.arrangement} "
                "(the sin and cos columns of every section are unit pairs only that way)"
            )
            config = swapped
        else:
            return out
    with np.errstate(invalid="ignore", divide="ignore"):
        for index in range(len(config.sections)):
            fact = _one(y, p, config, index)
            if fact is not None:
                out.append(fact)
    return out
