"""The circle table of the exact angle kernel (SPEC Annex C) and the Veltkamp split it uses.

Shared by the NumPy path (:mod:`pespec.numerics.angle`), its compiled kernels
(:mod:`pespec.numerics.kernels`) and the long-context search: it sits below all three so none
of them imports another's private helpers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

import gmpy2
import numpy as np
from numpy.typing import NDArray

__all__ = ["TABLE_SIZE", "circle_table", "veltkamp_split"]

F64 = NDArray[np.float64]

TABLE_SIZE: Final = 256
"""N: the table holds e^{2πi·m/N}, m = 0 .. N−1, so the residual angle is |ρ| ≤ π/N."""

_SPLITTER: Final = 134217729.0  # 2^27 + 1: Veltkamp split into two halves of <= 26 bits


def veltkamp_split(x: F64) -> tuple[F64, F64]:
    """Veltkamp split x = hi + lo with hi, lo of at most 26 significant bits (|x| < 2^995)."""
    gamma = _SPLITTER * x
    hi = gamma - (gamma - x)
    return hi, x - hi


@lru_cache(maxsize=1)
def circle_table() -> F64:
    """e^{2πi·m/N} for m = 0 .. N−1 as double-doubles, with 26-bit splits of the heads.

    Shape (N, 8); columns cos_hi, cos_lo, sin_hi, sin_lo, cos_a, cos_b, sin_a, sin_b (one
    row per m, so one ``np.take`` gathers all eight). hi + lo is the value to about
    2^-106 (MPFR at 160 bits, rounded twice to nearest); a + b = hi exactly.
    """
    table = np.empty((TABLE_SIZE, 8), dtype=np.float64)
    with gmpy2.context(precision=160):
        two_pi = 2 * gmpy2.const_pi()
        for m in range(TABLE_SIZE):
            s, c = gmpy2.sin_cos(two_pi * m / TABLE_SIZE)
            cos_hi, sin_hi = float(c), float(s)
            table[m, :4] = cos_hi, float(c - cos_hi), sin_hi, float(s - sin_hi)
    table[:, 4], table[:, 5] = veltkamp_split(table[:, 0])
    table[:, 6], table[:, 7] = veltkamp_split(table[:, 2])
    table.setflags(write=False)
    return table
