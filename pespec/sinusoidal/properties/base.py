"""Shared value types of the properties layer: configurations, levels, results (SPEC §4–§5).

* :class:`EncodingConfig`: what to evaluate (positions, d_model, base, convention).
* :class:`Level`: a conformance level = output dtype + the working precision it assumes.
* :class:`PropertyResult`: the outcome of one property check, with the numbers a report needs.
* :class:`PropertyViolation`: the AssertionError a failed property raises; carries its result.
* :data:`Encoder`: the backend calling convention ``(positions, d_model, base) -> array``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import DTYPES, SIGNIFICAND_BITS, dtype_name, unit_roundoff
from pespec.numerics.validation import check_positions
from pespec.sinusoidal.reference.conventions import CANONICAL, Convention
from pespec.sinusoidal.reference.validation import check_base, check_d_model

__all__ = [
    "DTYPES",
    "LEVELS",
    "SIGNIFICAND_BITS",
    "Encoder",
    "EncodingConfig",
    "Level",
    "PropertyResult",
    "PropertyViolation",
    "check_claimable",
    "dtype_name",
    "level_for_dtype",
    "parse_level",
]

Encoder = Callable[[NDArray[Any], int, float], Any]
"""A backend: ``(positions (n,) int64|float64, d_model, base) -> (n, d_model) array``."""


@dataclass(frozen=True)
class Level:
    """A conformance level: output format ``output_dtype`` computed in ``working_dtype``.

    The default level of an output dtype is float64 work for float64 output and float32
    work for float32/float16/bfloat16 output (SPEC §4). A backend may claim a stricter
    level, e.g. ``float16@float64``.
    """

    output_dtype: str
    working_dtype: str

    def __post_init__(self) -> None:
        for attribute in ("output_dtype", "working_dtype"):
            value = getattr(self, attribute)
            if value not in DTYPES:
                raise ValueError(f"{attribute} must be one of {sorted(DTYPES)}; got {value!r}")

    @property
    def name(self) -> str:
        """``float16`` for a default level, ``float16@float64`` for a claimed one."""
        if LEVELS.get(self.output_dtype) == self:
            return self.output_dtype
        return f"{self.output_dtype}@{self.working_dtype}"

    @property
    def u_out(self) -> float:
        """Unit roundoff of the output format, 2^-p (half the float spacing in [1, 2))."""
        return unit_roundoff(self.output_dtype)

    @property
    def u_work(self) -> float:
        """Unit roundoff of the working precision."""
        return unit_roundoff(self.working_dtype)

    @property
    def numpy_output_dtype(self) -> np.dtype[Any]:
        return DTYPES[self.output_dtype]

    def at_least_as_tight(self, other: Level) -> bool:
        """True when output and working precision are each at least as precise as ``other``'s
        (the rotary levels' rule, per stage; used for the claims a saved file may make)."""
        bits = SIGNIFICAND_BITS
        return (
            bits[self.output_dtype] >= bits[other.output_dtype]
            and bits[self.working_dtype] >= bits[other.working_dtype]
        )


LEVELS: dict[str, Level] = {
    "float64": Level("float64", "float64"),
    "float32": Level("float32", "float32"),
    "float16": Level("float16", "float32"),
    "bfloat16": Level("bfloat16", "float32"),
}
"""The default level of each output dtype."""


def check_claimable(level: Level) -> Level:
    """``level`` if a backend may claim it (SPEC §4.4): the default level of its output dtype
    or a stricter one, whose working precision is at least as precise as the default's.

    A weaker claim would make the bound vacuous (float16@float16 allows errors ≥ 1 from
    position 204 on at d = 512), so it raises ValueError naming the level.
    """
    default = LEVELS[level.output_dtype]
    if SIGNIFICAND_BITS[level.working_dtype] < SIGNIFICAND_BITS[default.working_dtype]:
        raise ValueError(
            f"level {level.name!r} claims a working precision less precise than the default "
            f"level {default.name!r} ({default.working_dtype}); a backend may claim only the "
            f"default level or a stricter one, e.g. {level.output_dtype}@float64"
        )
    return level


def parse_level(text: str) -> Level:
    """``"float16"`` -> the default level; ``"float16@float64"`` -> a claimed stricter level.

    A claim weaker than the default level raises ValueError (:func:`check_claimable`).
    """
    output, at, working = text.partition("@")
    if output not in DTYPES or (at and working not in DTYPES):  # "float32@" is malformed
        raise ValueError(
            f"level must be OUTPUT or OUTPUT@WORKING with dtypes in {sorted(DTYPES)}; got {text!r}"
        )
    return check_claimable(Level(output, working)) if working else LEVELS[output]


def level_for_dtype(dtype: Any) -> Level:
    """The default level for an output array dtype (NumPy or ml_dtypes)."""
    resolved = np.dtype(dtype)
    name = dtype_name(resolved)
    if name is not None:
        return LEVELS[name]
    raise ValueError(
        f"dtype must be one of {sorted(DTYPES)} to pick a conformance level; got {resolved}"
    )


@dataclass(frozen=True)
class EncodingConfig:
    """What to evaluate: positions (n,), d_model, base and convention."""

    positions: NDArray[Any]
    d_model: int
    base: float = 10000.0
    convention: Convention = CANONICAL

    def __post_init__(self) -> None:
        positions = check_positions(self.positions)
        if positions.ndim != 1:
            raise ValueError(f"positions must be one-dimensional; got shape {positions.shape}")
        object.__setattr__(self, "positions", positions)
        object.__setattr__(self, "d_model", check_d_model(self.d_model))
        object.__setattr__(self, "base", check_base(self.base))

    def reproduction(self) -> str:
        """Python literal arguments of this configuration, for one-line reproductions."""
        return (
            f"positions=np.array({self.positions.tolist()!r}), d_model={self.d_model}, "
            f"base={self.base!r}"
        )


@dataclass
class PropertyResult:
    """Outcome of one property check (SPEC §5); every number is a float64 absolute value.

    ``max_error`` and ``bound`` belong to the same element: the one with the largest
    error/bound ratio (``details["max_ratio"]``), so a pass always shows error ≤ bound.
    The largest error anywhere, where it differs, is ``details["max_abs_error"]``. Both are
    None when the check has no numbers: the backend raised, or returned the wrong shape or a
    non-float dtype (reports show them blank, JSON null).
    """

    property: str
    section: str
    passed: bool
    max_error: float | None
    bound: float | None
    worst_position: float | int | None = None
    worst_column: int | None = None
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)


class PropertyViolation(AssertionError):
    """A property does not hold within its derived tolerance; ``.result`` has the numbers."""

    def __init__(self, result: PropertyResult) -> None:
        super().__init__(result.message)
        self.result = result
