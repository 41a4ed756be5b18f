"""What a backend's output must be, checked in one place and said in one wording (SPEC §6.2).

The contract stage (:mod:`pespec.conformance.contract`), the guard of every suite call and
the properties (:mod:`pespec.properties.rows`) all judge a host output with
:func:`output_problems`: shape (n, d_model), a dtype pespec knows (the level's, once known),
finite values.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.properties.base import DTYPES, dtype_name

__all__ = ["OutputProblem", "first_non_finite", "output_problems"]

_FINITE_BLOCK = 1 << 22
"""Elements scanned at a time by :func:`first_non_finite` (bounded temporary memory)."""


def first_non_finite(array: NDArray[Any]) -> tuple[int, ...] | None:
    """Index of the first NaN/Inf of a 2-D ``array`` (scanned in row blocks), or None."""
    if array.ndim != 2 or array.size == 0:
        return None
    rows = max(1, _FINITE_BLOCK // max(array.shape[1], 1))
    for start in range(0, array.shape[0], rows):
        block = np.asarray(array[start : start + rows], dtype=np.float32)
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


def output_problems(
    output: NDArray[Any],
    positions: NDArray[Any],
    d_model: int,
    *,
    expected_dtype: str | None = None,
    check_finite: bool = True,
) -> Iterator[OutputProblem]:
    """Every contract problem of a host ``output`` for ``positions`` (n,) and ``d_model``, in
    order shape, dtype, finite (lazily: the first costs no finiteness scan). An unknown dtype
    ends the list; the finiteness scan needs a 2-D output."""
    expected = (positions.shape[0], d_model)
    if output.shape != expected:
        found = f"{output.shape}{_shape_hint(output.shape, d_model)}"
        yield OutputProblem("shape", str(expected), found)
    name = dtype_name(output.dtype)
    if name is None:
        yield OutputProblem("dtype", f"one of {sorted(DTYPES)}", str(output.dtype))
        return
    if expected_dtype is not None and name != expected_dtype:
        yield OutputProblem("dtype", f"{expected_dtype} (the level tested)", name)
    bad = first_non_finite(output) if check_finite else None
    if bad is not None:
        row = bad[0]
        position = positions[row].item() if row < positions.shape[0] else row
        yield OutputProblem(
            "finite", "finite", f"{float(output[bad])!r} at position {position!r}, column {bad[1]}"
        )


def _shape_hint(shape: tuple[int, ...], d_model: int) -> str:
    """What a wrong shape most likely is: transposed, batched, flattened."""
    if len(shape) == 2 and shape[0] == d_model and shape[1] != d_model:
        return ", transposed? (one row per position, d_model columns)"
    if len(shape) == 3 and shape[0] == 1 and shape[-1] == d_model:
        return ", a leading batch axis of 1? (one row per position, d_model columns)"
    if len(shape) != 2:
        return f", {len(shape)}-D (one row per position, d_model columns)"
    return ""
