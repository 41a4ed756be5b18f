"""The registry of frequency schedules (SPEC §8.3) and the names a RopeConfig may use.

:data:`SCHEDULES` maps each ``rope_type`` (named as transformers names it) to its
:class:`~pespec.rope.schedules.base.Schedule`; the generic code (``RopeConfig``, the
``config.json`` reader, the oracle, the error model, the diagnosis) iterates it or looks a
schedule up with :func:`schedule_of`. Adding a schedule is one module in this folder and one
line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from pespec.rope.schedules import default, dynamic, linear, llama3, longrope, yarn
from pespec.rope.schedules.base import Schedule

__all__ = ["PAIRINGS", "ROPE_TYPES", "SCHEDULES", "schedule_of"]

SCHEDULES: Final[Mapping[str, Schedule]] = MappingProxyType(
    {
        s.name: s
        for s in (
            default.SCHEDULE,
            linear.SCHEDULE,
            dynamic.SCHEDULE,
            yarn.SCHEDULE,
            llama3.SCHEDULE,
            longrope.SCHEDULE,
        )
    }
)
"""Every schedule, in the order SPEC §8.3 lists them."""

ROPE_TYPES: Final = tuple(SCHEDULES)
"""The frequency schedules of SPEC §8.3, named as transformers names them."""

PAIRINGS: Final = ("halves", "interleaved", "interleaved_in_halves_out")
"""How the rotary dimensions form pairs (SPEC §8.1)."""


def schedule_of(rope_type: str) -> Schedule:
    """The schedule named ``rope_type``; ValueError naming the allowed ones otherwise."""
    try:
        return SCHEDULES[rope_type]
    except (KeyError, TypeError):
        raise ValueError(
            f"rope_type must be one of {list(ROPE_TYPES)}; got {rope_type!r:.60}"
        ) from None
