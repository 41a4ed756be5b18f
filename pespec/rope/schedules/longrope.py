"""The ``longrope`` schedule (SPEC §8.3): one rescale factor per pair, short or long.

ω'_j = ω_j/f_j with f = ``long_factor`` when ℓ > L0, else ``short_factor``. A =
``attention_factor``, else sqrt(1 + ln s/ln L0) with s = ``factor`` (else L/L0, else 1) when
s > 1, else 1. Error constant +2 (factor rounded, the product; SPEC §8.7). Slip: the other
factor list used at ℓ.
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

__all__ = ["SCHEDULE", "SPEC_ORDER"]


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    l0, length = config.original_max_position_embeddings, config.seq_len
    assert l0 is not None and length is not None
    factors = config.long_factor if length > l0 else config.short_factor
    assert factors is not None
    omegas = [w / ar.q(f) for w, f in zip(base_omegas(config, ar), factors, strict=True)]
    if config.attention_factor is not None:
        return omegas, ar.q(config.attention_factor)
    if config.factor is not None:
        s = Fraction(config.factor)
    elif config.max_position_embeddings is not None:
        s = Fraction(config.max_position_embeddings, l0)
    else:
        s = Fraction(1)
    if s <= 1:
        return omegas, ar.q(1)
    if l0 == 1:
        raise ValueError(
            "original_max_position_embeddings must be > 1 for longrope with a "
            "factor > 1: A = sqrt(1 + ln s / ln L0) divides by ln 1 = 0"
        )
    return omegas, ar.sqrt(ar.q(1) + ar.log(ar.q(s)) / ar.log(ar.q(l0)))


def _no_rational_attention(config: ScheduleConfig) -> Fraction | None:
    return None


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    return {
        "factor": source.block.get("factor"),
        "original_max_position_embeddings": source.small_l,
        "max_position_embeddings": source.big_l,
        "attention_factor": source.block.get("attention_factor"),
        "seq_len": source.seq_len,
        "short_factor": source.block.get("short_factor"),
        "long_factor": source.block.get("long_factor"),
    }


def _context(config: ScheduleConfig) -> tuple[int, str] | None:
    if config.original_max_position_embeddings is None:
        return None
    return config.original_max_position_embeddings, "original_max_position_embeddings"


def _slips(c: ScheduleConfig) -> list[Slip]:
    assert c.original_max_position_embeddings is not None and c.seq_len is not None
    l0 = c.original_max_position_embeddings
    other = l0 + 1 if c.seq_len <= l0 else l0
    which = "long" if other > l0 else "short"
    text = f"LongRoPE's {which}_factor used at ℓ = {c.seq_len}"
    return [Slip({"seq_len": other}, text, {"seq_len": other})]


SPEC_ORDER = 5
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

SCHEDULE = Schedule(
    name="longrope",
    required=("original_max_position_embeddings", "seq_len", "short_factor", "long_factor"),
    optional=("factor", "attention_factor", "max_position_embeddings"),
    exact=_exact,
    constant=2.0,
    hf_fields=_hf_fields,
    exact_attention=_no_rational_attention,
    uses_seq_len=True,
    context=_context,
    slips=_slips,
)
"""The LongRoPE schedule."""
