"""What a backend's output must be, checked in one place and said in one wording (SPEC §6.2).

The contract stage (:mod:`pespec.conformance.contract`), the guard of every suite call and
the properties (:mod:`pespec.sinusoidal.properties.rows`) all judge a host output with
:func:`output_problems`: shape (n, d_model), a dtype pespec knows (the level's, once known),
finite values. The family-free pieces (:class:`OutputProblem`, :func:`first_non_finite`) live
in :mod:`pespec.numerics.problems`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from numpy.typing import NDArray

from pespec.numerics.formats import DTYPES, dtype_name
from pespec.numerics.problems import OutputProblem, first_non_finite

__all__ = ["output_problems"]


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
