"""Slips that change the shape of a schedule rather than one of its parameters (Annex D.8).

A YaRN ramp run the wrong way (β_fast and β_slow swapped, or r_j read as 1 − r_j) divides
the fast pairs by s and keeps the slow ones; LongRoPE's per-pair factors multiplied instead
of divided, or read in reverse order. Each is a candidate frequency model (ω'_j in float64)
with the sentence that names it, written by its schedule (``Schedule.shape_slips`` in
:mod:`pespec.rope.schedules`, from SPEC §8.3); two slips that give the same ω'_j are one
candidate whose sentence names both, since the output cannot tell them apart.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.schedules.registry import SCHEDULES

__all__ = ["shape_slips"]

F64 = NDArray[np.float64]


def shape_slips(config: RopeConfig) -> list[tuple[F64, str]]:
    """(ω'_j, sentence) of each shape slip of ``config``'s schedule (none for most)."""
    try:
        return SCHEDULES[config.rope_type].shape_slips(config)
    except (ValueError, ArithmeticError, TypeError):
        return []
