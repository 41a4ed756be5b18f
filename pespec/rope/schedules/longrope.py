"""The ``longrope`` schedule (SPEC §8.3): one rescale factor per pair, short or long.

ω'_j = ω_j/f_j with f = ``long_factor`` when ℓ > L0, else ``short_factor``. A =
``long_mscale`` when ℓ > L0, else ``short_mscale`` where both are given (PhiMoE: they take
the place of ``attention_factor``), else ``attention_factor``, else sqrt(1 + ln s/ln L0) with
s = ``factor`` (else L/L0, else 1) when s > 1, else 1. Error constant +2 (factor rounded, the
product; SPEC §8.7). Slips: the other factor list used at ℓ; the mscales swapped (A).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.schedules.base import (
    Arith,
    HfBlock,
    Schedule,
    ScheduleConfig,
    Slip,
    base_omegas,
    plain_omegas,
)

__all__ = ["SCHEDULE", "SPEC_ORDER"]

F64 = NDArray[np.float64]


def _check(config: ScheduleConfig, rotary: int, fields: dict[str, Any]) -> dict[str, Any]:
    given = [n for n in ("short_mscale", "long_mscale") if getattr(config, n) is not None]
    if len(given) == 1:
        raise ValueError(
            f"short_mscale and long_mscale must be given together (A per regime, SPEC §8.3 "
            f"longrope); got only {given[0]} = {getattr(config, given[0])!r}"
        )
    if given and config.attention_factor is not None:
        raise ValueError(
            "attention_factor must be None when short_mscale and long_mscale are given (they "
            f"are A, as PhiMoE reads them); got attention_factor = {config.attention_factor!r}"
        )
    return {}


def _mscale(config: ScheduleConfig) -> float | None:
    """A of the regime ℓ falls in when short_mscale / long_mscale are given, else None."""
    l0, length = config.original_max_position_embeddings, config.seq_len
    if config.short_mscale is None or config.long_mscale is None:
        return None
    assert l0 is not None and length is not None
    return config.long_mscale if length > l0 else config.short_mscale


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    l0, length = config.original_max_position_embeddings, config.seq_len
    assert l0 is not None and length is not None
    factors = config.long_factor if length > l0 else config.short_factor
    assert factors is not None
    omegas = [w / ar.q(f) for w, f in zip(base_omegas(config, ar), factors, strict=True)]
    mscale = _mscale(config)
    if mscale is not None:
        return omegas, ar.q(mscale)
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


def _exact_attention(config: ScheduleConfig) -> Fraction | None:
    mscale = _mscale(config)
    return None if mscale is None else Fraction(mscale)


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    block = source.block
    pair = block.get("short_mscale") is not None and block.get("long_mscale") is not None
    return {
        "factor": block.get("factor"),
        "original_max_position_embeddings": source.small_l,
        "max_position_embeddings": source.big_l,
        # PhiMoE's rotary module takes A from the pair and never reads attention_factor
        "attention_factor": None if pair else block.get("attention_factor"),
        "seq_len": source.seq_len,
        "short_factor": block.get("short_factor"),
        "long_factor": block.get("long_factor"),
        "short_mscale": block.get("short_mscale") if pair else None,
        "long_mscale": block.get("long_mscale") if pair else None,
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


def _attention_slips(config: ScheduleConfig, exact: float) -> list[tuple[float, str]]:
    """The other regime's mscale as A: short_mscale and long_mscale swapped."""
    short, long, l0 = (
        config.short_mscale,
        config.long_mscale,
        config.original_max_position_embeddings,
    )
    if short is None or long is None or short == long or config.seq_len is None:
        return []
    is_long = l0 is not None and config.seq_len > l0
    used, name = (short, "short_mscale") if is_long else (long, "long_mscale")
    return [
        (
            used,
            f"A = {name} = {used:.6g} used at ℓ = {config.seq_len} instead of {exact:.6g} "
            "(short_mscale and long_mscale swapped)",
        )
    ]


def _threshold(config: ScheduleConfig) -> int | None:
    return config.original_max_position_embeddings


SPEC_ORDER = 5
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

# the shape slips of the diagnosis (Annex D.8), written from SPEC §8.3 in float64


def _shape_slips(config: ScheduleConfig) -> list[tuple[F64, str]]:
    """The factors multiplied into ω instead of dividing it, or read in reverse pair order."""
    assert config.original_max_position_embeddings is not None and config.seq_len is not None
    long = config.seq_len > config.original_max_position_embeddings
    name = "long_factor" if long else "short_factor"
    factors = np.array(getattr(config, name), dtype=np.float64)
    omegas = plain_omegas(config)
    return [
        (omegas * factors, f"LongRoPE's {name} multiplied into ω instead of dividing it"),
        (omegas / factors[::-1], f"LongRoPE's {name} applied in reverse pair order"),
    ]


SCHEDULE = Schedule(
    name="longrope",
    required=("original_max_position_embeddings", "seq_len", "short_factor", "long_factor"),
    optional=(
        "factor",
        "attention_factor",
        "max_position_embeddings",
        "short_mscale",
        "long_mscale",
    ),
    exact=_exact,
    constant=2.0,
    hf_fields=_hf_fields,
    check=_check,
    exact_attention=_exact_attention,
    attention_slips=_attention_slips,
    length_threshold=_threshold,
    uses_seq_len=True,
    context=_context,
    slips=_slips,
    shape_slips=_shape_slips,
)
"""The LongRoPE schedule."""
