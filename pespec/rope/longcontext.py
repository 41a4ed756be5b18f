"""The long-context precision table of SPEC Annex G: how far each preset's phases stay accurate.

For a preset and a way of computing the phase φ̂_j(p) in low precision, the *reach* at a
threshold τ is the largest integer position P such that |φ̂_j(p) − p·ω'_j| < τ for every
pair j and every integer 0 ≤ p ≤ P (one less than the first crossing, the maximum over
pairs). Three ways, each the product rounded once to float32 (round to nearest even):

* ``float32``: φ̂ = fl32(fl32(p)·fl32(ω'_j)), ω'_j correctly rounded to float32;
* ``bf16-omega``: φ̂ = fl32(fl32(p)·bf16(ω'_j)), ω'_j correctly rounded to bfloat16;
* ``bf16-position``: φ̂ = fl32(bf16(p)·fl32(ω'_j)), the position rounded to bfloat16.

The exact phase is p·ω'_j with ω'_j the oracle's double-double (106 bits). Errors are
computed in float64 (the low-precision products are exact in float64, p·ω' is subtracted as
exact partial products, within 2^-32), and every position whose float64 error lies within
2^-30 of τ is decided again in exact rational arithmetic. A pair j can only cross at
p ≥ τ/(|ω̂_j − ω'_j| + 2^-23·ω̂_j (+ 2^-8·ω̂_j for bfloat16 positions)), its error bound,
so each pair is scanned from there, in chunks, until the first crossing; positions are
scanned up to 2^31.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Final

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.circle import veltkamp_split
from pespec.rope.config import RopeConfig
from pespec.rope.oracle import frequencies_dd

__all__ = ["LIMIT", "METHODS", "THRESHOLDS", "reach"]

F64 = NDArray[np.float64]

THRESHOLDS: Final = (1e-3, 1e-2)
METHODS: Final = ("float32", "bf16-omega", "bf16-position")
LIMIT: Final = 2**31
"""Positions are scanned up to this; a reach of LIMIT means no crossing below it."""
_CHUNK: Final = 1 << 16


def _round_fraction(value: Fraction, bits: int) -> Fraction:
    """value > 0 rounded to nearest (ties to even) with a ``bits``-bit significand."""
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    if Fraction(2) ** exponent > value:
        exponent -= 1
    ulp = Fraction(2) ** (exponent - bits + 1)
    low = (value / ulp).__floor__()
    rest = value / ulp - low
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and low % 2 == 1):
        low += 1
    return low * ulp


@lru_cache(maxsize=32)
def _omegas(config: RopeConfig) -> tuple[F64, F64, F64, F64]:
    """(hi, lo, ω' rounded to float32, ω' rounded to bfloat16) per pair, from the oracle."""
    hi, lo = frequencies_dd(config)
    exact = [Fraction(h) + Fraction(lo_) for h, lo_ in zip(hi.tolist(), lo.tolist(), strict=True)]
    f32 = np.array([float(_round_fraction(w, 24)) for w in exact])
    bf16 = np.array([float(_round_fraction(w, 8)) for w in exact])
    return hi, lo, f32, bf16


def _positions(p: NDArray[np.int64], method: str) -> F64:
    if method == "bf16-position":
        if p.size and int(np.abs(p).max()) > 2**24:  # int → float32 would round first
            return np.array(
                [float(_round_fraction(Fraction(int(v)), 8)) if v else 0.0 for v in p.tolist()]
            )
        bits = p.astype(np.float32).view(np.uint32)  # exact below 2^24
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) & np.uint32(
            0xFFFF0000
        )  # round to nearest even at 8 significand bits
        result16: F64 = rounded.view(np.float32).astype(np.float64)
        return result16
    result: F64 = p.astype(np.float32).astype(np.float64)  # int → float32: round to nearest
    return result


def _errors(p: NDArray[np.int64], j: NDArray[np.intp], config: RopeConfig, method: str) -> F64:
    """|φ̂ − p·ω'| in float64, shape (len(p), len(j)), within 2^-32 absolute for p < 2^31.

    p·hi is taken as four exact products (p in two 16-bit parts, hi in two 26-bit parts)
    subtracted from φ̂ largest first; each subtraction leaves a value below 2^17·ω', so the
    roundings total < 2^-34 (ω' ≤ 2^2 here), and p·lo < 2^-70.
    """
    hi, lo, f32, bf16 = _omegas(config)
    omega = (bf16 if method == "bf16-omega" else f32)[j]
    phase = (_positions(p, method)[:, None] * omega).astype(np.float32).astype(np.float64)
    p_high = (p & ~np.int64(0xFFFF)).astype(np.float64)[:, None]
    p_low = (p & np.int64(0xFFFF)).astype(np.float64)[:, None]
    hi_a, hi_b = veltkamp_split(hi[j])
    error = phase - p_high * hi_a
    error -= p_high * hi_b
    error -= p_low * hi_a
    error -= p_low * hi_b
    error -= p.astype(np.float64)[:, None] * lo[j]
    result: F64 = np.abs(error)
    return result


def _exact_error(p: int, j: int, config: RopeConfig, method: str) -> Fraction:
    """|φ̂ − p·(hi + lo)| in exact rational arithmetic."""
    hi, lo, f32, bf16 = _omegas(config)
    omega_low = (bf16 if method == "bf16-omega" else f32)[j]
    position = _positions(np.array([p], dtype=np.int64), method)[0]
    rounded = float(np.float32(position * omega_low))  # the product is exact in float64
    return abs(Fraction(rounded) - p * (Fraction(float(hi[j])) + Fraction(float(lo[j]))))


def _first_crossing(config: RopeConfig, method: str, threshold: float) -> int:
    """The smallest integer p ≥ 0 where some pair's error is ≥ threshold (LIMIT if none)."""
    _, _, f32, bf16 = _omegas(config)
    hi = _omegas(config)[0]
    omega_low = bf16 if method == "bf16-omega" else f32
    # error ≤ p·|ω̂ − ω'| + |position error|·ω̂ + ½ulp32(φ̂) ≤ p·(|ω̂ − ω'| + 2^-8·ω̂ + 2^-24·ω̂)
    slope = np.abs(omega_low - hi) + 2.0**-23 * omega_low
    if method == "bf16-position":
        slope += 2.0**-8 * omega_low
    start = np.where(slope > 0, np.floor(threshold / np.where(slope > 0, slope, 1.0)), LIMIT)
    p0 = int(max(0, min(start.min(), LIMIT)))
    margin = 2.0**-30  # ≫ the float64 error of _errors
    while p0 < LIMIT:
        p = np.arange(p0, min(LIMIT, p0 + _CHUNK), dtype=np.int64)
        active = np.flatnonzero(start <= p[-1])
        error = _errors(p, active, config, method)
        hits = np.flatnonzero(np.any(error >= threshold - margin, axis=1))
        for row in hits.tolist():
            close = np.flatnonzero(error[row] >= threshold - margin)
            if any(
                _exact_error(int(p[row]), int(active[c]), config, method) >= threshold
                for c in close.tolist()
            ):
                return int(p[row])
        p0 += _CHUNK
    return LIMIT


def reach(config: RopeConfig, method: str, threshold: float) -> int:
    """The largest P with every pair's phase error < threshold for all 0 ≤ p ≤ P."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    return _first_crossing(config, method, threshold) - 1
