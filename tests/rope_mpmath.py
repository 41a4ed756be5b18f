"""A plain mpmath transcription of SPEC §8.3 (the rotary schedules), for testing.

Shares nothing with pespec but the configuration value: ``mpmath.power``, ``mpmath.log``
and Python's floor/ceil on values at the current mpmath precision.
"""

from __future__ import annotations

import math

import mpmath

from pespec.rope import RopeConfig


def mp_schedule(config: RopeConfig) -> tuple[list[mpmath.mpf], mpmath.mpf]:
    """ω'_j and A of SPEC §8.3, transcribed in mpmath at the current precision."""
    mpf = mpmath.mpf
    d_r, theta = config.d_r, mpf(config.theta)
    omega = [mpmath.power(theta, mpf(-2 * j) / d_r) for j in range(d_r // 2)]
    one = mpf(1)
    kind = config.rope_type
    if kind == "linear":
        return [w / mpf(config.factor) for w in omega], one
    if kind == "dynamic":
        assert config.seq_len and config.max_position_embeddings and config.factor
        if config.seq_len > config.max_position_embeddings:
            s = mpf(config.factor)
            base = theta * (s * config.seq_len / config.max_position_embeddings - (s - 1)) ** (
                mpf(d_r) / (d_r - 2))
            omega = [mpmath.power(base, mpf(-2 * j) / d_r) for j in range(d_r // 2)]
        return omega, one
    if kind == "yarn":
        s, l0 = mpf(config.factor), mpf(config.original_max_position_embeddings)
        assert config.beta_fast is not None and config.beta_slow is not None

        def dim(beta: float) -> mpmath.mpf:
            return d_r * mpmath.log(l0 / (2 * mpmath.pi * mpf(beta))) / (2 * mpmath.log(theta))

        low, high = dim(config.beta_fast), dim(config.beta_slow)
        if config.truncate:
            low, high = mpf(math.floor(low)), mpf(math.ceil(high))
        low, high = max(low, mpf(0)), min(high, mpf(d_r - 1))
        if low == high:
            high += mpf(1) / 1000
        out = []
        for j, w in enumerate(omega):
            r = min(max((j - low) / (high - low), mpf(0)), one)
            out.append(w / s * r + w * (1 - r))

        def g(m: float) -> mpmath.mpf:
            return one if s <= 1 else mpf(m) * mpmath.log(s) / 10 + 1

        if config.attention_factor is not None:
            attention = mpf(config.attention_factor)
        elif config.mscale and config.mscale_all_dim:
            attention = g(config.mscale) / g(config.mscale_all_dim)
        else:
            attention = g(1.0)
        return out, attention
    if kind == "llama3":
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
        return out, one
    if kind == "longrope":
        assert config.seq_len and config.original_max_position_embeddings
        l0 = config.original_max_position_embeddings
        factors = config.long_factor if config.seq_len > l0 else config.short_factor
        assert factors is not None
        out = [w / mpf(f) for w, f in zip(omega, factors, strict=True)]
        s = mpf(config.max_position_embeddings) / l0
        attention = mpmath.sqrt(1 + mpmath.log(s) / mpmath.log(l0)) if s > 1 else one
        return out, attention
    return omega, one
