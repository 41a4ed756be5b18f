"""The ``default`` schedule (SPEC §8.3): ω_j = θ^(−2j/d_r), A = 1.

No parameters; the error constant is the base term of SPEC §8.7 alone.
"""

from __future__ import annotations

from typing import Any

from pespec.rope.schedules.base import Arith, HfBlock, Schedule, ScheduleConfig, base_omegas

__all__ = ["SCHEDULE", "SPEC_ORDER"]


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    return base_omegas(config, ar), ar.q(1)


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    return {}


SPEC_ORDER = 0
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

SCHEDULE = Schedule(
    name="default", required=(), optional=(), exact=_exact, constant=0.0, hf_fields=_hf_fields
)
"""The default schedule."""
