"""Buggy backends: each reproduces one real mistake and must be found non-conformant.

Every backend computes in float64 (unless the bug is about precision) so that the bug, not
rounding, is what the suite sees. ``EXPECTED`` says which check must fail and why.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray


def _omega(d_model: int, base: float) -> NDArray[np.float64]:
    """ω_i = base^(−2i/d), i = 0 .. d/2 − 1, in float64."""
    return np.power(float(base), -np.arange(0, d_model, 2, dtype=np.float64) / d_model)


def _interleave(sin: NDArray[Any], cos: NDArray[Any]) -> NDArray[Any]:
    out = np.empty((sin.shape[0], 2 * sin.shape[1]), dtype=sin.dtype)
    out[:, 0::2] = sin
    out[:, 1::2] = cos
    return out


def _theta(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    return np.outer(positions.astype(np.float64), _omega(d_model, base))


def swapped(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """cos in the even columns and sin in the odd ones."""
    theta = _theta(positions, d_model, base)
    return _interleave(np.cos(theta), np.sin(theta))


def halves(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """All sines then all cosines (the tensor2tensor layout) instead of interleaving."""
    theta = _theta(positions, d_model, base)
    return np.concatenate([np.sin(theta), np.cos(theta)], axis=1)


def exponent_i_over_d(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """ω_i = base^(−i/d) instead of base^(−2i/d)."""
    omega = np.power(float(base), -np.arange(d_model // 2, dtype=np.float64) / d_model)
    theta = np.outer(positions.astype(np.float64), omega)
    return _interleave(np.sin(theta), np.cos(theta))


def denominator_half_minus_one(
    positions: NDArray[Any], d_model: int, base: float
) -> NDArray[np.float64]:
    """ω_i = base^(−i/(d/2 − 1)) (the fairseq exponent) with the canonical interleave."""
    half = d_model // 2
    omega = np.power(float(base), -np.arange(half, dtype=np.float64) / max(half - 1, 1))
    theta = np.outer(positions.astype(np.float64), omega)
    return _interleave(np.sin(theta), np.cos(theta))


def base_1000(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Ignores ``base`` and uses 1000."""
    theta = _theta(positions, d_model, 1000.0)
    return _interleave(np.sin(theta), np.cos(theta))


def positions_from_one(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Numbers positions from 1: row p holds the encoding of p + 1."""
    theta = _theta(positions.astype(np.float64) + 1.0, d_model, base)
    return _interleave(np.sin(theta), np.cos(theta))


def float16_angles(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float16]:
    """float16 output whose angles p·ω are formed in float16 (the model dtype)."""
    with np.errstate(over="ignore", invalid="ignore"):  # positions > 65504 overflow, as in fp16
        p = positions.astype(np.float16)
        omega = _omega(d_model, base).astype(np.float16)
        theta = np.multiply.outer(p, omega)  # float16 × float16 -> float16
        sin = np.sin(theta.astype(np.float32)).astype(np.float16)
        cos = np.cos(theta.astype(np.float32)).astype(np.float16)
    return _interleave(sin, cos)


def bfloat16_frequencies(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """bfloat16 output whose frequencies were rounded to bfloat16 before p·ω (float32)."""
    omega = _omega(d_model, base).astype(ml_dtypes.bfloat16).astype(np.float32)
    theta = np.outer(positions.astype(np.float32), omega)
    sin = np.sin(theta).astype(ml_dtypes.bfloat16)
    cos = np.cos(theta).astype(ml_dtypes.bfloat16)
    return _interleave(sin, cos)


def sqrt_cos(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """cos θ computed as sqrt(1 − sin²θ), which loses its sign."""
    sin = np.sin(_theta(positions, d_model, base))
    return _interleave(sin, np.sqrt(1.0 - sin * sin))


def transposed(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Returns the (d_model, n) transpose."""
    theta = _theta(positions, d_model, base)
    return _interleave(np.sin(theta), np.cos(theta)).T


def last_column_dropped(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Off by one in the column range: d_model − 1 columns."""
    theta = _theta(positions, d_model, base)
    return _interleave(np.sin(theta), np.cos(theta))[:, :-1]


def negative_sine(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """sin(−p·ω) in the sine columns."""
    theta = _theta(positions, d_model, base)
    return _interleave(np.sin(-theta), np.cos(theta))


def nan_at_zero(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """NaN in the row of position 0 (as from a p/p normalisation)."""
    theta = _theta(positions, d_model, base)
    out = _interleave(np.sin(theta), np.cos(theta))
    out[positions == 0] = np.nan
    return out


TABLE_ROWS = 4096


def stops_at_4096(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """A table of 4096 rows that repeats its last row for every later position."""
    clipped = np.minimum(positions.astype(np.float64), TABLE_ROWS - 1)
    theta = _theta(clipped, d_model, base)
    return _interleave(np.sin(theta), np.cos(theta))


BUGGY = {
    "swapped": swapped,
    "halves": halves,
    "exponent_i_over_d": exponent_i_over_d,
    "denominator_half_minus_one": denominator_half_minus_one,
    "base_1000": base_1000,
    "positions_from_one": positions_from_one,
    "float16_angles": float16_angles,
    "bfloat16_frequencies": bfloat16_frequencies,
    "sqrt_cos": sqrt_cos,
    "transposed": transposed,
    "last_column_dropped": last_column_dropped,
    "negative_sine": negative_sine,
    "nan_at_zero": nan_at_zero,
    "stops_at_4096": stops_at_4096,
}
"""Every buggy backend by name."""
