"""The naive float64 formula as tutorials write it, kept as a baseline.

ω_k = exp(−k·ln(base)/(d/2 − s)) in log space, θ = c·(p + o)·ω_k rounded to
float64, then ``np.sin``/``np.cos`` of the rounded angle. Its error grows with
|θ| because θ is rounded before the sine sees it (SPEC §4): about 4e-13 at
position 5000 and 1e-7 near position 1e9. It is the benchmark baseline and an
example of a conformant-but-drifting float64 backend; the exact reference is
:mod:`pespec.sinusoidal.reference.exact`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.validation import check_non_negative_int, check_positions
from pespec.sinusoidal.reference.conventions import CANONICAL, Convention
from pespec.sinusoidal.reference.validation import check_base, check_d_model

__all__ = ["naive_encode", "naive_frequencies", "naive_sinusoidal_positional_encoding"]


def naive_frequencies(
    d_model: int, base: float = 10000.0, *, convention: Convention = CANONICAL
) -> NDArray[np.float64]:
    """ω_k = exp(−k·ln(base)/(d/2 − s)) computed in log space; shape (d_model/2,)."""
    d = check_d_model(d_model)
    b = check_base(base)
    denominator = convention.denominator(d)
    k = np.arange(d // 2, dtype=np.float64)
    omega: NDArray[np.float64] = np.exp(-k * (np.log(b) / denominator))
    return omega


def naive_encode(
    positions: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    convention: Convention = CANONICAL,
) -> NDArray[np.float64]:
    """Encoding of arbitrary finite positions; shape (*positions.shape, d_model), float64."""
    p = check_positions(positions)
    omega = naive_frequencies(d_model, base, convention=convention)
    shifted = p.astype(np.float64) + float(convention.position_offset)
    theta = (float(convention.argument_scale) * shifted)[..., None] * omega
    out = np.empty((*p.shape, d_model), dtype=np.float64)
    out[..., convention.sin_columns(d_model)] = np.sin(theta)
    out[..., convention.cos_columns(d_model)] = np.cos(theta)
    if convention.output_scale != 1.0:  # one product by the nearest float64 to A (SPEC §4.1 A7)
        out *= convention.amplitude(d_model)
    return out


def naive_sinusoidal_positional_encoding(
    seq_len: int,
    d_model: int,
    *,
    base: float = 10000.0,
    offset: int = 0,
    convention: Convention = CANONICAL,
) -> NDArray[np.float64]:
    """Rows for positions offset .. offset+seq_len−1; shape (seq_len, d_model), float64."""
    n = check_non_negative_int(seq_len, "seq_len")
    start = check_non_negative_int(offset, "offset")
    check_d_model(d_model)
    return naive_encode(
        np.arange(start, start + n, dtype=np.int64), d_model, base=base, convention=convention
    )
