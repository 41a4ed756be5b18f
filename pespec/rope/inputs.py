"""The one generator of rotary inputs x (issue 38, rule 4 of the design note).

Every rotary check, fixture and inputs file (the rotary family and the multi-axis rotary
family) draws its vectors x from :func:`rotary_x`: a stated integer formula, so the values are
the same on every platform and exact in every float format the suite compares (multiples of
1/64 of at most 8 significant bits, ``half`` ≤ 128). Row ``r`` and column ``k``::

    x[r][k] = ((37·(k+1) + 101·r + 7919·seed) mod (2·half + 1) − half) / 64

so x ∈ [−half/64, half/64]. The §8.6 golden sets and the inputs files of ``--from-file`` are
``seed=0, half=128`` (their ``x_formula``); the rotary suite's checks ``half=127`` with a seed
per check. One draw is not this formula: the multi-axis rotary suite's x (:func:`drawn_x`, a
PCG64 draw kept because its inputs decide that family's report bytes; moving it onto the
formula is a report change to announce, not a refactoring).
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["GOLDEN_HALF", "SUITE_HALF", "drawn_x", "rotary_x"]

GOLDEN_HALF: Final = 128
"""``half`` of the §8.6 golden sets and the inputs files: x a multiple of 1/64 in [−2, 2]."""

SUITE_HALF: Final = 127
"""``half`` of the rotary suite's checks: x a multiple of 1/64 in [−127/64, 127/64]."""


def rotary_x(
    rows: int | ArrayLike, head_dim: int, *, seed: int = 0, half: int = GOLDEN_HALF
) -> NDArray[np.float64]:
    """x of shape (len(rows), head_dim) at row indices ``rows`` (an int n: rows 0 … n − 1),
    by the formula of the module docstring."""
    if np.ndim(rows) == 0:
        rows = np.arange(int(rows), dtype=np.int64)  # type: ignore[arg-type]
    r = np.asarray(rows, dtype=np.int64).reshape(-1, 1)
    k = np.arange(head_dim, dtype=np.int64)[None, :]
    value = (37 * (k + 1) + 101 * r + 7919 * seed) % (2 * half + 1) - half
    out: NDArray[np.float64] = value / 64.0
    return out


def drawn_x(n: int, head_dim: int, seed: int = 0) -> NDArray[np.float64]:
    """The multi-axis rotary suite's x: (n, head_dim) values k/128, k drawn uniformly from
    [−256, 256] by PCG64 seeded ``seed`` (deterministic; exact in every format compared)."""
    rng = np.random.default_rng(seed)
    out: NDArray[np.float64] = rng.integers(-256, 257, size=(n, head_dim)) / 128.0
    return out
