"""How much of the SPEC §4 bound typical float32 formulas use, per column (SPEC Annex A.3).

The formulas are the two a user writes: the log-space form of the tutorials
(ω = exp(−k·(ln base/(d/2))), all float32) and the paper's p/base^(2i/d) (one pow, one
division, float32). Their error in a column is a fixed rounding of that column's frequency
times the position, which can be near zero for one column and near the bound for another,
while a sound bound must cover libraries four ulps off: so tightness is claimed overall
(≥ 0.1 at large positions), never per column, and the per-column figures are published.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.properties.base import LEVELS, EncodingConfig
from pespec.sinusoidal.properties.errormodel import element_bound_parts

__all__ = [
    "column_ratios",
    "naive_float32",
    "pow_float32",
]


def _interleave(theta: NDArray[np.float32]) -> NDArray[np.float32]:
    out = np.empty((theta.shape[0], 2 * theta.shape[1]), dtype=np.float32)
    out[:, 0::2] = np.sin(theta)
    out[:, 1::2] = np.cos(theta)
    return out


def naive_float32(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """The tutorials' log-space formula in float32: ω = exp(−k·fl32(ln base/(d/2))), (n, d)."""
    k = np.arange(d_model // 2, dtype=np.float32)
    omega = np.exp(-(k * np.float32(np.log(base) / (d_model // 2))))
    return _interleave(positions.astype(np.float32)[:, None] * omega)


def pow_float32(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """The paper's p/base^(2i/d) in float32 (exponent rounded, pow, division), (n, d)."""
    exponent = np.arange(0, d_model, 2, dtype=np.float32) / np.float32(d_model)
    theta = positions.astype(np.float32)[:, None] / np.power(np.float32(base), exponent)
    return _interleave(theta)


def column_ratios(
    encoder: Any, positions: NDArray[Any], d_model: int, base: float = 10000.0
) -> NDArray[np.float64]:
    """max over positions of |y − x|/b per pair (both columns), float32 level; shape (d/2,)."""
    from pespec.sinusoidal.properties.rows import ORACLE_ERROR
    from pespec.sinusoidal.reference import oracle

    config = EncodingConfig(positions, d_model, base)
    x = oracle.encode(positions, d_model, base=base)
    y = np.asarray(encoder(positions, d_model, base), dtype=np.float64)
    bound = element_bound_parts(config, LEVELS["float32"], np.abs(x) + ORACLE_ERROR).total
    ratio = np.max(np.abs(y - x) / (bound + ORACLE_ERROR), axis=0)
    pairs: NDArray[np.float64] = np.maximum(ratio[0::2], ratio[1::2])
    return pairs
