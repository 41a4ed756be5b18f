"""The growth law of a sinusoidal table's phase error past its departure (issue 39 item 3).

Where a table follows its convention but departs from it beyond rounding (an angle built as
a running sum, a coarse stage), the phase error of each pair, e_k(p) = atan2(sin, cos) −
θ_k(p) wrapped to (−π, π], is measured on the large-position probe and its shape named
with the fit the rotary diagnosis uses (:func:`pespec.numerics.growth.growth_law`: constant,
∝√p, ∝p, ∝p^1.5, ∝p², or a step with its position), so the sentence says what grows.
A table that stops (every row from the departure on equal to the row before it: positions
clamped to a table's last row) has no growth law to fit; :func:`repeated_row` names it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.growth import growth_law

__all__ = ["phase_error_growth", "repeated_row"]

F64 = NDArray[np.float64]


def phase_error_growth(chosen: Any, positions: F64, values: F64, base: float) -> str | None:
    """The growth law of the largest phase error of ``values`` (n, d) at ``positions`` (n,)
    against the candidate ``chosen`` at the requested ``base``; None when not measurable
    (rows whose (sin, cos) pairs are not of the convention's amplitude are left out)."""
    convention = chosen.convention
    d_model = values.shape[1]
    try:
        sin = values[:, convention.sin_columns(d_model)]
        cos = values[:, convention.cos_columns(d_model)]
        k = np.arange(d_model // 2, dtype=np.float64)
        omegas = chosen.base_for(base) ** (-k / convention.denominator(d_model))
    except (ValueError, IndexError, ArithmeticError):
        return None
    arg = (np.asarray(positions, dtype=np.float64) + convention.position_offset) * float(
        convention.argument_scale
    )
    amplitude = chosen.scale_for(d_model)  # the radius verify() measures against
    with np.errstate(invalid="ignore"):
        measured = np.arctan2(sin, cos)
        error = np.remainder(measured - arg[:, None] * omegas[None, :] + np.pi, 2 * np.pi) - np.pi
        # a row that is no rotation (zeros, a wrong norm) has no phase to measure
        rotation = np.abs(np.hypot(sin, cos) - amplitude) <= 0.5 * abs(amplitude)
    error = np.where(rotation, error, np.nan)
    if error.size == 0:
        return None
    return growth_law(np.asarray(error, dtype=np.float64), np.abs(arg), 2.0**-20)


SAME_ROW = 1e-6
"""Two rows closer than this (max abs) are one row repeated."""


def repeated_row(positions: F64, values: F64, departs: float) -> str | None:
    """'every row from position P on repeats the row of position q' when the probed rows at
    positions ≥ ``departs`` (at least two) all equal the row at the last probed q < P."""
    p = np.asarray(positions, dtype=np.float64)
    before = np.flatnonzero(p < departs)
    after = np.flatnonzero(p >= departs)
    if before.size == 0 or after.size < 2:
        return None
    last = values[before[-1]]
    with np.errstate(invalid="ignore"):
        same = np.abs(values[after] - last[None, :]) <= SAME_ROW
    if not bool(np.all(same)):
        return None
    return (
        f"every probed row from position {departs:.0f} on repeats the row of position "
        f"{p[before[-1]]:.0f} (positions clamped to the table's last row)"
    )
