"""Context extension: position interpolation, and choosing the base for a target length.

Position interpolation (Chen et al. 2023, "Extending Context Window of Large Language
Models via Positional Interpolation", arXiv:2306.15595, for RoPE; applied here to the
sinusoidal encoding): a model trained on positions [0, training_max_len) is run on
positions [0, new_max_len) by encoding position p at the fractional position
p·training_max_len/new_max_len, so every angle stays inside the trained range.

:func:`choose_base` picks the base whose longest wavelength is ``ratio`` times a typical
sequence length (a rule of thumb of tutorials, corrected below for the true longest
wavelength).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.validation import check_non_negative_int, check_positive_int
from pespec.sinusoidal.reference.encoding import encode
from pespec.sinusoidal.reference.validation import check_base, check_d_model, check_embeddings
from pespec.teaching.modules import add_encoding

__all__ = [
    "InterpolatedPositionalEncoding",
    "choose_base",
    "interpolated_encoding",
    "interpolated_positions",
]


def _check_lengths(training_max_len: Any, new_max_len: Any) -> tuple[int, int]:
    trained = check_positive_int(training_max_len, "training_max_len")
    new = check_positive_int(new_max_len, "new_max_len")
    if new < trained:
        raise ValueError(
            f"new_max_len must be >= training_max_len={trained} (interpolation extends the "
            f"context); got {new}"
        )
    return trained, new


def interpolated_positions(
    seq_len: int, *, training_max_len: int, new_max_len: int, offset: int = 0
) -> NDArray[np.float64]:
    """Scaled positions p·training_max_len/new_max_len for p = offset .. offset + seq_len − 1.

    Shape (seq_len,), float64. Each value is the correctly rounded quotient: the product
    p·training_max_len is exact while it stays below 2⁵³, so one rounding (the division)
    happens. Raises ValueError when offset + seq_len > new_max_len: past it the scaled
    positions would leave the trained range, which interpolation exists to avoid.
    """
    n = check_non_negative_int(seq_len, "seq_len")
    start = check_non_negative_int(offset, "offset")
    trained, new = _check_lengths(training_max_len, new_max_len)
    if start + n > new:
        raise ValueError(
            f"offset + seq_len must be <= new_max_len={new}; got offset={start}, seq_len={n}"
        )
    if new * trained >= 2**53:
        raise ValueError(
            f"new_max_len·training_max_len must be < 2**53 for exact scaling; got {new}·{trained}"
        )
    p = np.arange(start, start + n, dtype=np.int64)
    result: NDArray[np.float64] = (p * trained).astype(np.float64) / float(new)
    return result


def interpolated_encoding(
    seq_len: int,
    d_model: int,
    *,
    training_max_len: int,
    new_max_len: int,
    base: float = 10000.0,
    offset: int = 0,
) -> NDArray[np.float64]:
    """The encoding at the interpolated positions; shape (seq_len, d_model), float64.

    Row j is ``encode(q_j, d_model, base=base)`` for the scaled position q_j of
    :func:`interpolated_positions`.
    """
    d = check_d_model(d_model)
    b = check_base(base)
    positions = interpolated_positions(
        seq_len, training_max_len=training_max_len, new_max_len=new_max_len, offset=offset
    )
    return encode(positions, d, base=b)


class InterpolatedPositionalEncoding:
    """A sinusoidal encoding layer with interpolated positions (Chen et al. 2023).

    ``forward(X, offset=0)`` adds :func:`interpolated_encoding` to X of shape (B, L, d)
    or (L, d); offset + L must not exceed ``new_max_len``.
    """

    def __init__(
        self, d_model: int, *, training_max_len: int, new_max_len: int, base: float = 10000.0
    ) -> None:
        self.d_model = check_d_model(d_model)
        self.base = check_base(base)
        self.training_max_len, self.new_max_len = _check_lengths(training_max_len, new_max_len)

    @property
    def scale(self) -> float:
        """training_max_len / new_max_len, in (0, 1]."""
        return self.training_max_len / self.new_max_len

    def get_encoding(self, seq_len: int, offset: int = 0) -> NDArray[np.float64]:
        """Rows for (scaled) positions offset .. offset + seq_len − 1; (seq_len, d_model)."""
        return interpolated_encoding(
            seq_len,
            self.d_model,
            training_max_len=self.training_max_len,
            new_max_len=self.new_max_len,
            base=self.base,
            offset=offset,
        )

    def forward(self, x: Any, offset: int = 0) -> NDArray[np.float64]:
        """``X + PE_interp[offset : offset + L]``; float64 with X's shape."""
        array = check_embeddings(x, self.d_model)
        return add_encoding(array, self.get_encoding(array.shape[-2], offset))

    __call__ = forward


def choose_base(typical_seq_len: int, *, ratio: float = 10.0, d_model: int | None = None) -> float:
    """The base whose longest wavelength is ``ratio`` × ``typical_seq_len`` positions.

    Without ``d_model`` this is the tutorials' rule base = ratio·L/(2π), which assumes the
    longest wavelength is 2π·base. It is not: the lowest frequency is ω_(d/2−1) =
    base^(−(d−2)/d), so the longest wavelength is 2π·base^((d−2)/d), shorter than 2π·base
    (2π·10⁴ ≈ 62 832 but 60 611 for d = 512). With ``d_model`` the exact equation
    2π·base^((d−2)/d) = ratio·L is solved: base = (ratio·L/(2π))^(d/(d−2)), computed in
    log space. The two agree as d → ∞; for L = 512, d = 512 they are about 815 and 837.

    Raises ValueError when the target wavelength ratio·L is ≤ 2π (no base > 1 reaches it:
    the fastest pair already has wavelength 2π) and for d_model = 2 (a single pair with
    ω = 1 whose wavelength does not depend on the base).
    """
    length = check_positive_int(typical_seq_len, "typical_seq_len")
    if isinstance(ratio, (bool, np.bool_)) or not isinstance(ratio, numbers.Real):
        raise TypeError(f"ratio must be a finite real number > 0; got {ratio!r}")
    factor = float(ratio)
    if not (math.isfinite(factor) and factor > 0.0):
        raise ValueError(f"ratio must be a finite real number > 0; got {ratio!r}")
    try:
        target = factor * float(length)
    except OverflowError:
        target = math.inf
    if not math.isfinite(target):
        raise ValueError(
            f"ratio·typical_seq_len must be finite; got ratio={ratio!r}, typical_seq_len={length}"
        )
    if not target / (2.0 * math.pi) > 1.0:
        raise ValueError(
            f"ratio·typical_seq_len must exceed 2π (the shortest wavelength) for a base > 1; "
            f"got ratio={ratio!r}, typical_seq_len={length} (product {target!r})"
        )
    if d_model is None:
        return target / (2.0 * math.pi)
    d = check_d_model(d_model)
    if d == 2:
        raise ValueError(
            "d_model must be >= 4 to choose a base: with d_model=2 the only frequency is 1 "
            "and the wavelength is 2π whatever the base; got 2"
        )
    exponent = math.log(target / (2.0 * math.pi)) * d / (d - 2)
    if exponent > math.log(np.finfo(np.float64).max):
        raise ValueError(
            f"no finite float64 base gives wavelength {target!r} with d_model={d}: "
            "(ratio·L/(2π))^(d/(d−2)) overflows"
        )
    return math.exp(exponent)
