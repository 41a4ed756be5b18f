"""The ``custom`` schedule (SPEC §8.3): the frequencies given explicitly, one per pair.

ω'_j = ``omegas``[j] (d_r/2 finite float64 values >= 0, taken exactly), A =
``attention_factor`` (1 when absent). Covers frequencies no formula here produces: "pixel"
and "constant" frequencies (rotary-embedding-torch ``freqs_for``), learned frequencies, and
cos/sin caches handed to an operator (ONNX ``RotaryEmbedding``), whose ω the caller knows.
Error constant: the given ω' rounded once to the phase dtype (K_j = 1, no pow; SPEC §8.7).
Slips: the list applied in reverse order, the list read as periods 1/ω.
"""

from __future__ import annotations

from typing import Any

from pespec.rope.schedules.base import Arith, HfBlock, Schedule, ScheduleConfig, Slip
from pespec.rope.schedules.fields import check_real, show

__all__ = ["SCHEDULE", "SPEC_ORDER"]


def _check(config: ScheduleConfig, rotary: int, fields: dict[str, Any]) -> dict[str, Any]:
    values: Any = config.omegas
    pairs = rotary // 2
    allowed = f"a sequence of {pairs} finite real numbers >= 0 (one per pair, d_r/2)"
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"omegas must be {allowed}; got {show(values)}")
    if len(values) != pairs:
        raise ValueError(f"omegas must be {allowed}; got {len(values)} entries")
    out = []
    for index, value in enumerate(values):
        number = check_real(f"omegas[{index}]", value, "a finite real number >= 0")
        if number < 0:
            raise ValueError(f"omegas[{index}] must be a finite real number >= 0; got {number!r}")
        out.append(number)
    return {"omegas": tuple(out)}


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    assert config.omegas is not None
    attention = 1 if config.attention_factor is None else config.attention_factor
    return [ar.q(w) for w in config.omegas], ar.q(attention)


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    """pespec's own block: ``{"rope_type": "custom", "omegas": [...], "attention_factor"}``."""
    return {
        "omegas": source.block.get("omegas"),
        "attention_factor": source.block.get("attention_factor"),
    }


def _slips(c: ScheduleConfig) -> list[Slip]:
    assert c.omegas is not None
    out = []
    backwards = tuple(reversed(c.omegas))
    if backwards != c.omegas:
        out.append(Slip({"omegas": backwards}, "the frequency list applied in reverse order", {}))
    if all(w > 0 for w in c.omegas):
        periods = tuple(1.0 / w for w in c.omegas)
        if periods != c.omegas:
            text = "the frequency list read as periods 1/ω (as mlx.fast.rope's freqs)"
            out.append(Slip({"omegas": periods}, text, {}))
    return out


SPEC_ORDER = 8
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

SCHEDULE = Schedule(
    name="custom",
    required=("omegas",),
    optional=("attention_factor",),
    exact=_exact,
    constant=0.0,
    hf_fields=_hf_fields,
    check=_check,
    slips=_slips,
    computed=False,
)
"""The custom schedule."""
