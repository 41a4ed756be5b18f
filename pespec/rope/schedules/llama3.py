"""The ``llama3`` schedule (SPEC §8.3): ω_j kept, divided by s, or blended by wavelength.

λ_j = 2π/ω_j against λ_high = L0/f_high and λ_low = L0/f_low: λ_j < λ_high keeps ω_j,
λ_j > λ_low gives ω_j/s, in between σ = (L0/λ_j − f_low)/(f_high − f_low) blends
(1 − σ)·ω_j/s + σ·ω_j. A = 1. Error constant +2, and in the band the smooth factor's error
times (s − 1) (SPEC §8.7).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.schedules.base import (
    THRESHOLD_SLACK,
    Arith,
    HfBlock,
    Schedule,
    ScheduleConfig,
    base_omegas,
    l_for_l0_slip,
)

__all__ = ["SCHEDULE", "SPEC_ORDER"]

F64 = NDArray[np.float64]


def _check(config: ScheduleConfig, rotary: int, fields: dict[str, Any]) -> dict[str, Any]:
    if fields["high_freq_factor"] <= fields["low_freq_factor"]:
        raise ValueError(
            f"high_freq_factor must be > low_freq_factor = "
            f"{fields['low_freq_factor']!r}; got {fields['high_freq_factor']!r}"
        )
    return {}


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    s, f_low, f_high = config.factor, config.low_freq_factor, config.high_freq_factor
    l0 = config.original_max_position_embeddings
    assert s is not None and f_low is not None and f_high is not None and l0 is not None
    s_v, low_v, high_v = ar.q(s), ar.q(f_low), ar.q(f_high)
    out = []

    def margin(w: Any, f: Any) -> Callable[[], Any]:
        return lambda: ar.q(l0) * w - 2 * ar.pi() * f

    for omega in base_omegas(config, ar):
        # λ_j < λ_high ⟺ 2π/ω_j < L0/f_high ⟺ L0·ω_j − 2π·f_high > 0 (never equal: π)
        if ar.positive(margin(omega, high_v)):
            out.append(omega)
        elif not ar.positive(margin(omega, low_v)):
            out.append(omega / s_v)  # λ_j > λ_low
        else:
            sigma = (ar.q(l0) * omega / (2 * ar.pi()) - low_v) / (high_v - low_v)
            out.append((ar.q(1) - sigma) * omega / s_v + sigma * omega)
    return out, ar.q(1)


def _band_term(config: ScheduleConfig, e: F64, k: F64, u: float) -> F64:
    """The smooth factor's error (in units of u) times (s − 1), for pairs near or in the band."""
    assert config.factor is not None
    assert config.low_freq_factor is not None and config.high_freq_factor is not None
    assert config.original_max_position_embeddings is not None
    s = config.factor
    out = np.zeros(e.shape[0], dtype=np.float64)
    low, high = config.low_freq_factor, config.high_freq_factor
    length = config.original_max_position_embeddings
    wavelength = 2 * math.pi * config.theta**e
    band = (wavelength >= length / high * (1 - THRESHOLD_SLACK)) & (
        wavelength <= length / low * (1 + THRESHOLD_SLACK)
    )
    # smooth = (L0/λ − low)/(high − low): L0/λ ≤ high·(1+slack) carries λ's relative
    # error (k + 2: 2π rounded, the division) plus 3 roundings; / (high − low).
    smooth = (high * (1 + THRESHOLD_SLACK) * (k + 5) + 3) / (high - low) + 3
    out[band] = (s - 1) * smooth[band]
    return out


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    return {
        "factor": source.block.get("factor"),
        "original_max_position_embeddings": source.small_l,
        "max_position_embeddings": source.big_l,
        "low_freq_factor": source.block.get("low_freq_factor"),
        "high_freq_factor": source.block.get("high_freq_factor"),
    }


def _context(config: ScheduleConfig) -> tuple[int, str] | None:
    if config.factor is None or config.original_max_position_embeddings is None:
        return None
    n = math.ceil(config.factor * config.original_max_position_embeddings)
    return n, "factor × original_max_position_embeddings"


SPEC_ORDER = 4
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

SCHEDULE = Schedule(
    name="llama3",
    required=("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    optional=("max_position_embeddings",),
    exact=_exact,
    constant=2.0,
    hf_fields=_hf_fields,
    check=_check,
    band_term=_band_term,
    context=_context,
    slips=l_for_l0_slip,
)
"""The Llama 3 schedule."""
