"""The ``dynamic`` NTK schedule (SPEC §8.3): the base rescaled once ℓ exceeds L, A = 1.

θ' = θ·(s·ℓ/L − (s − 1))^(d_r/(d_r − 2)) for ℓ > L (else θ), ω'_j = θ'^(−2j/d_r); d_r >= 4.
Error constant: the base term of θ' plus 1 for its rounding (SPEC §8.7). Slip: the cache
always built at ℓ = s·L (dynamic collapsed to a constant).
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


def _check(config: ScheduleConfig, rotary: int, fields: dict[str, Any]) -> dict[str, Any]:
    if rotary < 4:
        raise ValueError(
            f"rotary_dim must be >= 4 for rope_type 'dynamic' (the exponent "
            f"d_r/(d_r - 2)); got {rotary}"
        )
    return {}


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    s, big_l, length = config.factor, config.max_position_embeddings, config.seq_len
    assert s is not None and big_l is not None and length is not None
    d_r, theta = config.d_r, Fraction(config.theta)
    if length <= big_l:
        return base_omegas(config, ar), ar.q(1)
    ratio = Fraction(s) * Fraction(length, big_l) - (Fraction(s) - 1)
    # θ'^(−2j/d_r) = θ^(−2j/d_r)·ratio^(−2j/(d_r − 2)), exactly
    omegas = [
        ar.power(theta, Fraction(-2 * j, d_r)) * ar.power(ratio, Fraction(-2 * j, d_r - 2))
        for j in range(d_r // 2)
    ]
    return omegas, ar.q(1)


def _float64_base(config: ScheduleConfig) -> float:
    """θ' in float64, as an implementation computes it (the error model's base)."""
    assert config.factor is not None and config.seq_len is not None
    assert config.max_position_embeddings is not None
    base = config.theta
    length, limit, s = config.seq_len, config.max_position_embeddings, config.factor
    if length > limit:
        base = base * (s * length / limit - (s - 1)) ** (config.d_r / (config.d_r - 2))
    return base


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    return {
        "factor": source.block.get("factor"),
        "max_position_embeddings": source.big_l,
        "seq_len": source.seq_len,
    }


def _slips(c: ScheduleConfig) -> list[Slip]:
    assert c.factor is not None and c.max_position_embeddings is not None
    big_l = c.max_position_embeddings
    length = int(c.factor * big_l)
    slips = []
    if length != c.seq_len:
        text = (
            f"dynamic NTK collapsed to a constant: the cache is always "
            f"built at ℓ = s·L = {length} (the config says ℓ = {c.seq_len})"
        )
        slips.append(Slip({"seq_len": length}, text, {"seq_len": length}))
    if c.seq_len is not None and c.seq_len > big_l:
        text = f"dynamic NTK never rescaled: θ unscaled at ℓ = {c.seq_len} > L = {big_l}"
        slips.append(Slip({"seq_len": big_l}, text, {"seq_len": big_l}))
    return slips


def _threshold(config: ScheduleConfig) -> int | None:
    return config.max_position_embeddings


SPEC_ORDER = 2
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

SCHEDULE = Schedule(
    name="dynamic",
    required=("factor", "max_position_embeddings", "seq_len"),
    optional=(),
    exact=_exact,
    constant=1.0,
    hf_fields=_hf_fields,
    check=_check,
    float64_base=_float64_base,
    uses_seq_len=True,
    slips=_slips,
    length_threshold=_threshold,
)
"""The dynamic NTK schedule."""
