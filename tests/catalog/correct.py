"""Correct backends written differently from the built-ins: each must be found conformant."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.naive import naive_encode


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


def float64_ml_dtypes_bfloat16(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """The naive float64 formula cast by ml_dtypes ``.astype(bfloat16)``, which rounds through
    float32 (SPEC §4.1 A6); claims the strict level bfloat16@float64."""
    return naive_encode(positions, d_model, base=base).astype(ml_dtypes.bfloat16)


def float64_via_float32_float16(
    positions: NDArray[Any], d_model: int, base: float
) -> NDArray[np.float16]:
    """The naive float64 formula cast float64 → float32 → float16, as torch's ``.to`` does;
    claims the strict level float16@float64."""
    return naive_encode(positions, d_model, base=base).astype(np.float32).astype(np.float16)


float64_ml_dtypes_bfloat16.pespec_capabilities = {"level": "bfloat16@float64"}  # type: ignore[attr-defined]
float64_via_float32_float16.pespec_capabilities = {"level": "float16@float64"}  # type: ignore[attr-defined]

CORRECT = {
    "pow_float32": pow_float32,
    "stack_reshape_float32": stack_reshape_float32,
    "float64_ml_dtypes_bfloat16": float64_ml_dtypes_bfloat16,
    "float64_via_float32_float16": float64_via_float32_float16,
}
"""Every correct catalog backend by name (the built-in numpy and torch backends are added by
the tests)."""
