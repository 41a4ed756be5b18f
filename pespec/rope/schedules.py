"""The frequency schedules of SPEC §12.3, evaluated straightforwardly in float64.

:func:`frequencies` returns the d_r/2 rotary frequencies ω'_j (radians per position) and the
attention factor A of a :class:`~pespec.rope.config.RopeConfig`. Each schedule is written as
the formula of SPEC §12.3 reads, in Python float64 arithmetic (``math.log``, ``**``), so the
result carries a few ulps of rounding error; it is not certified. The certified values come
from the oracle (the next part of the rotary specification), which replaces this evaluation.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig

__all__ = ["frequencies", "yarn_correction_dims"]


def _base_frequencies(theta: float, d_r: int) -> list[float]:
    """ω_j = θ^(−2j/d_r), j = 0 .. d_r/2 − 1 (the default schedule)."""
    return [theta ** (-(2 * j) / d_r) for j in range(d_r // 2)]


def _mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's 0.1·m·ln s + 1, and 1 for s <= 1 (transformers' ``get_mscale``)."""
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_dims(config: RopeConfig) -> tuple[float, float]:
    """The unrounded YaRN correction dimensions (c(β_fast), c(β_slow)) in float64.

    c(β) = d_r·ln(L0/(2π·β)) / (2·ln θ), the (fractional) pair index whose wavelength fits
    β times into L0 (SPEC §12.3, YaRN). SPEC §12.4 says how a value within float64 rounding
    of an integer is judged.
    """
    if config.rope_type != "yarn":
        raise ValueError(f"rope_type must be 'yarn' for yarn_correction_dims; "
                         f"got {config.rope_type!r}")
    assert config.original_max_position_embeddings is not None
    assert config.beta_fast is not None and config.beta_slow is not None
    l0, d_r = config.original_max_position_embeddings, config.d_r

    def dim(beta: float) -> float:
        return (d_r * math.log(l0 / (beta * 2 * math.pi))) / (2 * math.log(config.theta))

    return dim(config.beta_fast), dim(config.beta_slow)


def _yarn(config: RopeConfig) -> tuple[list[float], float]:
    assert config.factor is not None
    s, d_r = config.factor, config.d_r
    low, high = yarn_correction_dims(config)
    if config.truncate:
        low, high = float(math.floor(low)), float(math.ceil(high))
    low, high = max(low, 0.0), min(high, float(d_r - 1))
    if low == high:
        high += 0.001  # transformers' guard against a zero-width ramp
    out = []
    for j, omega in enumerate(_base_frequencies(config.theta, d_r)):
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        out.append(omega / s * ramp + omega * (1.0 - ramp))
    if config.attention_factor is not None:
        attention = config.attention_factor
    elif config.mscale and config.mscale_all_dim:
        attention = _mscale(s, config.mscale) / _mscale(s, config.mscale_all_dim)
    else:
        attention = _mscale(s)
    return out, attention


def _llama3(config: RopeConfig) -> list[float]:
    s, low, high = config.factor, config.low_freq_factor, config.high_freq_factor
    l0 = config.original_max_position_embeddings
    assert s is not None and low is not None and high is not None and l0 is not None
    low_wavelength, high_wavelength = l0 / low, l0 / high
    out = []
    for omega in _base_frequencies(config.theta, config.d_r):
        wavelength = 2 * math.pi / omega
        if wavelength < high_wavelength:
            out.append(omega)
        elif wavelength > low_wavelength:
            out.append(omega / s)
        else:
            smooth = (l0 / wavelength - low) / (high - low)
            out.append((1 - smooth) * omega / s + smooth * omega)
    return out


def _longrope(config: RopeConfig) -> tuple[list[float], float]:
    l0, length = config.original_max_position_embeddings, config.seq_len
    assert l0 is not None and length is not None
    factors = config.long_factor if length > l0 else config.short_factor
    assert factors is not None
    d_r = config.d_r
    out = [1.0 / (f * config.theta ** ((2 * j) / d_r)) for j, f in enumerate(factors)]
    if config.attention_factor is not None:
        return out, config.attention_factor
    if config.factor is not None:
        s = config.factor
    elif config.max_position_embeddings is not None:
        s = config.max_position_embeddings / l0
    else:
        s = 1.0
    return out, 1.0 if s <= 1 else math.sqrt(1 + math.log(s) / math.log(l0))


def _dynamic(config: RopeConfig) -> list[float]:
    s, big_l, length = config.factor, config.max_position_embeddings, config.seq_len
    assert s is not None and big_l is not None and length is not None
    d_r, base = config.d_r, config.theta
    if length > big_l:
        base = base * ((s * length / big_l) - (s - 1)) ** (d_r / (d_r - 2))
    return _base_frequencies(base, d_r)


def frequencies(config: RopeConfig) -> tuple[NDArray[np.float64], float]:
    """(ω'_j for j = 0 .. d_r/2 − 1 as a float64 array, attention factor A), SPEC §12.3.

    A straightforward float64 evaluation of the formulas (not certified).
    """
    if not isinstance(config, RopeConfig):
        raise TypeError(f"config must be a pespec.rope.RopeConfig; got {type(config).__name__}")
    attention = 1.0
    kind = config.rope_type
    if kind == "default":
        omegas = _base_frequencies(config.theta, config.d_r)
    elif kind == "linear":
        assert config.factor is not None
        omegas = [omega / config.factor for omega in _base_frequencies(config.theta, config.d_r)]
    elif kind == "dynamic":
        omegas = _dynamic(config)
    elif kind == "yarn":
        omegas, attention = _yarn(config)
    elif kind == "llama3":
        omegas = _llama3(config)
    else:
        omegas, attention = _longrope(config)
    return np.asarray(omegas, dtype=np.float64), float(attention)
