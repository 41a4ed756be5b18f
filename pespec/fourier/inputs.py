"""The inputs x the Fourier suite sends (SPEC §10.7): deterministic, over the claimed domain.

Row 0 is every coordinate at the domain's low end, row 1 at its high end, row 2 at 0 when the
domain holds it (else its midpoint); the other rows follow an additive recurrence with the
golden ratio's fraction (coordinate i shifted by i/k), scaled to [low, high] and rounded to
float64 (to integers with ``integer_inputs``). The same on every platform: only float64
additions, products and rounding.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from pespec.fourier.convention import FourierConvention

__all__ = ["ROWS", "suite_inputs"]

ROWS = {"ci": 64, "dev": 64, "thorough": 512}
"""How many rows each profile sends."""

_PHI = (math.sqrt(5.0) - 1.0) / 2.0


def suite_inputs(conv: FourierConvention, rows: int = 64) -> NDArray[np.float64]:
    """``rows`` inputs (rows, k) in the convention's domain."""
    if rows < 3:
        raise ValueError(f"rows must be at least 3; got {rows}")
    low, high = conv.domain
    k = conv.in_dims
    t = (np.arange(rows, dtype=np.float64)[:, None] * _PHI + np.arange(k)[None, :] / k) % 1.0
    x = low + t * (high - low)
    x[0, :] = low
    x[1, :] = high
    x[2, :] = 0.0 if low <= 0.0 <= high else (low + high) / 2
    if conv.integer_inputs:
        x = np.clip(np.round(x), math.ceil(low), math.floor(high))
    return np.ascontiguousarray(x, dtype=np.float64)
