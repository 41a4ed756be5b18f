"""Slips that change the shape of a schedule rather than one of its parameters (Annex D.8).

A YaRN ramp run the wrong way (β_fast and β_slow swapped, or r_j read as 1 − r_j) divides
the fast pairs by s and keeps the slow ones; LongRoPE's per-pair factors multiplied instead
of divided, or read in reverse order. Each is a candidate frequency model (ω'_j in float64,
the formula written once here from SPEC §8.3) with the sentence that names it; two slips
that give the same ω'_j (the swapped betas and the reversed ramp when ``truncate`` is false)
are one candidate whose sentence names both, since the output cannot tell them apart.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig

__all__ = ["shape_slips"]

F64 = NDArray[np.float64]


def _plain(config: RopeConfig) -> F64:
    """θ^(−2j/d_r) in float64."""
    j = np.arange(config.d_r // 2, dtype=np.float64)
    return np.asarray(config.theta ** (-2.0 * j / config.d_r), dtype=np.float64)


def _yarn_ramp(config: RopeConfig, fast: float, slow: float, reverse: bool) -> F64:
    """YaRN's ω'_j with the ramp ends from (``fast``, ``slow``), r_j reversed if asked."""
    assert config.factor is not None and config.original_max_position_embeddings is not None
    d, l0 = config.d_r, config.original_max_position_embeddings

    def dim(beta: float) -> float:
        return d * math.log(l0 / (beta * 2 * math.pi)) / (2 * math.log(config.theta))

    low, high = dim(fast), dim(slow)
    if config.truncate is not False:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)
    if reverse:
        ramp = 1.0 - ramp
    omegas = _plain(config)
    return np.asarray(omegas / config.factor * ramp + omegas * (1.0 - ramp), dtype=np.float64)


def _yarn(config: RopeConfig) -> list[tuple[F64, str]]:
    fast = 32.0 if config.beta_fast is None else config.beta_fast
    slow = 1.0 if config.beta_slow is None else config.beta_slow
    swapped = _yarn_ramp(config, slow, fast, False)
    reversed_ = _yarn_ramp(config, fast, slow, True)
    what = "the fast pairs divided by s, the slow pairs kept"
    beta = f"YaRN's β_fast = {fast:g} and β_slow = {slow:g} swapped ({what})"
    ramp = f"YaRN's ramp reversed: r_j read as 1 − r_j ({what})"
    if np.allclose(swapped, reversed_, rtol=1e-12, atol=0.0):
        both = f"YaRN's ramp reversed ({what}): β_fast = {fast:g} and β_slow = {slow:g} "
        return [(swapped, both + "swapped, or r_j read as 1 − r_j (the same ω here)")]
    return [(swapped, beta), (reversed_, ramp)]


def _longrope(config: RopeConfig) -> list[tuple[F64, str]]:
    assert config.original_max_position_embeddings is not None and config.seq_len is not None
    long = config.seq_len > config.original_max_position_embeddings
    name = "long_factor" if long else "short_factor"
    factors = np.array(getattr(config, name), dtype=np.float64)
    omegas = _plain(config)
    return [
        (omegas * factors, f"LongRoPE's {name} multiplied into ω instead of dividing it"),
        (omegas / factors[::-1], f"LongRoPE's {name} applied in reverse pair order"),
    ]


def shape_slips(config: RopeConfig) -> list[tuple[F64, str]]:
    """(ω'_j, sentence) of each shape slip of ``config``'s schedule (none for the others)."""
    try:
        if config.rope_type == "yarn":
            return _yarn(config)
        if config.rope_type == "longrope":
            return _longrope(config)
    except (ValueError, ArithmeticError, TypeError):
        return []
    return []
