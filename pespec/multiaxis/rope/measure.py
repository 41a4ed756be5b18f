"""Per-axis frequencies, offsets and signs measured from a multi-axis output (issue 39).

When no neighbouring configuration reproduces the output, the diagnosis measures instead
of guessing. Each head slot s is one complex pair: its rotation angle in row n is
φ_s(n) = arg((y_a + i·y_b)/(x_a + i·x_b)). Grouped by the declared axis's position (the
circular mean per position value), unwrapped along consecutive integer positions and fitted
by least squares, φ_s(p) = ω̂_s·p + φ̂_s(0) (rows where |y| departs from |x| by 10% or more
are no rotation and are left out). Per section (one axis, one 1-D rotary) the
measured rates are compared with the declared ω_s = θ^(−2·pair/d_r): one ratio for every
slot (a power law over another width, or θ), the sign (the rotation the other way), and
the offset φ̂_s(0) = ω̂_s·o (that axis's positions shifted by o). Facts are stated only
beyond the fit's precision (four standard errors of the slope, from its own residual).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.rope.config import MultiAxisRopeConfig

__all__ = ["axis_facts", "phase_line"]

F64 = NDArray[np.float64]
AXIS_NAMES = "thw"


def _columns(config: MultiAxisRopeConfig) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    half = config.head_dim // 2
    if config.pairing == "halves":
        return np.arange(half), np.arange(half) + half
    return np.arange(0, config.head_dim, 2), np.arange(1, config.head_dim, 2)


LINE_RMS = 0.05
"""A slot whose phase departs from its fitted line by more than this (rms, rad) is not a
rotation by that axis's position: no rate is read from it."""


def phase_line(phase: F64, where: F64) -> tuple[float, float, float] | str:
    """(slope, intercept, slope precision) of the circular-mean phase per position value,
    along equally spaced values from the smallest; 'few' when fewer than 4 values,
    'bent' when the phase is no line in the position (rms residual over :data:`LINE_RMS`,
    or the rows at one position disagree)."""
    values = np.unique(where[np.isfinite(where)])
    if values.size < 4:
        return "few"
    step = values[1] - values[0]  # equally spaced values from the smallest (a grid's)
    run = values[np.abs(values - values[0] - step * np.arange(values.size)) <= 1e-9 * step]
    if run.size < 4:
        return "few"
    resultants = [np.mean(np.exp(1j * phase[where == v])) for v in run]
    if min(abs(r) for r in resultants) < 0.999:  # rows at one position rotated differently
        return "bent"
    means = np.angle(np.array(resultants))
    unwrapped = np.unwrap(means)
    x = run.astype(np.float64)
    spread = float((x - x.mean()) @ (x - x.mean()))
    slope = float((x - x.mean()) @ (unwrapped - unwrapped.mean()) / spread)
    intercept = float(unwrapped.mean() - slope * x.mean())
    rms = float(np.sqrt(np.mean((unwrapped - intercept - slope * x) ** 2)))
    if rms > LINE_RMS:
        return "bent"
    return slope, intercept, 4 * rms / math.sqrt(spread) + 1e-7 * abs(slope) + 1e-12


def _other_axis(phase: F64, positions: F64, declared_axis: int, omega: float) -> int | None:
    """The other axis whose positions rotate this slot at its declared rate, if one does."""
    for axis in range(positions.shape[1]):
        if axis == declared_axis:
            continue
        fit = phase_line(phase, positions[:, axis])
        if not isinstance(fit, str) and abs(fit[0] - omega) <= fit[2] + 1e-3 * omega:
            return axis
    return None


def _measure(
    y: F64, x: F64, positions: F64, config: MultiAxisRopeConfig
) -> tuple[
    dict[int, list[tuple[int, float, float, float, float]]],
    dict[int, int],
    dict[int, list[tuple[int, int]]],
]:
    """Per section index: (pair, declared ω, ω̂, φ̂(0), precision) of each slot measured,
    the number of its slots whose phase is no line in the axis's position, and the slots
    (slot, axis) that are the declared rotation of another axis's position."""
    a_cols, b_cols = _columns(config)
    z_in = x[:, a_cols] + 1j * x[:, b_cols]
    z_out = y[:, a_cols] + 1j * y[:, b_cols]
    ok = np.abs(z_in) > 1e-6
    ok &= np.abs(np.abs(z_out) / np.where(ok, np.abs(z_in), 1.0) - 1) < 0.1  # a rotation
    out: dict[int, list[tuple[int, float, float, float, float]]] = {}
    bent: dict[int, int] = {}
    moved: dict[int, list[tuple[int, int]]] = {}
    for index, section in enumerate(config.sections):
        rows: list[tuple[int, float, float, float, float]] = []
        bent[index] = 0
        d_r = section.rope.d_r
        for pair, slot in zip(section.pairs, section.slots, strict=True):
            use = ok[:, slot] & np.isfinite(z_out[:, slot])
            if use.sum() < 4:
                continue
            phase = np.angle(z_out[use, slot] / z_in[use, slot])
            fit = phase_line(phase, positions[use, section.axis])
            declared = section.rope.theta ** (-2.0 * pair / d_r)
            if fit == "bent":
                other = _other_axis(phase, positions[use], section.axis, declared)
                if other is not None:
                    moved.setdefault(index, []).append((slot, other))
                    continue
            if isinstance(fit, str):
                bent[index] += fit == "bent"
                continue
            rows.append((pair, declared, fit[0], fit[1], fit[2]))
        out[index] = rows
    return out, bent, moved


def _section_fact(config: MultiAxisRopeConfig, index: int, rows: list[Any]) -> str | None:
    """The measured fact of one section, or None when it matches its declaration."""
    section = config.sections[index]
    axis = AXIS_NAMES[section.axis] if config.axes == 3 else str(section.axis)
    pairs = np.array([r[0] for r in rows], dtype=np.float64)
    declared = np.array([r[1] for r in rows])
    omega = np.array([r[2] for r in rows])
    offset0 = np.array([r[3] for r in rows])
    sigma = np.array([r[4] for r in rows])
    facts = []
    if np.all(omega < -sigma):
        facts.append("rotates the other way (sin with the wrong sign)")
        omega, offset0 = -omega, -offset0
    usable = (omega > 1e-3) & (omega < 0.5)
    if usable.sum() >= 2:
        shifts = offset0[usable] / omega[usable]
        shift = float(np.median(shifts))
        one = float(np.max(np.abs(shifts - shift))) < 0.05  # one shift explains every slot
        if one and abs(shift) > 0.05:
            facts.append(f"its positions shifted by {shift:+.3g}")
    bad = np.abs(omega - declared) > sigma + 1e-3 * declared  # read over a few dozen ids
    if bad.any() and np.all(omega > 0) and pairs.size >= 3:
        slope, start = np.polyfit(pairs, np.log(omega), 1)
        fitted = np.exp(start + slope * pairs)
        d_r, theta = section.rope.d_r, section.rope.theta
        if np.all(np.abs(omega - fitted) <= sigma + 1e-6 * omega) and slope < 0:
            theta_hat = math.exp(-slope * d_r / 2)
            width = 2 * math.log(theta) / -slope if theta > 1 else float("nan")
            text = f"θ measured {theta_hat:.6g} where the config says {theta:.6g}"
            if math.isfinite(width) and abs(width - round(width)) < 1e-2 * width:
                text += f" (equally, ω over width {round(width)} instead of d_r = {d_r})"
            facts.append(text)
        else:
            worst = int(np.argmax(np.abs(omega / declared - 1)))
            facts.append(
                f"per-pair rates off the declared law (pair {int(pairs[worst])}: ω̂/ω = "
                f"{omega[worst] / declared[worst]:.6g}); no power law fits"
            )
    if not facts:
        return None
    return f"axis {axis} (section {index}): " + "; ".join(facts)


def _axis_name(config: MultiAxisRopeConfig, axis: int) -> str:
    return AXIS_NAMES[axis] if config.axes == 3 else str(axis)


def _moved_fact(config: MultiAxisRopeConfig, index: int, slots: list[tuple[int, int]]) -> str:
    """'slots … of section k (axis a) are rotated by axis b's positions …'."""
    section = config.sections[index]
    by_axis: dict[int, list[int]] = {}
    for slot, axis in slots:
        by_axis.setdefault(axis, []).append(slot)
    parts = [
        f"slots {_span(found)} are rotated by axis {_axis_name(config, axis)}'s positions"
        for axis, found in sorted(by_axis.items())
    ]
    return (
        f"axis {_axis_name(config, section.axis)} (section {index}): "
        + ", ".join(parts)
        + " at the declared rates (the section split read differently)"
    )


def _span(slots: list[int]) -> str:
    slots = sorted(slots)
    if slots == list(range(slots[0], slots[-1] + 1)):
        return f"{slots[0]}–{slots[-1]}" if len(slots) > 1 else f"{slots[0]}"
    return ", ".join(str(s) for s in slots[:6]) + (", …" if len(slots) > 6 else "")


def axis_facts(y: F64, x: F64, positions: F64, config: MultiAxisRopeConfig) -> list[str]:
    """The measured facts per section that depart from the declaration (empty: none)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        measured, bent, moved = _measure(y, x, np.asarray(positions, dtype=np.float64), config)
    out = [_moved_fact(config, index, slots) for index, slots in moved.items()]
    for index, rows in measured.items():
        section = config.sections[index]
        if bent[index] > len(section.pairs) // 4:  # many slots are no rotation by the axis
            axis = AXIS_NAMES[section.axis] if config.axes == 3 else str(section.axis)
            return [
                f"the slots of axis {axis} (section {index}) are no rotation by its position "
                f"({bent[index]} of {len(section.pairs)} slots fit no line): not explained"
            ]
        if rows:
            fact = _section_fact(config, index, rows)
            if fact is not None:
                out.append(fact)
    return out
