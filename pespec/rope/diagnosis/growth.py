"""Two shapes of a phase error measured per pair (SPEC Annex D.9; issue 39 item 2).

:func:`position_shift`: a backend that rotates at p + s has, at every position, the phase
error ω_j·s in pair j: its phase offset φ̂_j(0) is ω_j·s (mod 2π) in every pair. s is read
from the slowest pair whose offset is above the noise, then refined pair by pair toward
the fastest (each prediction ω_j·s resolves the next pair's 2π ambiguity), and accepted
when every pair's offset is within its noise of ω_j·s.

:func:`growth_law` (from :mod:`pespec.numerics.growth`, shared with the sinusoidal
diagnosis): the phase error e_j(p) = φ̂_j(p) − ω_j·p of a pair, fitted as constant, ∝√p,
∝p, ∝p^1.5, ∝p² or a step, named with its coefficient.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.growth import growth_law

__all__ = ["growth_law", "position_shift"]

F64 = NDArray[np.float64]


def _wrap(value: F64) -> F64:
    out: F64 = np.remainder(value + math.pi, 2 * math.pi) - math.pi
    return out


def position_shift(offsets: F64, omegas: F64, noise: float) -> float | None:
    """The shift s (positions) that makes φ̂_j(0) = ω_j·s mod 2π in every pair, when one
    does and s differs from 0 by more than its precision; else None.
    ``offsets`` and ``omegas`` (d_r/2,); ``noise`` the angle noise (radians)."""
    ok = np.isfinite(offsets) & (omegas > 0)
    if not np.any(ok):
        return None
    off, om = offsets[ok], omegas[ok]
    tol = 8 * noise + 1e-9
    shift: float | None = None
    for j in np.argsort(om):
        if shift is None:
            if abs(off[j]) > tol and om[j] * 1e6 > 1:
                shift = float(off[j] / om[j])
            continue
        turns = round((om[j] * shift - off[j]) / (2 * math.pi))
        shift = float((off[j] + 2 * math.pi * turns) / om[j])
    if shift is None:
        return None
    residual = np.abs(_wrap(om * shift - off))
    if not np.all(residual <= tol + 1e-6 * np.abs(om * shift)):
        return None
    precision = tol / float(np.max(om))
    return shift if abs(shift) > 4 * precision else None


def _shift_text(shift: float) -> str:
    whole = abs(shift - round(shift)) < 1e-3
    value = f"{round(shift):+d}" if whole else f"{shift:+.4g}"
    return value


def shift_cause(shift: float, omegas: F64) -> str:
    """The sentence for a measured position shift, with the phase error it makes."""
    fast = float(np.max(omegas)) * abs(shift)
    return (
        f"positions shifted by {_shift_text(shift)} (rotated at p {_shift_text(shift)[0]} "
        f"{_shift_text(abs(shift))[1:]}: measured from every pair's phase error ω_j·s, "
        f"{fast:.4g} rad in the fastest pair at every position)"
    )
