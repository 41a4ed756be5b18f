"""A small single-head NumPy self-attention layer, for the integration tests.

Attention(Q, K, V) = softmax(Q·Kᵀ/√d_k)·V with Q = X·W_Q, K = X·W_K, V = X·W_V
(Vaswani et al. 2017, eq. 1). Without a mask it is permutation-equivariant: permuting the
rows of X permutes the rows of the output the same way, which is why a positional
encoding is needed at all.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.validation import check_positive_int, check_rng
from pespec.sinusoidal.reference.validation import check_d_model, check_embeddings

__all__ = ["SelfAttention", "softmax"]


def softmax(scores: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """Numerically stable softmax along ``axis`` (the row maximum is subtracted first)."""
    shifted = scores - np.max(scores, axis=axis, keepdims=True)
    weights = np.exp(shifted)
    result: NDArray[np.float64] = weights / np.sum(weights, axis=axis, keepdims=True)
    return result


class SelfAttention:
    """Single-head scaled dot-product self-attention with fixed random projections.

    ``w_q``, ``w_k``, ``w_v`` have shape (d_model, d_k) with entries N(0, 1/d_model)
    (so projections of unit-variance inputs have unit variance), drawn from ``rng``
    (None means ``default_rng(0)``). ``d_k`` defaults to ``d_model``.
    """

    def __init__(
        self, d_model: int, *, d_k: int | None = None, rng: np.random.Generator | None = None
    ) -> None:
        self.d_model = check_d_model(d_model)
        self.d_k = self.d_model if d_k is None else check_positive_int(d_k, "d_k")
        generator = check_rng(rng)
        scale = 1.0 / math.sqrt(self.d_model)
        shape = (self.d_model, self.d_k)
        self.w_q: NDArray[np.float64] = generator.normal(0.0, scale, size=shape)
        self.w_k: NDArray[np.float64] = generator.normal(0.0, scale, size=shape)
        self.w_v: NDArray[np.float64] = generator.normal(0.0, scale, size=shape)

    def attention_weights(self, x: Any) -> NDArray[np.float64]:
        """softmax(Q·Kᵀ/√d_k); shape (B, L, L) or (L, L), rows sum to 1."""
        array = np.asarray(check_embeddings(x, self.d_model), dtype=np.float64)
        q = array @ self.w_q
        k = array @ self.w_k
        scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(self.d_k)
        return softmax(scores, axis=-1)

    def forward(self, x: Any) -> NDArray[np.float64]:
        """Attention output for X of shape (B, L, d_model) or (L, d_model); (…, L, d_k)."""
        array = np.asarray(check_embeddings(x, self.d_model), dtype=np.float64)
        result: NDArray[np.float64] = self.attention_weights(array) @ (array @ self.w_v)
        return result

    __call__ = forward
