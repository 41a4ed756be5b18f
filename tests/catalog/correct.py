"""Correct backends written differently from the built-ins: each must be found conformant."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def pow_float32(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """float32 throughout, frequencies by pow: ω_i = base^(−2i/d) with np.power in float32."""
    exponent = -np.arange(0, d_model, 2, dtype=np.float32) / np.float32(d_model)
    omega = np.power(np.float32(base), exponent)
    theta = np.outer(positions.astype(np.float32), omega)
    out = np.empty((positions.shape[0], d_model), dtype=np.float32)
    out[:, 0::2] = np.sin(theta)
    out[:, 1::2] = np.cos(theta)
    return out


def stack_reshape_float32(
    positions: NDArray[Any], d_model: int, base: float
) -> NDArray[np.float32]:
    """float32, interleave built as stack([sin, cos], axis=-1).reshape(n, d)."""
    omega = np.exp(
        np.arange(0, d_model, 2, dtype=np.float64) * (-np.log(float(base)) / d_model)
    ).astype(np.float32)
    theta = positions.astype(np.float32)[:, None] * omega[None, :]
    return np.stack([np.sin(theta), np.cos(theta)], axis=-1).reshape(positions.shape[0], d_model)


CORRECT = {"pow_float32": pow_float32, "stack_reshape_float32": stack_reshape_float32}
"""Every correct catalog backend by name (the built-in numpy and torch backends are added by
the tests)."""
