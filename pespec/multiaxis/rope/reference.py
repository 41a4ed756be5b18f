"""The multi-axis rotary output, its oracle and bounds, section by section (SPEC §9.7).

Nothing here rotates: section i's slots are copied into the pairs ``pairs`` of a 1-D input
of its RopeConfig's head_dim (the other pairs zero), the 1-D function of :mod:`pespec.rope`
(the exact reference, the oracle, the reference's proved bound, the level's error bound) is
applied at coordinate ``axis`` of the positions, and its values at those pairs are copied
back to the slots. A pair's rotation reads only that pair, so the zeros change nothing.

Shapes: x (n, head_dim), positions (n, k); outputs (n, head_dim) float64.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.rope.config import MultiAxisRopeConfig
from pespec.rope import oracle, reference
from pespec.rope.errormodel import RopeLevel, element_bound
from pespec.rope.oracle import pair_indices

__all__ = [
    "apply",
    "check_inputs",
    "level_bound",
    "oracle_apply",
    "reference_bound",
    "section_apply",
    "tolerance",
]

F64 = NDArray[np.float64]
OneD = Callable[[F64, NDArray[Any]], F64]


def check_inputs(x: Any, positions: Any, config: MultiAxisRopeConfig) -> tuple[F64, NDArray[Any]]:
    """x as float64 (n, head_dim) and positions as int64 or float64 (n, k), finite
    (ValueError naming the shape or value otherwise)."""
    values = np.asarray(x)
    if values.dtype.kind != "f" or values.ndim != 2 or values.shape[1] != config.head_dim:
        raise ValueError(
            f"x must be a float array of shape (n, {config.head_dim}); got dtype "
            f"{values.dtype}, shape {values.shape}"
        )
    p = np.asarray(positions)
    if p.ndim != 2 or p.shape != (values.shape[0], config.axes):
        raise ValueError(
            f"positions must have shape (n, {config.axes}) = ({values.shape[0]}, "
            f"{config.axes}); got shape {p.shape}"
        )
    if p.dtype.kind not in "iuf":
        raise ValueError(f"positions must be integers or floats; got dtype {p.dtype}")
    p = p.astype(np.int64) if p.dtype.kind in "iu" else p.astype(np.float64)
    x64 = values.astype(np.float64)
    if not (np.all(np.isfinite(x64)) and np.all(np.isfinite(p))):
        raise ValueError("x and positions must be finite; got a NaN or an infinity")
    return x64, p


def section_apply(
    x: F64,
    positions: NDArray[Any],
    config: MultiAxisRopeConfig,
    index: int,
    one_d: Callable[..., F64],
) -> tuple[F64, NDArray[np.intp], NDArray[np.intp]]:
    """``one_d(x1, p_axis, rope)`` on section ``index``'s pairs; returns the (n, 2·m)
    values of its slots (first columns, then second columns) and those head columns."""
    section = config.sections[index]
    read_a, read_b, write_a, write_b = pair_indices(section.rope)
    pairs = np.asarray(section.pairs, dtype=np.intp)
    first, second = config.slot_columns(section.slots)
    x1 = np.zeros((x.shape[0], section.rope.head_dim), dtype=np.float64)
    x1[:, read_a[pairs]] = x[:, first]
    x1[:, read_b[pairs]] = x[:, second]
    p = np.ascontiguousarray(positions[:, section.axis])
    y1 = one_d(x1, p, section.rope)
    values = np.concatenate([y1[:, write_a[pairs]], y1[:, write_b[pairs]]], axis=1)
    return values, first, second


def _combine(x: Any, positions: Any, config: MultiAxisRopeConfig, one_d: Callable[..., F64]) -> F64:
    values, p = check_inputs(x, positions, config)
    out = np.empty_like(values)
    for index in range(len(config.sections)):
        y, first, second = section_apply(values, p, config, index, one_d)
        m = first.size
        out[:, first], out[:, second] = y[:, :m], y[:, m:]
    return out


def apply(x: Any, positions: Any, config: MultiAxisRopeConfig) -> F64:
    """The exact float64 reference: each element within :func:`reference_bound` of the
    exact value (SPEC Annex C.6 per section)."""
    return _combine(x, positions, config, reference.rotate)


def oracle_apply(x: Any, positions: Any, config: MultiAxisRopeConfig) -> F64:
    """The certified oracle: each element the correctly rounded exact value (Annex B)."""
    return _combine(x, positions, config, oracle.rotate)


def reference_bound(x: Any, positions: Any, config: MultiAxisRopeConfig) -> F64:
    """Per-element bound on |:func:`apply` − exact| (the 1-D ``rotation_bound``)."""
    return _combine(x, positions, config, lambda v, p, rope: reference.rotation_bound(v, rope, p))


def level_bound(
    x: Any, positions: Any, config: MultiAxisRopeConfig, level: RopeLevel, output_dtype: str
) -> F64:
    """Per-element bound on |backend − exact| at ``level`` (the 1-D SPEC §8.7 bound)."""
    return _combine(
        x, positions, config, lambda v, p, rope: element_bound(v, p, rope, level, output_dtype)
    )


def tolerance(
    x: Any,
    positions: Any,
    config: MultiAxisRopeConfig,
    level: RopeLevel,
    output_dtype: str,
    against: F64 | float | None = None,
) -> F64:
    """THE multi-axis rotary tolerance: the bound on |y − r| per element of a backend's
    output y against a value r it is compared with; every stage asks it. :func:`level_bound`
    plus r's own proved distance from the exact: ``against=None``, r is :func:`apply` (its
    :func:`reference_bound`); otherwise ``against`` is that distance (``2^-53·|r|`` for a
    correctly rounded oracle value, §9.7). Shape (n, head_dim)."""
    bound = level_bound(x, positions, config, level, output_dtype)
    if against is None:
        against = reference_bound(x, positions, config)
    out: F64 = bound + against
    return out
