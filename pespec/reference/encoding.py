"""Public float64 reference API: frequencies, encode, sinusoidal_positional_encoding (SPEC §2).

These are the functions other backends are judged against. They currently
delegate to the naive formula (:mod:`pespec.reference.naive`); the exact,
position-independent-error implementation replaces it (SPEC §7).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.reference.conventions import CANONICAL, Convention
from pespec.reference.naive import (
    naive_encode,
    naive_frequencies,
    naive_sinusoidal_positional_encoding,
)

__all__ = ["encode", "frequencies", "sinusoidal_positional_encoding"]


def frequencies(
    d_model: int, base: float = 10000.0, *, convention: Convention = CANONICAL
) -> NDArray[np.float64]:
    """ω_i = base^(−2i/d) (or base^(−i/(d/2−s)) for a shifted convention); shape (d_model/2,)."""
    return naive_frequencies(d_model, base, convention=convention)


def encode(
    positions: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    convention: Convention = CANONICAL,
) -> NDArray[np.float64]:
    """Encoding of any finite real positions; shape (*positions.shape, d_model), float64."""
    return naive_encode(positions, d_model, base=base, convention=convention)


def sinusoidal_positional_encoding(
    seq_len: int,
    d_model: int,
    *,
    base: float = 10000.0,
    offset: int = 0,
    convention: Convention = CANONICAL,
) -> NDArray[np.float64]:
    """PE matrix for positions offset .. offset+seq_len−1; shape (seq_len, d_model), float64.

    Canonical layout: sin at even columns, cos at odd columns.
    """
    return naive_sinusoidal_positional_encoding(
        seq_len, d_model, base=base, offset=offset, convention=convention
    )
