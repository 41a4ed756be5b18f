"""How the sinusoidal family calls a backend: ``backend(positions, d_model, base) -> array``.

:data:`SINUSOIDAL_CALL` is the family's
:class:`~pespec.conformance.guard.CallingConvention`, with :func:`describe_call` (the call's
arguments in words, for messages) and :func:`validate_output` (shape (n, d_model), a known
dtype, finite values), which every guarded sinusoidal call uses (SPEC §6.1, §6.2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import BackendFailure
from pespec.conformance.guard import CallingConvention
from pespec.sinusoidal.properties.output import output_problems

__all__ = [
    "ADAPTER_POINTER",
    "SINUSOIDAL_CALL",
    "describe_call",
    "describe_positions",
    "validate_output",
]


def describe_positions(positions: NDArray[Any]) -> str:
    """The positions of a call in words: all of them up to 6, else the count and the ends."""
    if positions.size <= 6:
        return f"positions {positions.tolist()}"
    return f"{positions.size} positions {positions[0].item()!r}..{positions[-1].item()!r}"


def describe_call(*args: Any) -> str:
    """A sinusoidal call's arguments ``(positions, d_model, base)`` in words, for messages."""
    positions, d_model, base = args
    return f"{describe_positions(positions)}, d_model={d_model}, base={base!r}"


def validate_output(
    output: NDArray[Any],
    positions: NDArray[Any],
    d_model: int,
    base: float,
    *,
    expected_dtype: str | None = None,
    check_finite: bool = True,
) -> NDArray[Any]:
    """Raise BackendFailure for the first of :func:`output_problems` (shape (n, d_model), a
    known dtype, equal to ``expected_dtype`` when given, with ``check_finite`` only finite
    values), naming the call; else return ``output``."""
    for problem in output_problems(
        output, positions, d_model, expected_dtype=expected_dtype, check_finite=check_finite
    ):
        where = describe_call(positions, d_model, base)
        raise BackendFailure(problem.kind, f"{problem.message} ({where})")
    return output


ADAPTER_POINTER = (
    "wrap it in a function (positions, d_model, base) -> array, or adapt a module with "
    "pespec.conformance.module_backend or table_backend: see 'Adapting a module' in "
    "docs/guide.md"
)
"""Where a :class:`~pespec.conformance.guard.CallProtocolError` sends the user."""

SINUSOIDAL_CALL = CallingConvention(
    "backend(positions, d_model, base) -> array",
    (np.zeros(1, dtype=np.int64), 2, 10000.0),
    ADAPTER_POINTER,
    describe=describe_call,
    validate=validate_output,
    foreign=(
        (
            "rope",
            "the rotary family's backend(x, positions, rope): check it with pespec rope check",
        ),
    ),
)
"""The absolute (sinusoidal) family's calling convention (SPEC §6.1)."""
