"""Backends that break SPEC §4.1 A5 in ways only the refined error model sees (issue 14).

Each is float32 throughout, like the naive formula of the meta-tests, and differs from it in
one step. Plain ``(positions, d_model, base) -> array`` functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

TWO_PI_FLOAT32 = np.float32(2 * np.pi)
"""fl32(2π) = 6.2831854820251465, above 2π by 1.75·10^-7."""

HALF_PI_FLOAT32 = np.float32(np.pi / 2)


def _angles(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """θ̂ = fl32(p)·ω̂ with ω̂ = exp(−k·fl32(ln base/(d/2))) in float32, shape (n, d/2)."""
    k = np.arange(d_model // 2, dtype=np.float32)
    omega = np.exp(-(k * np.float32(np.log(base) / (d_model // 2))))
    angles: NDArray[np.float32] = positions.astype(np.float32)[:, None] * omega
    return angles


def _interleave(sin: NDArray[np.float32], cos: NDArray[np.float32]) -> NDArray[np.float32]:
    out = np.empty((sin.shape[0], 2 * sin.shape[1]), dtype=np.float32)
    out[:, 0::2], out[:, 1::2] = sin, cos
    return out


def reduced_by_float32_two_pi(
    positions: NDArray[Any], d_model: int, base: float
) -> NDArray[np.float32]:
    """The angle reduced modulo fl32(2π) before sin/cos (fmod is exact): θ̂ − n·fl32(2π) is
    off by n·1.75·10^-7, about 0.028 at p = 10^6 in pair 0."""
    reduced = np.fmod(_angles(positions, d_model, base), TWO_PI_FLOAT32)
    return _interleave(np.sin(reduced), np.cos(reduced))


def cos_as_shifted_sine(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """cos θ̂ computed as sin(fl32(θ̂ + π/2)): the sum rounds by up to ½ulp(θ̂) (0.5 at
    θ ≈ 10^7), so sine and cosine are of different angles and sin² + cos² ≠ 1."""
    theta = _angles(positions, d_model, base)
    return _interleave(np.sin(theta), np.sin(theta + HALF_PI_FLOAT32))


NORM_DRIFT_FROM = 2**24


def norm_drift(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """The naive float32 values, with every row of |p| > 2^24 scaled by 1 + 10^-3 (float64
    output, so the scaling is exact up to one rounding): the norm is off by 10^-3·√(d/2)."""
    theta = _angles(positions, d_model, base)
    out = _interleave(np.sin(theta), np.cos(theta)).astype(np.float64)
    far = np.abs(positions.astype(np.float64)) > NORM_DRIFT_FROM
    out[far] *= 1.0 + 1e-3
    return out
