"""The ``linear`` schedule (SPEC §8.3): ω'_j = ω_j/s (position interpolation), A = 1.

Error constant +2 (s rounded, the division; SPEC §8.7). Applied as p/s instead of ω/s it is
the same exact angle, so that is no slip of its own.
"""

from __future__ import annotations

from typing import Any

from pespec.rope.schedules.base import Arith, HfBlock, Schedule, ScheduleConfig, base_omegas

__all__ = ["SCHEDULE", "SPEC_ORDER"]


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    assert config.factor is not None
    return [w / ar.q(config.factor) for w in base_omegas(config, ar)], ar.q(1)


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    return {"factor": source.block.get("factor")}


SPEC_ORDER = 1
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

SCHEDULE = Schedule(
    name="linear",
    required=("factor",),
    optional=(),
    exact=_exact,
    constant=2.0,
    hf_fields=_hf_fields,
)
"""The linear schedule."""
