"""The guarded rotary call (SPEC §8.8): the absolute family's guard with the rotary contract.

:class:`RopeGuard` calls ``backend(x, positions, rope)`` under the absolute family's guard
(timeout, host conversion, exceptions as failures) and checks what every rotary call must
give: x and positions unchanged, shape (n, head_dim), a known dtype that stays the same,
finite values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import BackendFailure, GuardedBackend, first_non_finite
from pespec.numerics.formats import DTYPES, dtype_name
from pespec.rope.config import RopeConfig

__all__ = ["RopeGuard"]


class RopeGuard(GuardedBackend):
    """A guarded rotary backend: ``guard(x, positions, rope)`` -> validated host array."""

    def describe_call(self, *args: Any) -> str:
        x, positions, rope = args
        p = np.asarray(positions)
        shown = p.tolist() if p.size <= 6 else f"{p.size} positions {p[0].item()}..{p[-1].item()}"
        return f"x {tuple(np.shape(x))}, positions {shown}, head_dim={rope.head_dim}"

    def rope_call(self, x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> NDArray[Any]:
        given_x, given_p = np.array(x, copy=True), np.array(positions, copy=True)
        output = self.raw_call(given_x, given_p, rope)
        if not (np.array_equal(given_x, x) and np.array_equal(given_p, positions)):
            raise BackendFailure("mutated", "the backend modified its x or positions argument")
        where = self.describe_call(x, positions, rope)
        if output.shape != x.shape:
            raise BackendFailure(
                "shape", f"output shape must be {x.shape}; got {output.shape} ({where})"
            )
        name = dtype_name(output.dtype)
        if name is None or (self.expected_dtype is not None and name != self.expected_dtype):
            want = self.expected_dtype or f"one of {sorted(DTYPES)}"
            raise BackendFailure(
                "dtype", f"output dtype must be {want}; got {output.dtype} ({where})"
            )
        bad = first_non_finite(output) if output.ndim == 2 else None
        if bad is not None:
            where = f"position {positions[bad[0]].item()!r}, column {bad[1]}"
            raise BackendFailure(
                "finite", f"output must be finite; got {float(output[bad])!r} at {where}"
            )
        return output
