"""A multi-axis configuration: sections of the 1-D sinusoidal family, one axis each (SPEC §9).

Positions have k coordinates (shape (n, k): (h, w) for an image grid, (t, h, w) for video).
A :class:`Section` is one 1-D sinusoidal configuration (d_model, base, convention: SPEC §1,
§3) fed by one axis; a :class:`MultiAxisConfig` lists the sections and the *arrangement*
that places their columns among the D = Σ d_i output columns:

* ``sectioned``: section i fills the columns [o_i, o_i + d_i), o_i = Σ_{j<i} d_j, in its own
  1-D layout (a ``sin_cos_halves`` section is MAE's and diffusers' per-axis [sin | cos]);
* ``grouped``: every section's sines first, then every section's cosines, in section order
  (timm's default [sin h, sin w, cos h, cos w]): the sine of pair k of section i is column
  s_i + k and its cosine D/2 + s_i + k, s_i = Σ_{j<i} d_j/2.

Every output column is one column of one section (:meth:`MultiAxisConfig.columns`): that
mapping is all the combinator needs of a section, so a rotary section (its pairs written to
given columns) can join later without changing the arrangement code.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.conventions import Convention
from pespec.sinusoidal.reference.validation import check_base, check_d_model

__all__ = ["ARRANGEMENTS", "Arrangement", "MultiAxisConfig", "Section", "check_positions_nd"]

Arrangement = Literal["sectioned", "grouped"]
ARRANGEMENTS: tuple[Arrangement, ...] = ("sectioned", "grouped")

HALVES = Convention(layout="sin_cos_halves", name="halves")
"""The per-axis [sin | cos] layout with canonical frequencies (MAE, diffusers)."""


def _integer(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an int >= {low}; got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Section:
    """One 1-D sinusoidal configuration fed by coordinate ``axis`` of the position."""

    axis: int
    d_model: int
    base: float = 10000.0
    convention: Convention = HALVES

    def __post_init__(self) -> None:
        object.__setattr__(self, "axis", _integer("axis", self.axis, 0))
        object.__setattr__(self, "d_model", check_d_model(self.d_model))
        object.__setattr__(self, "base", check_base(self.base))
        if not isinstance(self.convention, Convention):
            raise TypeError(f"convention must be a Convention; got {self.convention!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "axis": self.axis,
            "d_model": self.d_model,
            "base": self.base,
            "convention": self.convention.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Section:
        """Inverse of :meth:`to_dict`; ``convention`` may be left out (per-axis halves)."""
        unknown = sorted(set(data) - {"axis", "d_model", "base", "convention"})
        missing = [key for key in ("axis", "d_model") if key not in data]
        if unknown or missing:
            raise ValueError(
                "a section must have the keys axis, d_model (and optionally base, convention); "
                f"missing {missing}, unknown {unknown}"
            )
        convention = data.get("convention")
        return cls(
            axis=data["axis"],
            d_model=data["d_model"],
            base=data.get("base", 10000.0),
            convention=HALVES if convention is None else Convention.from_dict(dict(convention)),
        )


@dataclass(frozen=True)
class MultiAxisConfig:
    """Sections over ``axes`` coordinates and the arrangement of their columns (SPEC §9.1)."""

    sections: tuple[Section, ...]
    axes: int
    arrangement: Arrangement = "sectioned"
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        sections = tuple(self.sections)
        if not sections or not all(isinstance(s, Section) for s in sections):
            raise ValueError(f"sections must be a non-empty list of Section; got {sections!r}")
        object.__setattr__(self, "sections", sections)
        axes = _integer("axes", self.axes, 1)
        object.__setattr__(self, "axes", axes)
        for index, section in enumerate(sections):
            if section.axis >= axes:
                raise ValueError(
                    f"section {index} reads axis {section.axis}; axes must be < {axes}"
                )
        if self.arrangement not in ARRANGEMENTS:
            raise ValueError(f"arrangement must be one of {ARRANGEMENTS}; got {self.arrangement!r}")

    @property
    def d_model(self) -> int:
        """D, the output width: the sum of the sections' d_model."""
        return sum(s.d_model for s in self.sections)

    def columns(self, index: int) -> NDArray[np.intp]:
        """The output column of each of section ``index``'s d columns, in the section's own
        1-D layout order; shape (d,). Together the sections' columns are 0 .. D−1 once each."""
        section = self.sections[index]
        before = self.sections[:index]
        if self.arrangement == "sectioned":
            offset = sum(s.d_model for s in before)
            return np.arange(offset, offset + section.d_model, dtype=np.intp)
        half, start = self.d_model // 2, sum(s.d_model // 2 for s in before)
        out = np.empty(section.d_model, dtype=np.intp)
        k = np.arange(section.d_model // 2, dtype=np.intp)
        out[section.convention.sin_columns(section.d_model)] = start + k
        out[section.convention.cos_columns(section.d_model)] = half + start + k
        return out

    def describe(self, index: int) -> str:
        """Section ``index`` in words, for reports: its axis, width, columns and base."""
        section, columns = self.sections[index], self.columns(index)
        span = f"columns {int(columns.min())}-{int(columns.max())}"
        if self.arrangement == "grouped":
            span = "sin and cos blocks"
        return (
            f"section {index} (axis {section.axis}, d={section.d_model}, {span}, "
            f"base {section.base:g}, {section.convention.layout})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "axes": self.axes,
            "arrangement": self.arrangement,
            "sections": [s.to_dict() for s in self.sections],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MultiAxisConfig:
        """Inverse of :meth:`to_dict`; unknown or missing keys raise ValueError naming them."""
        if not isinstance(data, Mapping):
            raise TypeError(f"a multiaxis config must be a JSON object; got {data!r}")
        unknown = sorted(set(data) - {"name", "axes", "arrangement", "sections"})
        missing = [key for key in ("axes", "sections") if key not in data]
        if unknown or missing:
            raise ValueError(
                "a multiaxis config must have the keys axes, sections (and optionally name, "
                f"arrangement); missing {missing}, unknown {unknown}"
            )
        sections = data["sections"]
        if isinstance(sections, (str, bytes)) or not isinstance(sections, Sequence):
            raise ValueError(f"sections must be a list of objects; got {sections!r}")
        return cls(
            sections=tuple(Section.from_dict(s) for s in sections),
            axes=data["axes"],
            arrangement=data.get("arrangement", "sectioned"),
            name=str(data.get("name", "custom")),
        )


def check_positions_nd(positions: Any, axes: int) -> NDArray[Any]:
    """``positions`` as an (n, axes) int64 or float64 array of finite values (ValueError
    naming the shape or the value otherwise)."""
    array = np.asarray(positions)
    if array.ndim != 2 or array.shape[1] != axes:
        raise ValueError(f"positions must have shape (n, {axes}); got shape {array.shape}")
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind != "f":
        raise ValueError(f"positions must be integers or floats; got dtype {array.dtype}")
    as_float = array.astype(np.float64)
    if not np.all(np.isfinite(as_float)):
        raise ValueError("positions must be finite; got a NaN or an infinity")
    if not np.array_equal(as_float, array):
        raise ValueError("positions must be exactly representable in float64")
    return as_float
