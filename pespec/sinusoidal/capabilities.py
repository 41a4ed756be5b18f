"""What a sinusoidal backend declares, and how the family calls it (SPEC §6.1).

:class:`Capabilities` (also ``SinusoidalCapabilities``; ``pespec.conformance.Capabilities``
for old code) adds the sinusoidal fields (``bases``, ``max_d_model``, ``convention``) to the
engine's :class:`~pespec.conformance.backends.BackendCapabilities`; :data:`SINUSOIDAL_CALL` is
the family's calling convention ``backend(positions, d_model, base) -> array``, with the
description and validation every guarded sinusoidal call uses. :func:`as_sinusoidal` gives a
:class:`~pespec.conformance.backends.Backend` built with no capabilities the family's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend, BackendCapabilities, magnitude_within
from pespec.conformance.guard import CallingConvention
from pespec.sinusoidal.call import SINUSOIDAL_CALL
from pespec.sinusoidal.properties.base import Level, parse_level
from pespec.sinusoidal.reference.validation import check_base, check_d_model

__all__ = [
    "SINUSOIDAL_CALL",
    "Capabilities",
    "SinusoidalCapabilities",
    "as_sinusoidal",
]


@dataclass(frozen=True)
class Capabilities(BackendCapabilities):
    """What a sinusoidal backend declares (SPEC §6.1): the shared fields, and ``bases``: the
    bases it supports (None: any base > 1), ``max_d_model``: larger d_model is not tested,
    ``level`` e.g. ``"float16@float64"`` (None: the default level of its output dtype),
    ``convention``: the convention it implements, a preset name or ``Convention.to_dict()``
    (None: judged against the canonical encoding). Also ``SinusoidalCapabilities``.
    """

    bases: tuple[float, ...] | None = None
    max_d_model: int | None = None
    convention: str | dict[str, Any] | None = None
    calling_convention: ClassVar[CallingConvention] = SINUSOIDAL_CALL
    sequence_fields: ClassVar[tuple[str, ...]] = ("bases",)

    def check_fields(self) -> None:
        if self.bases is not None:
            if isinstance(self.bases, (str, bytes)) or not hasattr(self.bases, "__iter__"):
                raise TypeError(f"bases must be a sequence of numbers > 1; got {self.bases!r}")
            bases = tuple(check_base(b, "bases[]") for b in self.bases)
            if not bases:
                raise ValueError("bases must name at least one base; got an empty sequence")
            object.__setattr__(self, "bases", bases)
        if self.max_d_model is not None:
            object.__setattr__(self, "max_d_model", check_d_model(self.max_d_model, "max_d_model"))

    def check_level(self) -> None:
        """Raise ValueError unless ``level`` names a sinusoidal level (and ``convention`` a
        convention)."""
        if self.level is not None:
            parse_level(self.level)
        if self.convention is not None:
            from pespec.sinusoidal.declared import resolve_convention

            resolve_convention(self.convention, "capabilities['convention']")

    def claimed_level(self) -> Level | None:
        """The claimed level, or None when the backend claims none."""
        return None if self.level is None else parse_level(self.level)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for reports (the schema's key order)."""
        return {
            "integer_positions_only": self.integer_positions_only,
            "non_negative_positions": self.non_negative_positions,
            "bases": None if self.bases is None else list(self.bases),
            "max_d_model": self.max_d_model,
            "max_position": self.max_position,
            "level": self.level,
            "convention": self.convention,
        }

    def accepts(self, positions: NDArray[Any], d_model: int, base: float) -> str | None:
        """None when the configuration is inside the declared capabilities, else why not."""
        if self.integer_positions_only and positions.dtype.kind == "f":
            return "the backend declares integer positions only"
        if self.non_negative_positions and positions.size and float(np.min(positions)) < 0:
            return "the backend declares non-negative positions only"
        if self.bases is not None and float(base) not in self.bases:
            return f"the backend declares bases {list(self.bases)}; base {base!r} is not one"
        if self.max_d_model is not None and d_model > self.max_d_model:
            return f"the backend declares max_d_model={self.max_d_model}; d_model is {d_model}"
        if (
            self.max_position is not None
            and positions.size
            and not bool(np.all(magnitude_within(positions, self.max_position)))
        ):
            return f"the backend declares max_position={self.max_position}"
        return None


SinusoidalCapabilities = Capabilities
"""The sinusoidal family's capabilities (``Capabilities``, its old name, stays for old code)."""


def as_sinusoidal(backend: Backend) -> Backend:
    """``backend``, with capabilities of the sinusoidal type: a Backend built with none (the
    engine's shared fields only) gets :class:`Capabilities` of the same shared values, as it
    always did; any other is returned as it is."""
    caps = backend.capabilities
    if type(caps) is not BackendCapabilities:
        return backend
    shared = {f.name: getattr(caps, f.name) for f in fields(BackendCapabilities)}
    return replace(backend, capabilities=Capabilities(**shared))
