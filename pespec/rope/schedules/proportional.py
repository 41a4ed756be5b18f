"""The ``proportional`` schedule (SPEC §8.3): Gemma 4's partial rotary over the full head.

ω'_j = θ^(−2j/d_r)/s for j < k, ω'_j = 0 for k <= j < d_r/2 (those pairs pass through);
k = ``rotated_pairs``, s = ``factor`` (1 when absent), A = 1. Unlike partial rotary
(d_r < head_dim, ω over d_r), the pairs span the whole rotated width d_r (transformers'
``rotate_half`` on the full head: pair j is (j, j + d_r/2)) and the ω denominator is d_r,
not 2k. transformers ``_compute_proportional_rope_parameters``: k =
``int(partial_rotary_factor * head_dim // 2)``, zeros appended, all divided by ``factor``;
mlx-lm ``ProportionalRoPE``: 2k = ``int(dims * partial_rotary_factor)`` rounded up to even,
``inf`` periods appended (SPEC Annex F.5). Error constant +2 (s rounded, the division).
Slips: k off by one (the two libraries' roundings), ω over 2k instead of d_r.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pespec.rope.schedules.base import (
    Arith,
    HfBlock,
    Schedule,
    ScheduleConfig,
    Slip,
    base_omegas,
)
from pespec.rope.schedules.fields import check_int, check_real, whole_count

__all__ = ["SCHEDULE", "SPEC_ORDER", "transformers_rotated_pairs"]


def _check(config: ScheduleConfig, rotary: int, fields: dict[str, Any]) -> dict[str, Any]:
    pairs = check_int("rotated_pairs", config.rotated_pairs, 0)
    if pairs > rotary // 2:
        raise ValueError(
            f"rotated_pairs must be an int with 0 <= rotated_pairs <= d_r/2 = {rotary // 2}; "
            f"got {pairs}"
        )
    return {"rotated_pairs": pairs}


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    assert config.rotated_pairs is not None
    s = ar.q(Fraction(config.factor) if config.factor is not None else 1)
    base = base_omegas(config, ar)
    omegas = [w / s if j < config.rotated_pairs else ar.q(0) for j, w in enumerate(base)]
    return omegas, ar.q(1)


def transformers_rotated_pairs(fraction: Any, head_dim: int) -> int:
    """k = ``int(partial_rotary_factor * head_dim // 2)`` in float64, as transformers."""
    value = check_real("partial_rotary_factor", fraction, "a number in [0, 1]")
    if not 0 <= value <= 1:
        raise ValueError(f"partial_rotary_factor must be a number in [0, 1]; got {value!r}")
    return int(value * head_dim // 2)


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    """d_r = the head (the pairs span it), k from ``partial_rotary_factor`` (default 1)."""
    assert source.head_dim is not None
    head_dim = whole_count("head_dim", source.head_dim, 2)
    fraction = source.block.get("partial_rotary_factor")
    return {
        "rotary_dim": head_dim,
        "factor": source.block.get("factor"),
        "rotated_pairs": transformers_rotated_pairs(
            1.0 if fraction is None else fraction, head_dim
        ),
    }


def _slips(c: ScheduleConfig) -> list[Slip]:
    assert c.rotated_pairs is not None
    out = []
    for pairs in (c.rotated_pairs + 1, c.rotated_pairs - 1):
        if 0 <= pairs <= c.d_r // 2:
            text = f"{pairs} pairs rotated instead of rotated_pairs = {c.rotated_pairs}"
            out.append(Slip({"rotated_pairs": pairs}, text, {"rotated_pairs": pairs}))
    k = c.rotated_pairs
    if 2 <= k < c.d_r // 2:
        s = 1.0 if c.factor is None else c.factor
        narrow = [c.theta ** (-2 * j / (2 * k)) / s for j in range(k)]
        omegas = tuple(narrow + [0.0] * (c.d_r // 2 - k))
        text = (
            f"ω computed over 2k = {2 * k} instead of d_r = {c.d_r} (proportional read as partial)"
        )
        out.append(Slip({"rope_type": "custom", "omegas": omegas}, text, {"omega_dim": 2 * k}))
    return out


SPEC_ORDER = 7
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

SCHEDULE = Schedule(
    name="proportional",
    required=("rotated_pairs",),
    optional=("factor",),
    exact=_exact,
    constant=2.0,
    hf_fields=_hf_fields,
    check=_check,
    slips=_slips,
)
"""The proportional schedule."""
