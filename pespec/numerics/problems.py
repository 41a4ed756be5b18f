"""What is wrong with an output array, in one wording for every family (SPEC §6.2).

:class:`OutputProblem` is one broken rule of the output contract (shape, dtype, finite values)
with what the rule asks and what the output has; :func:`first_non_finite` finds the first NaN
or Inf of a 2-D array in bounded memory. Family-free: each family states its own shape rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["OutputProblem", "first_non_finite"]

_FINITE_BLOCK = 1 << 22
"""Elements scanned at a time by :func:`first_non_finite` (bounded temporary memory)."""


def first_non_finite(array: NDArray[Any]) -> tuple[int, ...] | None:
    """Index of the first NaN/Inf of a 2-D ``array`` (scanned in row blocks), or None.

    NumPy's own float dtypes are tested as they are; any other dtype (bfloat16 and the other
    ml_dtypes formats, integers) through float64, which holds each of them finitely. (A
    float32 cast turned a finite float64 1e300 into inf and called it non-finite.)"""
    if array.ndim != 2 or array.size == 0:
        return None
    native = np.issubdtype(array.dtype, np.floating)
    rows = max(1, _FINITE_BLOCK // max(array.shape[1], 1))
    for start in range(0, array.shape[0], rows):
        block = array[start : start + rows]
        block = block if native else np.asarray(block, dtype=np.float64)
        bad = ~np.isfinite(block)
        if bad.any():
            row, column = np.argwhere(bad)[0]
            return start + int(row), int(column)
    return None


@dataclass(frozen=True)
class OutputProblem:
    """One way a backend's output breaks the contract (SPEC §6.2), in the one wording.

    ``kind``: the contract item (``shape``, ``dtype`` or ``finite``); ``expected`` and
    ``found``: what the rule asks and what the output has, e.g. shape ``(48, 16)`` and
    ``(48, 17)``. ``message`` joins them: ``output shape must be (48, 16); got (48, 17)``.
    """

    kind: str
    expected: str
    found: str

    @property
    def subject(self) -> str:
        """The noun the rule is about (``shape ``, ``dtype ``; none for finiteness)."""
        return "" if self.kind == "finite" else f"{self.kind} "

    @property
    def message(self) -> str:
        return f"output {self.subject}must be {self.expected}; got {self.found}"
