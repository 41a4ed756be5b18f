"""The guarded rotary call (SPEC §8.8): the engine's guard with the rotary contract.

:func:`rope_guard` is the engine's :class:`~pespec.conformance.contract.GuardedBackend`
(timeout, host conversion, exceptions as failures) describing rotary calls;
:func:`rope_call` calls ``backend(x, positions, rope)`` through it and checks what every
rotary call must give: x and positions unchanged, shape (n, head_dim), a known dtype that
stays the same, finite values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.contract import BackendFailure, GuardedBackend, first_non_finite
from pespec.numerics.formats import DTYPES, dtype_name
from pespec.rope.config import RopeConfig

__all__ = ["describe_call", "rope_call", "rope_guard"]


def describe_call(*args: Any) -> str:
    """A rotary call's arguments ``(x, positions, rope)`` in words, for messages."""
    x, positions, rope = args
    p = np.asarray(positions)
    shown = (
        f"positions {p.tolist()}"
        if p.size <= 6
        else f"{p.size} positions in {p.min().item()}..{p.max().item()}"
    )
    return f"x {tuple(np.shape(x))}, {shown}, head_dim={rope.head_dim}"


def rope_guard(
    backend: Backend, *, timeout: float, expected_dtype: str | None = None
) -> GuardedBackend:
    """The guarded rotary backend: ``guard.raw_call(x, positions, rope)`` -> host array."""
    return GuardedBackend(
        backend, timeout=timeout, expected_dtype=expected_dtype, describe=describe_call
    )


def rope_call(
    guard: GuardedBackend, x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig
) -> NDArray[Any]:
    """``backend(x, positions, rope)`` through ``guard``, validated (BackendFailure if not)."""
    given_x, given_p = np.array(x, copy=True), np.array(positions, copy=True)
    output = guard.raw_call(given_x, given_p, rope)
    if not (np.array_equal(given_x, x) and np.array_equal(given_p, positions)):
        raise BackendFailure("mutated", "the backend modified its x or positions argument")
    where = describe_call(x, positions, rope)
    if output.shape != x.shape:
        raise BackendFailure(
            "shape", f"output shape must be {x.shape}; got {output.shape} ({where})"
        )
    name = dtype_name(output.dtype)
    if name is None or (guard.expected_dtype is not None and name != guard.expected_dtype):
        want = guard.expected_dtype or f"one of {sorted(DTYPES)}"
        raise BackendFailure("dtype", f"output dtype must be {want}; got {output.dtype} ({where})")
    bad = first_non_finite(output) if output.ndim == 2 else None
    if bad is not None:
        where = f"position {positions[bad[0]].item()!r}, column {bad[1]}"
        raise BackendFailure(
            "finite", f"output must be finite; got {float(output[bad])!r} at {where}"
        )
    return output
