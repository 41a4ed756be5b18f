"""What the backend computes, per pair, measured from the probes (SPEC Annex D.9).

From the angle φ̂_j(p) = atan2(A·sin, A·cos) of each pair at the probe positions (0, 1, then
odd integers near 2^(k/2), up to the largest probed), the measured frequency ω̂_j is the
slope of the unwrapped phase: position 1 gives a first estimate (|ω̂| < π), each larger
position p resolves its 2π ambiguity by the previous estimate (its error times p is far
below π: the positions grow by √2) and refines it to (φ̂(p) − φ̂(0) + 2πk)/p. A position
whose unwrapped phase departs from the line by more than its own precision ends the
refinement for that pair (a phase error that is not linear: stepwise or growing): that
position is the pair's ``break``. The precision of ω̂_j is (noise + 2u·|ω̂_j|·p)/p at the
last position p used (u: the level's phase format; the angle noise of the output format).
Â_j is the median of √(cos² + sin²) over the positions; φ̂_j(0) the constant phase offset.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["Measurement", "measure_pairs", "phase_errors"]

F64 = NDArray[np.float64]
DEPARTURE: float = 8.0
"""A phase further than this many precisions from the line ends the refinement."""


@dataclass(frozen=True)
class Measurement:
    """Per pair j (d_r/2 each): ω̂_j, its precision σ_j (absolute), Â_j, the constant phase
    offset φ̂_j(0), the last position used and the first position whose phase departs
    from the line (0: none)."""

    omega: F64
    precision: F64
    attention: F64
    offset: F64
    reach: NDArray[np.int64]
    breaks: NDArray[np.int64]

    def to_dict(self) -> dict[str, list[float] | list[int]]:
        """JSON-ready lists, one entry per pair."""
        return {
            "omega": [float(v) for v in self.omega],
            "precision": [float(v) for v in self.precision],
            "attention": [float(v) for v in self.attention],
            "offset": [float(v) for v in self.offset],
            "reach": [int(v) for v in self.reach],
            "break": [int(v) for v in self.breaks],
        }


def _wrap(values: F64) -> F64:
    out: F64 = np.remainder(values + math.pi, 2 * math.pi) - math.pi
    return out


def _pair(
    angles: F64, positions: F64, noise: float, u: float
) -> tuple[float, float, float, int, int]:
    """(ω̂, σ, offset, last position used, break) of one pair from its angles (m,)."""
    ok = np.isfinite(angles)
    at = {float(p): float(a) for p, a in zip(positions[ok], angles[ok], strict=True)}
    offset = at.get(0.0, 0.0)
    if 1.0 not in at:
        return math.nan, math.inf, offset, 0, 0
    omega = float(_wrap(np.array([at[1.0] - offset]))[0])
    sigma = 2 * noise + 2 * u * abs(omega)
    last, brk = 1, 0
    for p in sorted(q for q in at if q > 1):
        predicted = omega * p
        turns = round((predicted - (at[p] - offset)) / (2 * math.pi))
        unwrapped = at[p] - offset + 2 * math.pi * turns
        allowed = sigma * p + 2 * noise + 2 * u * abs(predicted)
        if allowed >= math.pi / 2:
            break  # the next turn count would be a guess
        if abs(unwrapped - predicted) > DEPARTURE * allowed:
            brk = int(p)
            break
        omega = unwrapped / p
        sigma = (2 * noise + 2 * u * abs(unwrapped)) / p
        last = int(p)
    return omega, sigma, offset, last, brk


def measure_pairs(cos: F64, sin: F64, positions: F64, noise: float, u: float) -> Measurement:
    """The measurement of every pair from ``cos``, ``sin`` (m, d_r/2) at ``positions`` (m,)
    (what :func:`~pespec.rope.diagnosis.layout.pair_values` reads); ``noise`` the angle
    noise of the output in radians, ``u`` the unit roundoff of the phase's format."""
    with np.errstate(invalid="ignore"):
        amplitude = np.hypot(cos, sin)
        angles = np.where(np.isfinite(amplitude), np.arctan2(sin, cos), np.nan)
    rows = [_pair(angles[:, j], positions, noise, u) for j in range(angles.shape[1])]
    omega, sigma, offset, reach, brk = (np.array(c) for c in zip(*rows, strict=True))
    finite = np.where(np.isfinite(amplitude), amplitude, np.nan)
    with warnings.catch_warnings():  # a pair never finite: NaN, said so by the table
        warnings.simplefilter("ignore", RuntimeWarning)
        attention = np.nanmedian(finite, axis=0)
    return Measurement(
        omega.astype(np.float64),
        sigma.astype(np.float64),
        np.asarray(attention, dtype=np.float64),
        offset.astype(np.float64),
        reach.astype(np.int64),
        brk.astype(np.int64),
    )


def phase_errors(cos: F64, sin: F64, exact_cos: F64, exact_sin: F64) -> F64:
    """φ̂_j(p) − φ_j(p) in (−π, π], shape (m, d_r/2): the angle from the exact pair
    (``exact_cos``, ``exact_sin``) to the measured one (``cos``, ``sin``), each (m, d_r/2)
    and of any amplitude, as atan2(cross, dot) (no wrap needed); NaN where non-finite."""
    with np.errstate(invalid="ignore", over="ignore"):
        cross = sin * exact_cos - cos * exact_sin
        dot = cos * exact_cos + sin * exact_sin
        out: F64 = np.where(np.isfinite(cross) & np.isfinite(dot), np.arctan2(cross, dot), np.nan)
    return out
