"""Public float64 reference API: frequencies, encode, sinusoidal_positional_encoding (SPEC §1).

These are the functions other backends are judged against. They are the exact reference
of SPEC Annex C (:mod:`pespec.sinusoidal.reference.exact`): every element is within 2^-52 of the
correctly rounded value, at every position |p + o| < 2^31 (no drift with position).
``iter_encoding_chunks`` (re-exported from there) streams the same values in blocks of
rows. The naive formula stays available in :mod:`pespec.sinusoidal.reference.naive` as the benchmark
baseline and as an example of a conformant-but-drifting float64 backend.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.conventions import CANONICAL, Convention
from pespec.sinusoidal.reference.exact import (
    exact_encode,
    exact_frequencies,
    exact_sinusoidal_positional_encoding,
    iter_encoding_chunks,
)

__all__ = ["encode", "frequencies", "iter_encoding_chunks", "sinusoidal_positional_encoding"]


def frequencies(
    d_model: int, base: float = 10000.0, *, convention: Convention = CANONICAL
) -> NDArray[np.float64]:
    """ω_i = base^(−2i/d) (or base^(−i/(d/2−s)) for a shifted convention); shape (d_model/2,).

    Correctly rounded to float64 (certified by the oracle).
    """
    return exact_frequencies(d_model, base, convention=convention)


def encode(
    positions: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    convention: Convention = CANONICAL,
) -> NDArray[np.float64]:
    """Encoding of any finite real positions; shape (*positions.shape, d_model), float64.

    |position + position_offset| must be ≤ 2^53 (beyond, use the oracle).
    """
    return exact_encode(positions, d_model, base=base, convention=convention)


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
    return exact_sinusoidal_positional_encoding(
        seq_len, d_model, base=base, offset=offset, convention=convention
    )
