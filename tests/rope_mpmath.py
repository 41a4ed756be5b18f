"""A plain mpmath transcription of SPEC §8.3 (the rotary schedules), for testing.

Shares nothing with pespec but the configuration value: ``mpmath.power``, ``mpmath.log``
and Python's floor/ceil on values at the current mpmath precision. One function per
``rope_type`` (``_SCHEDULES``), each mapping the unscaled ω_j to ω'_j and A.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath

from pespec.rope import RopeConfig

Schedule = tuple[list[mpmath.mpf], mpmath.mpf]


def mp_schedule(config: RopeConfig) -> Schedule:
    """ω'_j and A of SPEC §8.3, transcribed in mpmath at the current precision."""
    omega = _omega(mpmath.mpf(config.theta), config.d_r)
    schedule = _SCHEDULES.get(config.rope_type)
    if schedule is None:  # "default": ω unscaled
        return omega, mpmath.mpf(1)
    return schedule(config, omega)


def _omega(base: mpmath.mpf, d_r: int) -> list[mpmath.mpf]:
    """ω_j = base^(−2j/d_r), j < d_r/2."""
    return [mpmath.power(base, mpmath.mpf(-2 * j) / d_r) for j in range(d_r // 2)]


def _linear(config: RopeConfig, omega: list[mpmath.mpf]) -> Schedule:
    return [w / mpmath.mpf(config.factor) for w in omega], mpmath.mpf(1)


def _dynamic(config: RopeConfig, omega: list[mpmath.mpf]) -> Schedule:
    """NTK: past max_position_embeddings, ω of the enlarged base θ·(s·ℓ/L − (s − 1))^(d/(d−2))."""
    mpf = mpmath.mpf
    assert config.seq_len and config.max_position_embeddings and config.factor
    if config.seq_len > config.max_position_embeddings:
        d_r, s = config.d_r, mpf(config.factor)
        base = mpf(config.theta) * (
            s * config.seq_len / config.max_position_embeddings - (s - 1)
        ) ** (mpf(d_r) / (d_r - 2))
        omega = _omega(base, d_r)
    return omega, mpf(1)


def _yarn(config: RopeConfig, omega: list[mpmath.mpf]) -> Schedule:
    """ω_j/s·r_j + ω_j·(1 − r_j) with the ramp r_j between the β dimensions, and A."""
    mpf = mpmath.mpf
    low, high = _yarn_ramp_ends(config)
    s, one = mpf(config.factor), mpf(1)
    out = []
    for j, w in enumerate(omega):
        r = min(max((j - low) / (high - low), mpf(0)), one)
        out.append(w / s * r + w * (1 - r))
    return out, _yarn_attention(config)


def _yarn_ramp_ends(config: RopeConfig) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The dimensions of β_fast and β_slow: truncated when asked, clamped to [0, d_r − 1],
    high moved up by 1/1000 when they meet."""
    mpf = mpmath.mpf
    d_r, theta = config.d_r, mpf(config.theta)
    l0 = mpf(config.original_max_position_embeddings)
    assert config.beta_fast is not None and config.beta_slow is not None

    def dim(beta: float) -> mpmath.mpf:
        return d_r * mpmath.log(l0 / (2 * mpmath.pi * mpf(beta))) / (2 * mpmath.log(theta))

    low, high = dim(config.beta_fast), dim(config.beta_slow)
    if config.truncate:
        low, high = mpf(math.floor(low)), mpf(math.ceil(high))
    low, high = max(low, mpf(0)), min(high, mpf(d_r - 1))
    if low == high:
        high += mpf(1) / 1000
    return low, high


def _yarn_attention(config: RopeConfig) -> mpmath.mpf:
    """A: attention_factor when given, else g(mscale)/g(mscale_all_dim), else g(1), with
    g(m) = m·ln(s)/10 + 1 (1 when s ≤ 1)."""
    mpf = mpmath.mpf
    s, one = mpf(config.factor), mpf(1)

    def g(m: float) -> mpmath.mpf:
        return one if s <= 1 else mpf(m) * mpmath.log(s) / 10 + 1

    if config.attention_factor is not None:
        return mpf(config.attention_factor)
    if config.mscale and config.mscale_all_dim:
        return g(config.mscale) / g(config.mscale_all_dim)
    return g(1.0)


def _llama3(config: RopeConfig, omega: list[mpmath.mpf]) -> Schedule:
    """By wavelength 2π/ω: unscaled below L0/f_high, ω/s above L0/f_low, blended between."""
    mpf = mpmath.mpf
    s, l0 = mpf(config.factor), mpf(config.original_max_position_embeddings)
    f_low, f_high = mpf(config.low_freq_factor), mpf(config.high_freq_factor)
    out = []
    for w in omega:
        wavelength = 2 * mpmath.pi / w
        if wavelength < l0 / f_high:
            out.append(w)
        elif wavelength > l0 / f_low:
            out.append(w / s)
        else:
            sigma = (l0 / wavelength - f_low) / (f_high - f_low)
            out.append((1 - sigma) * w / s + sigma * w)
    return out, mpf(1)


def _longrope(config: RopeConfig, omega: list[mpmath.mpf]) -> Schedule:
    """ω_j/f_j with the long factors past L0 (the short ones up to it); A = long_mscale past
    L0 (short_mscale up to it) when both are given, else attention_factor, else
    √(1 + ln s/ln L0) with s = factor (else L/L0)."""
    mpf = mpmath.mpf
    assert config.seq_len and config.original_max_position_embeddings
    l0 = config.original_max_position_embeddings
    long = config.seq_len > l0
    factors = config.long_factor if long else config.short_factor
    assert factors is not None
    out = [w / mpf(f) for w, f in zip(omega, factors, strict=True)]
    if config.short_mscale is not None and config.long_mscale is not None:
        return out, mpf(config.long_mscale if long else config.short_mscale)
    if config.attention_factor is not None:
        return out, mpf(config.attention_factor)
    s = mpf(config.factor) if config.factor else mpf(config.max_position_embeddings) / l0
    attention = mpmath.sqrt(1 + mpmath.log(s) / mpmath.log(l0)) if s > 1 else mpf(1)
    return out, attention


def _ntk(config: RopeConfig, omega: list[mpmath.mpf]) -> Schedule:
    """Static NTK: ω of the enlarged base θ·s^(d_r/(d_r − 2)) (SPEC §8.3 ``ntk``)."""
    mpf = mpmath.mpf
    d_r = config.d_r
    base = mpf(config.theta) * mpf(config.factor) ** (mpf(d_r) / (d_r - 2))
    return _omega(base, d_r), mpf(1)


def _proportional(config: RopeConfig, omega: list[mpmath.mpf]) -> Schedule:
    """Gemma 4: 1/θ^(2j/d_r) for the first k pairs, zeros after, all divided by s."""
    mpf = mpmath.mpf
    k = config.rotated_pairs
    assert k is not None
    s = mpf(1) if config.factor is None else mpf(config.factor)
    theta = mpf(config.theta)
    rotated = [1 / theta ** (mpf(2 * j) / config.d_r) for j in range(k)]
    return [w / s for w in rotated + [mpf(0)] * (config.d_r // 2 - k)], mpf(1)


def _custom(config: RopeConfig, omega: list[mpmath.mpf]) -> Schedule:
    """The given ω (float64 values, exact) and A (1 when absent)."""
    assert config.omegas is not None
    given = config.attention_factor
    return [mpmath.mpf(w) for w in config.omegas], mpmath.mpf(1 if given is None else given)


_SCHEDULES: dict[str, Callable[[RopeConfig, list[mpmath.mpf]], Schedule]] = {
    "linear": _linear,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "llama3": _llama3,
    "longrope": _longrope,
    "ntk": _ntk,
    "proportional": _proportional,
    "custom": _custom,
}
