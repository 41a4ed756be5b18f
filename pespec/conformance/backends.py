"""Backends: what the conformance suite checks, and what a backend declares (SPEC §6.1).

A backend is a callable that its family calls with positions (an int64 or float64 NumPy
array of shape (n,)) and the family's other arguments, as the family's
:class:`~pespec.conformance.guard.CallingConvention` writes out; the result is an array in the
backend's own output dtype (a NumPy array, anything with ``__array__`` or ``__dlpack__``, or a
torch/JAX array, which :func:`~pespec.conformance.host.to_host` moves to host memory). The
:class:`BackendCapabilities` it declares (a family adds its own fields in a subclass) narrow
what is tested and appear in the report.

Backend specs are resolved by :func:`pespec.conformance.loading.load_backend`, to which a
family passes its capabilities type and its built-in names.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.guard import CallingConvention
from pespec.conformance.host import to_host

__all__ = [
    "Backend",
    "BackendCapabilities",
    "callable_name",
    "magnitude_within",
]

_Caps = TypeVar("_Caps", bound="BackendCapabilities")


@dataclass(frozen=True)
class BackendCapabilities:
    """What every family's backend may declare; each field narrows the suite (SPEC §6.1).

    ``integer_positions_only``: only int64 positions are passed. ``non_negative_positions``:
    only positions ≥ 0 are passed (a module that looks rows up in a table). ``max_position``
    (largest |position|): larger positions are not tested. ``level``: the level it claims,
    checked by the family's :meth:`check_level`. A family adds its own fields in a subclass
    and names how it calls its backends (:attr:`calling_convention`).
    """

    integer_positions_only: bool = False
    non_negative_positions: bool = False
    max_position: float | None = None
    level: str | None = None
    calling_convention: ClassVar[CallingConvention]
    """How the family calls its backends (each family's subclass names its own)."""

    def __post_init__(self) -> None:
        for flag in ("integer_positions_only", "non_negative_positions"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(f"{flag} must be a bool; got {getattr(self, flag)!r}")
        self.check_fields()
        if self.max_position is not None:
            value = self.max_position
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"max_position must be a number >= 0; got {value!r}")
            if not (math.isfinite(float(value)) and value >= 0):
                raise ValueError(f"max_position must be a finite number >= 0; got {value!r}")
        self.check_level()

    def check_fields(self) -> None:
        """Validate (and normalise) the family's own fields; nothing here."""

    def check_level(self) -> None:
        """Raise ValueError unless ``level`` names a level this family accepts; nothing here."""

    sequence_fields: ClassVar[tuple[str, ...]] = ()
    """The family's fields given as any sequence (a JSON list) and kept as tuples."""

    @classmethod
    def from_mapping(cls: type[_Caps], data: Mapping[str, Any]) -> _Caps:
        """Capabilities from a dict such as a callable's ``pespec_capabilities`` attribute."""
        if not isinstance(data, Mapping):
            raise TypeError(f"capabilities must be a mapping (a dict); got {data!r}")
        values = dict(data)
        for name in cls.sequence_fields:
            value = values.get(name)
            if value is None:
                continue
            if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                raise TypeError(
                    f"capabilities[{name!r}] must be a list (or tuple) of values; got {value!r}"
                )
            values[name] = tuple(value)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(
                f"capabilities must only use the keys {sorted(known)}; got unknown {unknown}"
            )
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for reports."""
        return {
            "integer_positions_only": self.integer_positions_only,
            "non_negative_positions": self.non_negative_positions,
            "max_position": self.max_position,
            "level": self.level,
        }

    def admits(self, positions: NDArray[Any]) -> NDArray[np.bool_]:
        """Mask of the positions inside the declared capabilities (integer, sign, magnitude)."""
        values = np.asarray(positions)
        keep = np.ones(values.shape, dtype=bool)
        if self.integer_positions_only and values.dtype.kind == "f":
            keep &= np.isfinite(values) & (values == np.round(values))
        if self.non_negative_positions:
            keep &= values >= 0
        if self.max_position is not None:
            keep &= magnitude_within(values, self.max_position)
        return keep

    def adapt_positions(self, positions: NDArray[Any]) -> NDArray[Any]:
        """Map drawn positions into the declared capabilities (round, fold the sign, clip)."""
        values = np.asarray(positions)
        if self.integer_positions_only and values.dtype.kind == "f":
            values = np.round(values).astype(np.int64)
        if self.non_negative_positions:
            values = np.abs(values)
        if self.max_position is not None:
            limit = self.max_position
            values = np.clip(values, -limit, limit).astype(values.dtype)
        return values


def magnitude_within(positions: NDArray[Any], limit: float) -> NDArray[np.bool_]:
    """Mask of |p| ≤ ``limit``, compared exactly: integer positions against ⌊limit⌋ in
    integer arithmetic (as float64, 2^53 + 1 would round to 2^53 and pass a 2^53 limit)."""
    values = np.asarray(positions)
    if values.dtype.kind not in "iu":
        return np.asarray(np.abs(values) <= limit, dtype=bool)
    if limit >= 2.0**63:
        return np.ones(values.shape, dtype=bool)
    bound = np.int64(math.floor(limit))
    return np.asarray((values <= bound) & (values >= -bound), dtype=bool)


@dataclass
class Backend:
    """A named backend: the callable, its capabilities and where it runs.

    Calling a Backend calls ``fn`` and moves the result to host memory (:func:`to_host`), so a
    Backend is itself a callable returning NumPy arrays (a family's encoder).
    ``spec`` is the string that :func:`load_backend` accepts to rebuild it (for one-line
    reproductions), or None for an object passed directly.
    """

    name: str
    fn: Callable[..., Any]  # called as its family's CallingConvention says
    capabilities: Any = field(default_factory=BackendCapabilities)
    """A family's capabilities (:class:`BackendCapabilities` or a family's subclass); default:
    the shared fields only, which the family that runs the backend reads as its own type
    (its loader gives the family's defaults)."""
    device: str = "cpu"
    spec: str | None = None
    libraries: dict[str, str] = field(default_factory=dict)

    def __call__(self, *arguments: Any) -> NDArray[Any]:
        return to_host(self.fn(*arguments))


def callable_name(obj: Any) -> str:
    """What a report calls a user's callable: its qualified name (``Encoding``,
    ``Model.table``; a nested function without its ``<locals>`` path), ``lambda at
    pe.py:12`` for a lambda (a name, not ``<lambda>``), else its type's name."""
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(qualname, str):
        return type(obj).__name__
    name = qualname.rpartition("<locals>.")[2]
    if name != "<lambda>":
        return name
    code = getattr(obj, "__code__", None)
    if code is None:
        return "lambda"
    return f"lambda at {Path(code.co_filename).name}:{code.co_firstlineno}"
