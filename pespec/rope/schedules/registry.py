"""The registry of frequency schedules (SPEC §8.3) and the names a RopeConfig may use.

:data:`SCHEDULES` maps each ``rope_type`` (named as transformers names it) to its
:class:`~pespec.rope.schedules.base.Schedule`; the generic code (``RopeConfig``, the
``config.json`` reader, the oracle, the error model, the diagnosis) iterates it or looks a
schedule up with :func:`schedule_of`. The registry finds the schedules itself: every module
of this package with a ``SCHEDULE`` (and its ``SPEC_ORDER``), so adding a schedule is one
module in this folder and edits no file here.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from pespec.rope.schedules.base import Schedule

__all__ = [
    "OUTPUT_LAYOUTS",
    "PAIRINGS",
    "ROPE_TYPES",
    "SCHEDULES",
    "SEQ_LEN_RULES",
    "schedule_of",
]


def _discovered() -> dict[str, Schedule]:
    """Every ``SCHEDULE`` of this package's modules, by name, in ``SPEC_ORDER``."""
    package = __name__.rpartition(".")[0]
    path = importlib.import_module(package).__path__
    found: list[tuple[int, Schedule]] = []
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        module = importlib.import_module(f"{package}.{info.name}")
        schedule = getattr(module, "SCHEDULE", None)
        if isinstance(schedule, Schedule):
            found.append((int(module.SPEC_ORDER), schedule))
    orders = [order for order, _ in found]
    if len(set(orders)) != len(orders):
        raise RuntimeError(f"two rotary schedules share a SPEC_ORDER: {sorted(orders)}")
    return {schedule.name: schedule for _, schedule in sorted(found, key=lambda f: f[0])}


SCHEDULES: Final[Mapping[str, Schedule]] = MappingProxyType(_discovered())
"""Every schedule, in the order SPEC §8.3 lists them."""

ROPE_TYPES: Final = tuple(SCHEDULES)
"""The frequency schedules of SPEC §8.3, named as transformers names them."""

PAIRINGS: Final = ("halves", "interleaved", "interleaved_in_halves_out")
"""How the rotary dimensions form pairs (SPEC §8.1)."""

OUTPUT_LAYOUTS: Final = ("halves", "interleaved")
"""Where a pair's two outputs may be written when declared apart from the pairing (§8.2)."""

SEQ_LEN_RULES: Final = ("per-call",)
"""How ℓ may be declared instead of a fixed ``seq_len`` (SPEC Annex G.1): each call's largest
position + 1."""


def schedule_of(rope_type: str) -> Schedule:
    """The schedule named ``rope_type``; ValueError naming the allowed ones otherwise."""
    try:
        return SCHEDULES[rope_type]
    except (KeyError, TypeError):
        raise ValueError(
            f"rope_type must be one of {list(ROPE_TYPES)}; got {rope_type!r:.60}"
        ) from None
