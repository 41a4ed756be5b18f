"""Analysis of an encoding matrix: relative-position rotation, dot products, statistics.

All functions take a canonical (interleaved) encoding matrix ``pe`` of shape (L, d):
column 2i holds sin(p·ω_i) and column 2i + 1 holds cos(p·ω_i) for row p. They read the
structure from the values themselves, so they can check any backend's output, not only
the reference's (the rotation M_k of Vaswani et al. 2017, §3.5: "PE_pos+k can be
represented as a linear function of PE_pos").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.validation import check_finite_array, check_non_negative_int
from pespec.sinusoidal.reference.encoding import frequencies

__all__ = [
    "EncodingStatistics",
    "check_encoding_matrix",
    "dot_product_distance",
    "encoding_statistics",
    "relative_position_matrix",
    "wavelengths",
]


def check_encoding_matrix(pe: Any, name: str = "pe") -> NDArray[np.float64]:
    """Validate an encoding matrix: finite, real, 2-D (L, d) with d even; returns float64."""
    array = np.asarray(pe)
    if array.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be a real array of shape (L, d); got dtype {array.dtype}")
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D of shape (L, d); got shape {array.shape}")
    if array.shape[1] == 0 or array.shape[1] % 2:
        raise ValueError(
            f"{name} must have a positive even number of columns (sin/cos pairs); "
            f"got shape {array.shape}"
        )
    result = array.astype(np.float64, copy=False)
    check_finite_array(result, name)
    return result


def relative_position_matrix(
    pe: Any, offset: int, *, reference_position: int = 0
) -> tuple[NDArray[np.float64], float]:
    """The block-diagonal rotation M_k with PE[p + k] = M_k·PE[p], and how well it holds.

    For each pair i the 2×2 block R_i(k) = [[cos φ, sin φ], [−sin φ, cos φ]] (φ = ω_i·k) is
    read from rows r = ``reference_position`` and r + k of ``pe`` by the angle-addition
    identities: cos φ = s'·s + c'·c, sin φ = s'·c − c'·s with (s, c) = PE[r, 2i:2i+2],
    (s', c') = PE[r + k, 2i:2i+2] (using s² + c² = 1). With r = 0, (s, c) = (0, 1) and the
    block is read off PE[k] directly.

    Returns ``(M_k, error)``: M_k has shape (d, d); ``error`` is the largest Euclidean
    norm ‖M_k·PE[p] − PE[p + k]‖₂ over all p = 0 .. L − 1 − k.
    """
    matrix = check_encoding_matrix(pe)
    k = check_non_negative_int(offset, "offset")
    r = check_non_negative_int(reference_position, "reference_position")
    length, d = matrix.shape
    if r + k >= length:
        raise ValueError(
            f"reference_position + offset must be < L={length} (the rows used to read M_k); "
            f"got reference_position={r}, offset={k}"
        )
    s, c = matrix[r, 0::2], matrix[r, 1::2]
    s_k, c_k = matrix[r + k, 0::2], matrix[r + k, 1::2]
    cos_phi = s_k * s + c_k * c
    sin_phi = s_k * c - c_k * s
    rotation = np.zeros((d, d), dtype=np.float64)
    even = np.arange(0, d, 2)
    rotation[even, even] = cos_phi
    rotation[even, even + 1] = sin_phi
    rotation[even + 1, even] = -sin_phi
    rotation[even + 1, even + 1] = cos_phi
    residual = matrix[: length - k] @ rotation.T - matrix[k:]
    error = float(np.max(np.linalg.norm(residual, axis=1)))
    return rotation, error


def dot_product_distance(pe: Any) -> NDArray[np.float64]:
    """D with D[i, j] = PE[i]·PE[j]; shape (L, L), float64.

    For the canonical encoding D[i, j] = Σ_k cos(ω_k·(i − j)), a function of i − j only
    (a symmetric Toeplitz matrix with d/2 on the diagonal). Exactly symmetric.
    """
    matrix = check_encoding_matrix(pe)
    gram = matrix @ matrix.T
    # BLAS may round D[i, j] and D[j, i] differently; the average is exactly symmetric
    # (floating-point addition commutes) and moves each entry by at most one rounding.
    result: NDArray[np.float64] = 0.5 * (gram + gram.T)
    return result


@dataclass(frozen=True)
class EncodingStatistics:
    """Summary statistics of an (L, d) encoding matrix; see :func:`encoding_statistics`."""

    norms: NDArray[np.float64]
    """Per-row Euclidean norms ‖PE[p]‖₂, shape (L,); √(d/2) for an exact encoding."""
    mean: float
    """Mean over all L·d elements."""
    variance: float
    """Population variance over all L·d elements."""
    minimum: float
    maximum: float
    bounded: bool
    """True when every element lies in [−1, 1]."""


def encoding_statistics(pe: Any) -> EncodingStatistics:
    """Per-position norms, mean, variance, range and whether all values lie in [−1, 1]."""
    matrix = check_encoding_matrix(pe)
    if matrix.size == 0:
        raise ValueError(f"pe must have at least one row; got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1)
    norms.flags.writeable = False
    minimum, maximum = float(matrix.min()), float(matrix.max())
    return EncodingStatistics(
        norms=norms,
        mean=float(matrix.mean()),
        variance=float(matrix.var()),
        minimum=minimum,
        maximum=maximum,
        bounded=bool(-1.0 <= minimum and maximum <= 1.0),
    )


def wavelengths(d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """λ_i = 2π/ω_i = 2π·base^(2i/d) in positions; shape (d_model/2,), float64.

    The longest is 2π·base^((d−2)/d), not 2π·base: ω_i only reaches 1/base in the limit
    d → ∞ (for d = 512, base = 10⁴ it is about 60 611, not 62 832).
    """
    result: NDArray[np.float64] = (2.0 * math.pi) / frequencies(d_model, base)
    return result
