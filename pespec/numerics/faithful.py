"""The fractional path of the exact angle kernel (SPEC Annex C.8): sin and cos of 2π·(x·W_k + e_k)
to within 2^-52 with about a third of the exact path's operations.

What: for positions x ≥ 0 (float64) and frequencies in turns W_k (26-bit pieces,
:func:`pespec.numerics.turns.cut_turn_pieces`), the float64 sin and cos of 2π·(x·W_k + e_k),
e_k the turns of a position offset, each within 2^-52 of the exact value for |2π·x·W_k| ≤ 2^40
(:func:`error_terms` evaluates the proof). Why: the exact path (:mod:`pespec.numerics.turns`)
carries every step as a double-double (error about 2^-100), which the block rotation needs
for its anchors but a position evaluated on its own does not: one rounding to float64 at
the end costs 2^-54 anyway. This path keeps the reduction modulo one turn exact where it
matters (three exact products, TwoSum) and evaluates the rest in plain float64, so pure
NumPy encodes fractional positions faster than the naive formula (issue 37).

The compiled kernel (:func:`pespec.numerics.kernels.fill_exact`) performs the same IEEE
operations in the same order (bit for bit, tested). Shapes: x (n,), pieces (K, 5),
results (n, K).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

import mpmath
import numpy as np
from numpy.typing import NDArray

from pespec.numerics.circle import TABLE_SIZE, circle_table, veltkamp_split

__all__ = ["MAX_TURNS", "error_terms", "faithful_limit", "sincos_faithful"]

F64 = NDArray[np.float64]

TWO_PI_HI: Final = float.fromhex("0x1.921fb54442d18p+2")  # 2π rounded to float64
_S3, _S5, _S7 = -1 / 6, 1 / 120, -1 / 5040
_C2, _C4, _C6 = -1 / 2, 1 / 24, -1 / 720

MAX_TURNS: Final = 2.0**40 / (2 * np.pi)
"""|x·W_k| (turns) up to which :func:`error_terms` proves the bound (|angle| ≤ 2^40)."""


def faithful_limit(pieces: F64) -> float:
    """The largest x the path takes for these pieces: x·W_k ≤ MAX_TURNS for every k (W_k < 2·w_0,k,
    w_0 being W's top 26 bits). Larger x (|angle| > 2^40, outside the proof) take the exact
    path, whose error grows only by |θ|·2^-105 there (SPEC Annex C.2)."""
    top = float(np.max(np.abs(pieces[:, 0]))) if pieces.size else 0.0
    return float(MAX_TURNS / (2.0 * top)) if top > 0.0 else float("inf")


def sincos_faithful(
    x: F64,
    pieces: F64,
    extra: tuple[F64, F64] | None = None,
    out: tuple[F64, F64] | None = None,
) -> tuple[F64, F64]:
    """(sin, cos) of 2π·(x·W_k + extra_k) as float64, each within 2^-52; x (n,) ≥ 0 finite.

    ``out``: two (n, K) arrays (views of a table's columns, say) the results are written to.

    ``extra`` (hi, lo), shape (K,), |hi| ≤ 1/2: turns added (a position offset, reduced
    exactly by :func:`pespec.numerics.turns.turns`). Steps (SPEC Annex C.8): the three
    largest products x_half·w_i are exact and lose their integer parts exactly; they are
    summed by TwoSum (errors kept); the smaller products go into the low word; then
    t = m/N + τ, ρ = 2π·τ in float64 and sin(T + ρ) = S + (C·ρ + (S_lo + C_lo·ρ +
    S·(cos ρ − 1) + C·(sin ρ − ρ))), rounded once at the end.
    """
    x_hi, x_lo = veltkamp_split(x)
    x_hi, x_lo = x_hi[:, None], x_lo[:, None]
    w0, w1, w2, w3 = (pieces[:, i] for i in range(4))
    t0 = x_hi * w0
    t0 -= np.rint(t0)
    t1 = x_lo * w0
    t1 -= np.rint(t1)
    t2 = x_hi * w1
    t2 -= np.rint(t2)
    total, low = _two_sum(t0, t1)
    total, err = _two_sum(total, t2)
    low += err
    if extra is not None:
        total, err = _two_sum(total, np.broadcast_to(extra[0], total.shape))
        low += err
        low += extra[1]
    low += x_lo * w1
    low += x_hi * w2
    low += x_hi * w3 + x_lo * w2
    scaled = total * TABLE_SIZE
    m = np.rint(scaled)
    scaled -= m
    tau = scaled * (1.0 / TABLE_SIZE)
    tau += low
    r = tau * TWO_PI_HI
    index = m.astype(np.intp)
    index &= TABLE_SIZE - 1
    return _rotate_by_table(r, index, out)


def _two_sum(a: F64, b: F64) -> tuple[F64, F64]:
    """Knuth's TwoSum: (s, e), s = fl(a + b), e = a + b − s exactly (a new s and e)."""
    s = a + b
    bb = s - a
    e = s - bb
    np.subtract(a, e, out=e)  # a − (s − bb)
    np.subtract(b, bb, out=bb)  # b − bb
    e += bb
    return s, e


def _rotate_by_table(
    r: F64, index: NDArray[np.intp], out: tuple[F64, F64] | None
) -> tuple[F64, F64]:
    """sin and cos of T + r, T = 2π·index/N from the table, |r| ≤ 0.0132 (into ``out``)."""
    r2 = r * r
    sin_tail = r2 * _S7  # sin r − r = r³·(S3 + r²·(S5 + r²·S7))
    sin_tail += _S5
    sin_tail *= r2
    sin_tail += _S3
    sin_tail *= r2
    sin_tail *= r
    cos_m1 = r2 * _C6  # cos r − 1 = r²·(C2 + r²·(C4 + r²·C6))
    cos_m1 += _C4
    cos_m1 *= r2
    cos_m1 += _C2
    cos_m1 *= r2
    ch, cl, sh, sl = (column.take(index) for column in _table_columns())
    small = cl * r  # sin: S + (C·r + ((S_lo + C_lo·r) + (S·(cos r − 1) + C·(sin r − r))))
    small += sl
    part = sh * cos_m1
    part += ch * sin_tail
    small += part
    small += ch * r
    sin = np.add(sh, small, out=None if out is None else out[0])
    small = sl * r  # cos: C + (((C_lo − S_lo·r) + (C·(cos r − 1) − S·(sin r − r))) − S·r)
    np.subtract(cl, small, out=small)
    part = ch * cos_m1
    part -= sh * sin_tail
    small += part
    small -= sh * r
    cos = np.add(ch, small, out=None if out is None else out[1])
    return sin, cos


@lru_cache(maxsize=1)
def _table_columns() -> tuple[F64, F64, F64, F64]:
    """cos_hi, cos_lo, sin_hi, sin_lo of the circle table as contiguous arrays (N,)."""
    table = circle_table()
    return tuple(np.ascontiguousarray(table[:, i]) for i in range(4))  # type: ignore[return-value]


def error_terms() -> list[tuple[str, mpmath.mpf]]:
    """The terms of SPEC Annex C.8's proof (upper bounds in mpmath, u = 2^-53), then the
    bound on |result − oracle| they give, 2^-53 + 2·(sum of the terms): below 2^-52.

    |x·W| ≤ 2^40/(2π) turns; pieces |w_i| < 2^(1−26i)·W; |x_lo| ≤ 2^-26·|x|; the table's
    double-doubles within 2^-106; the low word below 2^-50·|x·W| + 4u (x_lo·w1, x_hi·w2, the
    TwoSum errors, an offset's low word); |ρ| ≤ 2π·(2^-9 + that).
    """
    with mpmath.workdps(40):
        two, u = mpmath.mpf(2), mpmath.mpf(2) ** -53
        turns = two**40 / (2 * mpmath.pi)
        low = 2 * two**-51 * turns + 4 * u
        rho = 2 * mpmath.pi * (two**-9 + low)
        reduction = [
            ("ignored products x_hi·w4, x_lo·w3, x_lo·w4", 3 * two**-103 * turns),
            ("pieces (2^-129) and frequencies (2^-105) relative", (two**-129 + two**-105) * turns),
            (
                "6 roundings in the low word, x_hi·w3 + x_lo·w2 rounded",
                6 * u * low + u * two**-76 * turns,
            ),
            ("τ + low rounded", u * (two**-9 + low)),
        ]
        terms = [(name, 2 * mpmath.pi * value) for name, value in reduction]
        terms += [
            ("ρ = fl(τ·2π_hi): rounding and 2π − 2π_hi", u * rho + two**-51 * (two**-9 + low)),
            (
                "table entries (2 of 2^-106), ignored S_lo·(cos ρ − 1), C_lo·(sin ρ − ρ)",
                2 * two**-106 + two**-54 * (rho**2 / 2 + rho**3 / 6),
            ),
            ("cos truncation ρ^8/8!, sin truncation ρ^9/9!", rho**8 / 40320 + rho**9 / 362880),
            ("polynomial roundings 6u·ρ²/2 + 7u·ρ³/6", 3 * u * rho**2 + 2 * u * rho**3),
            ("combination: C·ρ and its sum rounded (2u·1.01·ρ)", 2 * u * rho * mpmath.mpf(1.01)),
            ("combination: the small sums (4u·(ρ²/2 + 2^-53))", 4 * u * (rho**2 / 2 + u)),
        ]
        pre = mpmath.fsum(value for _, value in terms)
        terms.append(("|result − oracle| ≤ 2^-53 + 2·(sum of the terms)", two**-53 + 2 * pre))
    return terms
