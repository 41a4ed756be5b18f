"""Layer-style wrappers around the reference encoding: fixed sinusoidal and learned tables.

* :class:`SinusoidalPositionalEncoding`: a read-only precomputed float64 table of
  ``max_seq_len`` rows; ``forward`` adds it to embeddings, computing rows past the table
  on the fly with the reference function, so a long input is never silently wrong.
* :class:`LearnedPositionalEncoding`: a trainable table initialised N(0, 0.02²) (BERT,
  GPT-2) with an explicit ``backward`` (learned absolute positions as in BERT, Devlin et al.
  2019, and GPT-2, Radford et al. 2019).

Embeddings ``X`` have shape (B, L, d) or (L, d); position ``offset + j`` is added to row
``j`` of every batch element. Both classes are plain NumPy (float64), no autograd.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.validation import (
    check_non_negative_int,
    check_positive_int,
    check_probability,
    check_rng,
)
from pespec.sinusoidal.reference.encoding import sinusoidal_positional_encoding
from pespec.sinusoidal.reference.validation import check_base, check_d_model, check_embeddings

__all__ = [
    "LearnedPositionalEncoding",
    "SinusoidalPositionalEncoding",
    "add_encoding",
]


def add_encoding(x: NDArray[Any], encoding: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x + encoding`` in float64, broadcasting the (L, d) encoding over a batch axis."""
    result: NDArray[np.float64] = np.add(x, encoding, dtype=np.float64)
    return result


class SinusoidalPositionalEncoding:
    """Fixed sinusoidal encoding with a precomputed read-only table (Vaswani et al. 2017, §3.5).

    ``pe`` is the (max_seq_len, d_model) float64 table for positions 0 .. max_seq_len − 1,
    ``sinusoidal_positional_encoding(max_seq_len, d_model, base=base)``. Positions at or
    past ``max_seq_len`` are computed on the fly by that same function (see
    :meth:`get_encoding`); both are within the reference's error bound of the exact
    values (SPEC Annex C), though not necessarily bit-identical to a longer table's rows.
    ``dropout`` is the inverted-dropout probability applied to ``X + PE`` when
    ``training=True`` (zeroed elements, survivors scaled by 1/(1 − dropout)), drawn from
    ``rng`` (a ``numpy.random.Generator``; None means ``default_rng(0)``).
    """

    def __init__(
        self,
        max_seq_len: int,
        d_model: int,
        *,
        base: float = 10000.0,
        dropout: float = 0.0,
        rng: np.random.Generator | None = None,
    ) -> None:
        self.max_seq_len = check_non_negative_int(max_seq_len, "max_seq_len")
        self.d_model = check_d_model(d_model)
        self.base = check_base(base)
        self.dropout = check_probability(dropout, "dropout")
        self.rng = check_rng(rng)
        table = sinusoidal_positional_encoding(self.max_seq_len, self.d_model, base=self.base)
        table.flags.writeable = False
        self._pe = table

    @property
    def pe(self) -> NDArray[np.float64]:
        """The read-only (max_seq_len, d_model) float64 table."""
        return self._pe

    def get_encoding(self, seq_len: int, offset: int = 0) -> NDArray[np.float64]:
        """Rows for positions offset .. offset + seq_len − 1; shape (seq_len, d_model).

        Positions below ``max_seq_len`` always come from the table (a read-only view when
        all do), so a position gets the same vector whether or not the request extends
        past the table. Positions m .. offset + seq_len − 1 past it (m = max(offset,
        max_seq_len)) are ``sinusoidal_positional_encoding(offset + seq_len − m, d_model,
        base=base, offset=m)``: never wrapped, clipped or reused rows, only correct ones.
        """
        n = check_non_negative_int(seq_len, "seq_len")
        start = check_non_negative_int(offset, "offset")
        end = start + n
        if end <= self.max_seq_len:
            return self._pe[start:end]
        first_past = max(start, self.max_seq_len)
        past = sinusoidal_positional_encoding(
            end - first_past, self.d_model, base=self.base, offset=first_past
        )
        if start >= self.max_seq_len:
            return past
        return np.concatenate([self._pe[start:], past], axis=0)

    def forward(self, x: Any, offset: int = 0, *, training: bool = False) -> NDArray[np.float64]:
        """``X + PE[offset : offset + L]`` (then dropout if training); float64, X's shape."""
        array = check_embeddings(x, self.d_model)
        if not isinstance(training, (bool, np.bool_)):
            raise TypeError(f"training must be a bool; got {training!r}")
        output = add_encoding(array, self.get_encoding(array.shape[-2], offset))
        if training and self.dropout > 0.0:
            keep = self.rng.random(output.shape) >= self.dropout
            output = np.where(keep, output / (1.0 - self.dropout), 0.0)
        return output

    __call__ = forward


class LearnedPositionalEncoding:
    """Trainable absolute position table, initialised N(0, 0.02²) (BERT, GPT-2).

    ``embedding`` has shape (max_seq_len, d_model). ``forward(X)`` adds its first L rows
    to X of shape (B, L, d) or (L, d) and caches X; ``backward(dY)`` returns dX = dY and
    stores ``grad_embedding`` (max_seq_len, d_model): the sum of dY over the batch in rows
    0 .. L − 1 and zeros after. Unlike the sinusoidal table, any positive ``d_model``
    (odd included) is allowed: nothing pairs columns here.
    """

    init_std = 0.02
    """Standard deviation of the initial table (BERT/GPT-2 initializer range)."""

    def __init__(
        self, max_seq_len: int, d_model: int, *, rng: np.random.Generator | None = None
    ) -> None:
        self.max_seq_len = check_positive_int(max_seq_len, "max_seq_len")
        self.d_model = check_positive_int(d_model, "d_model")
        generator = check_rng(rng)
        self.embedding: NDArray[np.float64] = generator.normal(
            0.0, self.init_std, size=(self.max_seq_len, self.d_model)
        )
        self.grad_embedding: NDArray[np.float64] = np.zeros_like(self.embedding)
        self._cache: NDArray[np.floating[Any]] | None = None

    def forward(self, x: Any) -> NDArray[np.float64]:
        """``X + embedding[:L]``; float64 with X's shape. Raises ValueError if L > max_seq_len."""
        array = check_embeddings(x, self.d_model)
        length = array.shape[-2]
        if length > self.max_seq_len:
            raise ValueError(
                f"sequence length L={length} exceeds max_seq_len={self.max_seq_len}: a learned "
                "table has no rows past max_seq_len (use a sinusoidal encoding to extrapolate)"
            )
        self._cache = array
        return add_encoding(array, self.embedding[:length])

    __call__ = forward

    def backward(self, grad_output: Any) -> NDArray[np.float64]:
        """dL/dX (= grad_output, copied, float64); sets ``grad_embedding`` (max_seq_len, d)."""
        if self._cache is None:
            raise RuntimeError("backward called before forward: no cached input")
        cached_shape = self._cache.shape
        grad = check_embeddings(grad_output, self.d_model, "grad_output")
        if grad.shape != cached_shape:
            raise ValueError(
                f"grad_output must have the shape of the last forward input {cached_shape}; "
                f"got {grad.shape}"
            )
        grad64 = np.array(grad, dtype=np.float64)
        per_position = grad64.sum(axis=0) if grad64.ndim == 3 else grad64
        grad_embedding = np.zeros_like(self.embedding)
        grad_embedding[: per_position.shape[0]] = per_position
        self.grad_embedding = grad_embedding
        return grad64
