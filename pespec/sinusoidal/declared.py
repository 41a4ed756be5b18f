"""The convention a backend declares, and the golden values for it (SPEC §6.1, §6.2).

A backend is judged against one member of the family of SPEC §3: the canonical encoding by
default, or the convention it declares (``--convention``, ``pespec_capabilities``,
``check(convention=...)``, ``--pe-convention``). For a declared convention the golden stage
uses the shipped ``convention-*`` fixture sets whose convention is equal to it, and the
positions, d_model and base of every canonical fixture set with values certified on the fly
by the oracle for the declared convention; ``golden:timesteps`` adds fractional diffusion
timesteps in the backend's range.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.conventions import Convention, preset

__all__ = [
    "TIMESTEPS",
    "TIMESTEPS_D_MODEL",
    "certified_fixture",
    "resolve_convention",
    "timestep_positions",
]

TIMESTEPS: tuple[float, ...] = (
    0.0, 0.5, 1.0, 20.25, 100.7, 250.0, 499.5, 500.0, 666.6, 937.0, 998.39, 999.0, 1000.0,
)  # fmt: skip
"""Timesteps in 0..1000 as schedulers hand them over (fractional, e.g. linspace(0, 999, n)
gives 998.39…; 937 and 998.39 are the values a bfloat16 cast moves to 936 and 1000)."""

TIMESTEPS_D_MODEL = 256
"""d_model of ``golden:timesteps``: the 256 channels of SD3/PixArt/Flux ``Timesteps``."""


def resolve_convention(value: Any, what: str = "convention") -> Convention:
    """A :class:`Convention` from itself, a preset name (SPEC §3.2–§3.3), a JSON file holding
    ``Convention.to_dict()`` or such a dict; ValueError/TypeError naming ``what`` otherwise."""
    if isinstance(value, Convention):
        return value
    if isinstance(value, dict):
        return Convention.from_dict(value)
    if not isinstance(value, (str, Path)):
        raise TypeError(f"{what} must be a preset name, a JSON file or a Convention; got {value!r}")
    text = str(value)
    if text.lower().endswith(".json"):
        path = Path(text)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{what} file {text!r} cannot be read as JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{what} file {text!r} must hold a JSON object (Convention.to_dict())")
        data.setdefault("name", path.stem)
        try:
            return Convention.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} file {text!r}: {exc}") from None
    try:
        return preset(text)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def certified_fixture(fixture: Any, convention: Convention) -> tuple[Any, str | None]:
    """``fixture`` with its values re-certified by the oracle for ``convention`` (same
    positions, d_model, base and columns), or (None, why) when the convention is undefined
    at the fixture's d_model. A fixture already of ``convention`` keeps its values; it takes
    the declared frequency formula, which fixtures do not store (SPEC §4.1 A8)."""
    if fixture.convention == convention:
        formula = convention.frequency_formula
        if fixture.convention.frequency_formula != formula:
            relabelled = dataclasses.replace(fixture.convention, frequency_formula=formula)
            fixture = dataclasses.replace(fixture, convention=relabelled)
        return fixture, None
    from pespec.sinusoidal.reference import oracle

    try:
        convention.denominator(int(fixture.d_model))
    except ValueError as exc:
        return None, str(exc)
    values = oracle.encode(
        fixture.positions, int(fixture.d_model), base=float(fixture.base), convention=convention
    )[:, np.asarray(fixture.columns, dtype=np.intp)]
    values.flags.writeable = False
    return dataclasses.replace(fixture, convention=convention, values=values), None


def timestep_positions(max_position: float | None) -> NDArray[np.float64]:
    """:data:`TIMESTEPS`, scaled into [0, max_position] when the backend declares a smaller
    range (Flux hands over t in [0, 1]: 0.99839 instead of 998.39)."""
    values = np.array(TIMESTEPS, dtype=np.float64)
    if max_position is not None and max_position < TIMESTEPS[-1]:
        values = values * (float(max_position) / TIMESTEPS[-1])
    return values
