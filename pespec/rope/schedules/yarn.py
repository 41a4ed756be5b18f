"""The ``yarn`` schedule (SPEC §8.3): a ramp between ω_j/s and ω_j, and A = g(s, ·) ratios.

c(β) = d_r·ln(L0/(2π·β))/(2·ln θ); low = ⌊c(β_fast)⌋, high = ⌈c(β_slow)⌉ (unrounded when
``truncate`` is false), clamped to [0, d_r − 1]; r_j = clamp((j − low)/(high − low), 0, 1);
ω'_j = (ω_j/s)·r_j + ω_j·(1 − r_j). A = ``attention_factor``, else g(s, mscale)/g(s,
mscale_all_dim) when both are set, else g(s, 1), with g(s, m) = 0.1·m·ln s + 1 (1 for s ≤ 1).
Constants written in §8.3 (0.1 in g, 0.001 in the zero-width guard) are exact decimals.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.schedules.base import (
    THRESHOLD_SLACK,
    Arith,
    HfBlock,
    Schedule,
    ScheduleConfig,
    Slip,
    base_omegas,
    l_for_l0_slip,
    plain_omegas,
)
from pespec.rope.schedules.fields import check_positive, show, whole_count

__all__ = ["SCHEDULE", "SPEC_ORDER", "yarn_correction_dims"]

F64 = NDArray[np.float64]
_BLOCK_KEYS = ("beta_fast", "beta_slow", "truncate", "attention_factor", "mscale", "mscale_all_dim")


def _check(config: ScheduleConfig, rotary: int, fields: dict[str, Any]) -> dict[str, Any]:
    """β_fast, β_slow (defaults 32 and 1, as transformers) and truncate (default True)."""
    fast = 32.0 if config.beta_fast is None else check_positive("beta_fast", config.beta_fast)
    slow = 1.0 if config.beta_slow is None else check_positive("beta_slow", config.beta_slow)
    if fast <= slow:
        raise ValueError(f"beta_fast must be > beta_slow = {slow!r}; got {fast!r}")
    truncate = True if config.truncate is None else config.truncate
    if not isinstance(truncate, bool):
        raise TypeError(f"truncate must be a bool; got {show(truncate)}")
    return {"beta_fast": fast, "beta_slow": slow, "truncate": truncate}


# ---------------------------------------------------------------------------
# the exact formula (certified arithmetic)


def _g(ar: Arith, scale: Fraction, m: Fraction) -> Any:
    """YaRN's g(s, m) = 0.1·m·ln s + 1 for s > 1, 1 otherwise."""
    if scale <= 1:
        return ar.q(1)
    return ar.q(m / 10) * ar.log(ar.q(scale)) + ar.q(1)


def _bound(ar: Arith, config: ScheduleConfig, beta: float, rounding: str) -> Any:
    """low or high of the YaRN range before clamping: c(β), or its floor/ceiling (exact)."""
    assert config.original_max_position_embeddings is not None
    d_r, l0 = config.d_r, config.original_max_position_embeddings

    def c() -> Any:
        argument = ar.q(Fraction(l0) / Fraction(beta)) / (2 * ar.pi())
        return ar.q(d_r) * ar.log(argument) / (2 * ar.log(ar.q(config.theta)))

    if not config.truncate:
        return c()
    if rounding == "floor":
        return Fraction(ar.floor(c))
    return Fraction(-ar.floor(lambda: -c()))  # ⌈c⌉ = −⌊−c⌋


def _ramp(ar: Arith, j: int, low: Any, high: Any) -> Any:
    """r_j = min(max((j − low)/(high − low), 0), 1), each clamp decided exactly."""
    if isinstance(low, Fraction) and isinstance(high, Fraction):
        return ar.q(min(max((j - low) / (high - low), Fraction(0)), Fraction(1)))
    lo_v = ar.q(low) if isinstance(low, Fraction) else low
    hi_v = ar.q(high) if isinstance(high, Fraction) else high
    if not ar.positive(lambda: ar.q(j) - lo_v):
        return ar.q(0)
    if ar.positive(lambda: ar.q(j) - hi_v):
        return ar.q(1)
    return (ar.q(j) - lo_v) / (hi_v - lo_v)


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    assert config.factor is not None and config.beta_fast is not None
    assert config.beta_slow is not None
    s = Fraction(config.factor)
    low = _bound(ar, config, config.beta_fast, "floor")
    high = _bound(ar, config, config.beta_slow, "ceil")
    top = Fraction(config.d_r - 1)
    if isinstance(low, Fraction):
        low = max(low, Fraction(0))
    elif not ar.positive(lambda: low):
        low = Fraction(0)
    if isinstance(high, Fraction):
        high = min(high, top)
    elif ar.positive(lambda: high - ar.q(top)):
        high = top
    if isinstance(low, Fraction) and isinstance(high, Fraction) and low == high:
        high += Fraction(1, 1000)  # transformers' guard against a zero-width ramp
    omegas = []
    for j, omega in enumerate(base_omegas(config, ar)):
        ramp = _ramp(ar, j, low, high)
        omegas.append(omega / ar.q(s) * ramp + omega * (ar.q(1) - ramp))
    if config.attention_factor is not None:
        attention = ar.q(config.attention_factor)
    elif config.mscale and config.mscale_all_dim:
        attention = _g(ar, s, Fraction(config.mscale)) / _g(ar, s, Fraction(config.mscale_all_dim))
    else:
        attention = _g(ar, s, Fraction(1))
    return omegas, attention


def _exact_attention(config: ScheduleConfig) -> Fraction | None:
    if config.factor == 1.0 or (config.mscale and config.mscale == config.mscale_all_dim):
        return Fraction(1)
    return None


# ---------------------------------------------------------------------------
# float64: the correction dimensions and the error model's ramp term


def yarn_correction_dims(config: ScheduleConfig) -> tuple[float, float]:
    """The unrounded YaRN correction dimensions (c(β_fast), c(β_slow)) in float64.

    c(β) = d_r·ln(L0/(2π·β)) / (2·ln θ), the (fractional) pair index whose wavelength fits
    β times into L0 (SPEC §8.3, YaRN). SPEC §8.4 says how a value within float64 rounding
    of an integer is judged.
    """
    if config.rope_type != "yarn":
        raise ValueError(
            f"rope_type must be 'yarn' for yarn_correction_dims; got {config.rope_type!r}"
        )
    assert config.original_max_position_embeddings is not None
    assert config.beta_fast is not None and config.beta_slow is not None
    l0, d_r = config.original_max_position_embeddings, config.d_r

    def dim(beta: float) -> float:
        return (d_r * math.log(l0 / (beta * 2 * math.pi))) / (2 * math.log(config.theta))

    return dim(config.beta_fast), dim(config.beta_slow)


def _band_term(config: ScheduleConfig, e: F64, k: F64, u: float) -> F64:
    """The ramp's error (in units of u) times (s − 1), for pairs near or in the ramp."""
    assert config.factor is not None
    s = config.factor
    half = e.shape[0]
    out = np.zeros(half, dtype=np.float64)
    low_dim, high_dim = yarn_correction_dims(config)
    if high_dim == low_dim:
        high_dim += 0.001
    ramp = (np.arange(half, dtype=np.float64) - low_dim) / (high_dim - low_dim)
    band = (ramp > -THRESHOLD_SLACK) & (ramp < 1 + THRESHOLD_SLACK)
    # ramp = (j − low)/(high − low): low rounded (|low|·u), the subtraction, high − low rounded,
    # the division; low/high themselves carry float64 log errors (4 ulp of each, in u64).
    span = high_dim - low_dim
    error = (abs(low_dim) + 2 * abs(high_dim)) / span + 4.0
    error += 4 * 2.0**-53 / u * (abs(low_dim) + abs(high_dim)) / span
    out[band] = (s - 1) * error
    return out


# ---------------------------------------------------------------------------
# config.json, context, diagnosis


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    big_l, small_l = source.big_l, source.small_l
    if small_l is None:
        small_l = big_l  # transformers 4: L0 defaults to max_position_embeddings
    out: dict[str, Any] = {
        "factor": source.block.get("factor"),
        "original_max_position_embeddings": small_l,
        "max_position_embeddings": big_l,
    }
    if out["factor"] is None and big_l and small_l:
        out["factor"] = whole_count("max_position_embeddings", big_l) / whole_count(
            "original_max_position_embeddings", small_l
        )
    for key in _BLOCK_KEYS:
        out[key] = source.block.get(key)
    return out


def _context(config: ScheduleConfig) -> tuple[int, str] | None:
    if config.factor is None or config.original_max_position_embeddings is None:
        return None
    n = math.ceil(config.factor * config.original_max_position_embeddings)
    return n, "factor × original_max_position_embeddings"


def _slips(c: ScheduleConfig) -> list[Slip]:
    flipped = not c.truncate
    truncate = Slip(
        {"truncate": flipped},
        f"YaRN truncate taken as {flipped} (the config says {c.truncate})",
        {"truncate": flipped},
    )
    return [truncate, *l_for_l0_slip(c)]


def _plain_g(scale: float, m: float) -> float:
    """YaRN's g(s, m) = 0.1·m·ln s + 1 (1 for s ≤ 1) in float64."""
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


def _attention_slips(config: ScheduleConfig, exact: float) -> list[tuple[float, str]]:
    """The mscale ratio read as plain g(s, 1), or as g(s, mscale) alone."""
    if config.factor is None or not (
        config.mscale and config.mscale_all_dim and config.attention_factor is None
    ):
        return []
    plain = _plain_g(config.factor, 1.0)
    alone = _plain_g(config.factor, config.mscale)
    return [
        (
            plain,
            f"the attention factor taken as 0.1·ln s + 1 = {plain:.6g} instead of the "
            f"mscale ratio g(s, mscale)/g(s, mscale_all_dim) = {exact:.6g}",
        ),
        (
            alone,
            f"the attention factor taken as g(s, mscale) = {alone:.6g}, mscale_all_dim ignored",
        ),
    ]


SPEC_ORDER = 3
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

# the shape slips of the diagnosis (Annex D.8), written from SPEC §8.3 in float64


def _yarn_ramp(config: ScheduleConfig, fast: float, slow: float, reverse: bool) -> F64:
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
    omegas = plain_omegas(config)
    return np.asarray(omegas / config.factor * ramp + omegas * (1.0 - ramp), dtype=np.float64)


def _shape_slips(config: ScheduleConfig) -> list[tuple[F64, str]]:
    """β_fast/β_slow swapped, or the ramp r_j read as 1 − r_j (one candidate when equal)."""
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


SCHEDULE = Schedule(
    name="yarn",
    required=("factor", "original_max_position_embeddings"),
    optional=(
        "beta_fast",
        "beta_slow",
        "truncate",
        "attention_factor",
        "mscale",
        "mscale_all_dim",
        "max_position_embeddings",
    ),
    exact=_exact,
    constant=5.0,
    hf_fields=_hf_fields,
    check=_check,
    exact_attention=_exact_attention,
    band_term=_band_term,
    context=_context,
    slips=_slips,
    shape_slips=_shape_slips,
    attention_slips=_attention_slips,
)
"""The YaRN schedule."""
