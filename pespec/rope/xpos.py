"""xPos (SPEC §8.2, Annex J): the per-position, per-pair scale of the rotated vector.

A configuration with ``xpos_scale_base`` = b multiplies pair j of the rotated vector at
position p by σ_j(p) = ζ_j^(s·(p − c)/b), ζ_j = (2j + γ·d_r)/((1 + γ)·d_r), s = +1 for
``xpos_role`` "query", −1 for "key"; c = ``xpos_center``, or n//2 for a call of n positions
when it is None (rotary-embedding-torch's ``get_scale``: ``t - len(t) // 2``). The score
⟨σ(m)R(m)q, σ(n)⁻¹R(n)k⟩ depends on m − n only (ζ^((m − c)/b)·ζ^(−(n − c)/b) = ζ^((m − n)/b)).

Three forms: :func:`scale_oracle` (σ correctly rounded to float64, Ziv on mpmath intervals);
:func:`pair_scales` (the float64 reference's σ̂ = exp(fl((p − c)·L_j)), L_j = ln ζ_j / b
correctly rounded, within :func:`reference_scale_error` relative); :func:`backend_scale_error`
(a backend's σ in its stage formats, the term the element bound adds, SPEC Annex J).

Shapes: positions (n,); per-pair arrays (n, d_r/2); per-element arrays (n, head_dim).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

import mpmath
import numpy as np
from mpmath import libmp
from numpy.typing import NDArray

from pespec.numerics.formats import LIBRARY_ULPS, unit_roundoff
from pespec.rope.config import RopeConfig

__all__ = [
    "MAX_EXPONENT",
    "XPOS_CONTEXT_EXPONENT",
    "backend_scale_error",
    "center",
    "element_scales",
    "pair_scales",
    "reference_scale_error",
    "scale_oracle",
    "xpos_context",
    "zetas",
]

F64 = NDArray[np.float64]

MAX_EXPONENT: Final = 700.0
"""|(p − c)·ln ζ_j / b| must not exceed this (σ stays a normal float64)."""

_U64: Final = 2.0**-53
_START_BITS: Final = 128
_MAX_BITS: Final = 1 << 14


XPOS_CONTEXT_EXPONENT: Final = 80.0
"""The default context of an xPos configuration keeps |p·ln ζ_0|/b within this: σ and 1/σ
inside float32's normal range (e^±87), the format xPos libraries compute it in."""


def xpos_context(config: RopeConfig) -> tuple[int, str]:
    """N for an xPos configuration that names no context: positions 0 … N − 1 keep
    |p·ln ζ_0|/b ≤ :data:`XPOS_CONTEXT_EXPONENT`, at most 2^20 (SPEC R8.20)."""
    assert config.xpos_scale_base is not None
    rate = abs(math.log(float(zetas(config)[0]))) / config.xpos_scale_base
    n = min(int(XPOS_CONTEXT_EXPONENT / rate) + 1, 1 << 20)
    return n, f"no context length in the configuration: xPos keeps σ within float32 ({n})"


def center(config: RopeConfig, n: int) -> int:
    """c: the declared ``xpos_center``, else n//2 for a call of n positions."""
    return n // 2 if config.xpos_center is None else config.xpos_center


def _sign(config: RopeConfig) -> int:
    return -1 if config.xpos_role == "key" else 1


def zetas(config: RopeConfig) -> list[Fraction]:
    """ζ_j = (2j + γ·d_r)/((1 + γ)·d_r) exactly (γ the float64 given), j < d_r/2."""
    assert config.xpos_gamma is not None
    gamma, d_r = Fraction(config.xpos_gamma), config.d_r
    return [(2 * j + gamma * d_r) / ((1 + gamma) * d_r) for j in range(d_r // 2)]


@contextmanager
def _interval_bits(bits: int) -> Iterator[Any]:
    """mpmath's interval context at ``bits`` bits, its precision restored after."""
    iv = mpmath.iv
    saved = iv.prec
    iv.prec = bits
    try:
        yield iv
    finally:
        iv.prec = saved


def _nearest(raw: Any) -> float:
    return float(libmp.to_float(raw, rnd=libmp.round_nearest))


def _certified(value: Fraction, exponent: Fraction) -> float:
    """value^exponent (value > 0) correctly rounded: intervals at doubling precision, then
    exact rationals for an integer exponent (the only case that can be a midpoint)."""
    if exponent == 0:
        return 1.0
    bits = _START_BITS
    while bits <= _MAX_BITS:
        with _interval_bits(bits) as iv:
            base = iv.mpf(value.numerator) / iv.mpf(value.denominator)
            power = iv.mpf(exponent.numerator) / iv.mpf(exponent.denominator)
            result = iv.exp(power * iv.log(base))
            low, high = (_nearest(end) for end in result._mpi_)
        if low == high:
            return low
        bits *= 2
    if exponent.denominator == 1:
        return float(value ** int(exponent))
    raise RuntimeError(f"could not certify {value}^{exponent}")


def scale_oracle(positions: Any, config: RopeConfig, n: int | None = None) -> F64:
    """σ_j(p) correctly rounded to float64, shape (len(positions), d_r/2); c from ``n``
    (default: the number of positions) when ``xpos_center`` is None."""
    points = [int(p) for p in np.asarray(positions).reshape(-1).tolist()]
    c = center(config, len(points) if n is None else n)
    assert config.xpos_scale_base is not None
    base = Fraction(config.xpos_scale_base)
    rows = [
        [_certified(z, _sign(config) * Fraction(p - c) / base) for z in zetas(config)]
        for p in points
    ]
    return np.array(rows, dtype=np.float64).reshape(len(points), config.d_r // 2)


@lru_cache(maxsize=32)
def _log_rates(config: RopeConfig) -> F64:
    """L_j = ln ζ_j / b correctly rounded to float64, shape (d_r/2,)."""
    assert config.xpos_scale_base is not None
    out = []
    for z in zetas(config):
        bits = _START_BITS
        while True:
            with _interval_bits(bits) as iv:
                value = iv.log(iv.mpf(z.numerator) / iv.mpf(z.denominator)) / iv.mpf(
                    config.xpos_scale_base
                )
                low, high = (_nearest(end) for end in value._mpi_)
            if low == high or bits >= _MAX_BITS:  # ln ζ_j/b = 0 only for ζ_j = 1 (exact)
                out.append(low)
                break
            bits *= 2
    return np.array(out, dtype=np.float64)


def _exponents(positions: Any, config: RopeConfig) -> F64:
    """fl((p − c)·s·L_j), shape (n, d_r/2); ValueError beyond :data:`MAX_EXPONENT`."""
    p = np.asarray(positions, dtype=np.float64).reshape(-1)
    offset = (p - center(config, p.size)) * _sign(config)  # exact: integers below 2^53
    t: F64 = offset[:, None] * _log_rates(config)[None, :]
    if t.size and float(np.max(np.abs(t))) > MAX_EXPONENT:
        raise ValueError(
            f"positions must keep |(p - c)·ln ζ_j / xpos_scale_base| <= {MAX_EXPONENT:g} "
            f"(the xPos scale a normal float64); got {float(np.max(np.abs(t))):.6g} at "
            f"positions {float(p.min()):g}..{float(p.max()):g}: check fewer positions "
            "(max_position)"
        )
    return t


def pair_scales(positions: Any, config: RopeConfig) -> F64:
    """The reference's σ̂_j(p) = exp(fl((p − c)·s·L_j)), shape (n, d_r/2)."""
    return np.exp(_exponents(positions, config))


def reference_scale_error(positions: Any, config: RopeConfig) -> F64:
    """|σ̂ − σ| ≤ this·σ, shape (n, d_r/2): L_j and the product each one rounding of |t|
    (2|t|u), exp within LIBRARY_ULPS ulp (2·LIBRARY_ULPS·u) (SPEC Annex J)."""
    t = np.abs(_exponents(positions, config))
    error: F64 = (2.0 * t + 2.0 * LIBRARY_ULPS) * _U64 * (1 + 2.0**-40)
    return error


def backend_scale_error(positions: Any, config: RopeConfig, phase: str, cache: str) -> F64:
    """A backend's relative error of σ computed in ``phase`` and stored in ``cache``, shape
    (n, d_r/2) (SPEC Annex J): ζ_j from four roundings (4u) and (p − c)/b from two (2u),
    each times |power| or |power·ln ζ_j| in the exponent, pow within LIBRARY_ULPS ulp, one
    more rounding for the key's reciprocal, one for the cache; the rotation's extra product
    is the element bound's (:func:`pespec.rope.errormodel.element_bound`)."""
    u, u_c = unit_roundoff(phase), unit_roundoff(cache)
    assert config.xpos_scale_base is not None
    p = np.asarray(positions, dtype=np.float64).reshape(-1)
    power = np.abs(p - center(config, p.size))[:, None] / config.xpos_scale_base
    t = np.abs(_exponents(positions, config))
    relative = (4.0 * power + 2.0 * t + 2.0 * LIBRARY_ULPS + 1.0) * u
    error: F64 = (np.expm1(relative * (1 + u)) + u_c) * (1 + 2.0**-40)
    return error


def element_scales(positions: Any, config: RopeConfig) -> F64:
    """σ̂ per element, shape (n, head_dim): pair j's two output columns get σ̂_j, the
    pass-through columns 1."""
    scales = pair_scales(positions, config)
    n = scales.shape[0]
    out = np.ones((n, config.head_dim), dtype=np.float64)
    half, d_r = config.d_r // 2, config.d_r
    if config.output_pairing == "interleaved":
        out[:, 0:d_r:2], out[:, 1:d_r:2] = scales, scales
    else:
        out[:, :half], out[:, half:d_r] = scales, scales
    return out
