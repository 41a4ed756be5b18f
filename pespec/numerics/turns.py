"""The angle in turns, exactly (SPEC Annex C.3): frequencies as turn pieces, reduction modulo
one turn without error, and double-double sin and cos from a table and short polynomials.

What: for a position x and frequencies W_k (turns per unit position, cut into 26-bit pieces by
:func:`cut_turn_pieces`), the double-double sin and cos of 2π·x·W_k, within about 2^-100 of the
exact value for |2π·x·W_k| ≤ 2^40 (SPEC Annex C.4 bounds each step). Why: every exact reference
evaluates its angles with it; it names no family. Shapes: x (n,),
pieces (K, PIECES), results (n, K); angles in turns unless said otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache
from typing import Final

import gmpy2
import numpy as np
from numpy.typing import NDArray

from pespec.numerics import kernels
from pespec.numerics.circle import TABLE_SIZE, circle_table, veltkamp_split

__all__ = [
    "CHUNK_ELEMENTS",
    "INV_2PI_BITS",
    "PIECES",
    "PIECE_BITS",
    "TABLE_SIZE",
    "TWO_PI_HI",
    "TWO_PI_LO",
    "Factors",
    "complex_of",
    "cut_turn_pieces",
    "dyadic",
    "f32_split",
    "frac",
    "inv_two_pi_fixed",
    "row_chunks",
    "sincos_dd",
    "sincos_turns",
    "turns",
    "two_sum",
]

F64 = NDArray[np.float64]
C128 = NDArray[np.complex128]

TWO_PI_HI: Final = float.fromhex("0x1.921fb54442d18p+2")
"""2π rounded to float64 (checked against mpmath in the tests)."""

TWO_PI_LO: Final = float.fromhex("0x1.1a62633145c07p-52")
"""2π − TWO_PI_HI rounded to float64; hi + lo equals 2π to about 2^-105 relative."""

PIECE_BITS: Final = 26
"""Bits of each turn piece W_k (so a position of up to 26 bits times a piece is exact)."""
PIECES: Final = 5
"""K: the frequency in turns is carried as K pieces of PIECE_BITS bits each."""
INV_2PI_BITS: Final = 256
"""Fixed-point bits of 1/(2π) (see :func:`inv_two_pi_fixed`)."""
CHUNK_ELEMENTS: Final = 1 << 13  # elements per temporary in the exact path (64 KiB)


# Taylor coefficients, correctly rounded by CPython's int/int division.
_S3, _S5, _S7 = -1 / 6, 1 / 120, -1 / 5040
_C2, _C4, _C6, _C8 = -1 / 2, 1 / 24, -1 / 720, 1 / 40320
# ---------------------------------------------------------------------------
# error-free transformations (Dekker 1971, Knuth TAOCP vol. 2 §4.2.2)


def two_sum(a: F64, b: F64) -> tuple[F64, F64]:
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def frac(x: F64) -> F64:
    """x − rint(x), exact for every float64; result in [−1/2, 1/2]."""
    result: F64 = x - np.rint(x)
    return result


def f32_split(hi: F64, lo: F64) -> tuple[F64, F64]:
    """(head, tail): head = hi rounded to float32 (24 bits, exact in float64), tail ≈ rest.

    hi − head is exact; tail = (hi − head) + lo is rounded once, |error| ≤ 2^-77 for |hi| ≤ 1.
    """
    head = hi.astype(np.float32).astype(np.float64)
    tail: F64 = (hi - head) + lo
    return head, tail


# ---------------------------------------------------------------------------
# constants


@lru_cache(maxsize=1)
def inv_two_pi_fixed() -> int:
    """floor(2^256 / (2π)) from MPFR at 512 bits."""
    with gmpy2.context(precision=512):
        value = gmpy2.mul_2exp(gmpy2.mpfr(1), INV_2PI_BITS) / (2 * gmpy2.const_pi())
        return int(gmpy2.floor(value))


def dyadic(value: float) -> tuple[int, int]:
    """(m, e) with value = m·2^e exactly."""
    numerator, denominator = value.as_integer_ratio()
    return numerator, -(denominator.bit_length() - 1)


def cut_turn_pieces(hi: F64, lo: F64, scale: float = 1.0) -> F64:
    """W_k = scale·(hi_k + lo_k)/(2π) (turns per unit position) as PIECES pieces of ≤ 26 bits.

    ``hi``, ``lo`` (K,): a double-double of each frequency; ``scale`` a float64 factor
    applied exactly. Each piece is a truncation of W_k (same sign, decreasing), so x·w_i is
    exact for any x of ≤ 27 bits; the pieces sum to W_k within 2^-129 relative. A zero
    frequency gets zero pieces. Shape (K, PIECES); read-only.
    """
    scale_m, scale_e = dyadic(float(scale))
    inverse = inv_two_pi_fixed()
    mask = (1 << PIECE_BITS) - 1
    pieces = np.zeros((hi.shape[0], PIECES), dtype=np.float64)
    for k, (h, l_) in enumerate(zip(hi.tolist(), lo.tolist(), strict=True)):
        if h == 0.0:
            continue  # ω_k underflowed: θ = 0 to float64 precision
        mh, eh = dyadic(h)
        ml, el = dyadic(l_)
        e0 = min(eh, el) if ml else eh
        mantissa = (mh << (eh - e0)) + ((ml << (el - e0)) if ml else 0)
        value = mantissa * scale_m * inverse  # W_k·2^-(e0 + scale_e − 256)
        exponent = e0 + scale_e - INV_2PI_BITS
        sign = -1.0 if value < 0 else 1.0
        value = abs(value)
        top = value.bit_length()
        for i in range(PIECES):
            shift = top - PIECE_BITS * (i + 1)
            chunk = (value >> shift) & mask if shift >= 0 else (value << -shift) & mask
            pieces[k, i] = sign * math.ldexp(float(chunk), shift + exponent)
    pieces.setflags(write=False)
    return pieces


# ---------------------------------------------------------------------------
# the exact path: turns, then double-double sin and cos


def turns(x: F64, pieces: F64, extra: tuple[F64, F64] | None = None) -> tuple[F64, F64]:
    """x·W_k modulo 1 as a double-double (hi, lo), |hi| ≤ 1/2; x (n,), result (n, K).

    ``extra`` (hi, lo) of shape (K,) is added modulo 1 (the turns of a position offset).
    Every product is exact and every fractional part is exact; the double-double sum
    loses < 2^-100; the two smallest pieces are added in plain float64 (< 2^-87 for
    |x·W| ≤ 2^40).
    """
    x_hi, x_lo = veltkamp_split(x)
    x_hi, x_lo = x_hi[:, None], x_lo[:, None]
    w = [pieces[:, i] for i in range(PIECES)]
    total = frac(x_hi * w[0])
    low = np.zeros_like(total)
    # x_lo = 0 (|x| < 2^26, e.g. every anchor and offset of a short table) makes its terms
    # zero, and adding a zero term changes nothing: skipping them gives the same bits.
    halves = (x_hi, x_lo) if np.any(x_lo) else (x_hi,)
    for i in range(3):
        for half in halves:
            if i == 0 and half is x_hi:
                continue
            total, err = two_sum(total, frac(half * w[i]))
            low += err
            total = frac(total)
    small = x_hi * w[3] + x_hi * w[4]
    if len(halves) == 2:
        small = (x_hi * w[3] + x_lo * w[3]) + (x_hi * w[4] + x_lo * w[4])
    low += small
    if extra is not None:
        total, err = two_sum(total, np.broadcast_to(extra[0], total.shape))
        low += err + extra[1]
        total = frac(total)
    hi, lo = two_sum(total, low)
    return frac(hi), lo


def sincos_turns(t_hi: F64, t_lo: F64) -> tuple[F64, F64, F64, F64]:
    """(sin_hi, sin_lo, cos_hi, cos_lo) of 2π·(t_hi + t_lo), |t_hi| ≤ 1/2; any shape.

    t = m/N + τ; ρ = 2π·τ as a double-double (Dekker product); sin ρ and cos ρ − 1 by
    Taylor polynomials (|ρ| ≤ π/N: truncation < 2^-75); angle addition with the table
    entry, the large products exact (Dekker with pre-split table heads).
    """
    scaled = t_hi * TABLE_SIZE
    m = np.rint(scaled)
    tau = (scaled - m) * (1.0 / TABLE_SIZE)  # exact
    index = m.astype(np.intp) & (TABLE_SIZE - 1)
    two_pi_a, two_pi_b = veltkamp_split(np.array(TWO_PI_HI))
    tau_a, tau_b = veltkamp_split(tau)
    r_hi = TWO_PI_HI * tau
    r_lo = ((two_pi_a * tau_a - r_hi) + two_pi_a * tau_b + two_pi_b * tau_a) + two_pi_b * tau_b
    r_lo += TWO_PI_HI * t_lo + TWO_PI_LO * tau
    r2 = r_hi * r_hi
    sin_tail = r_lo + r_hi * r2 * (_S3 + r2 * (_S5 + r2 * _S7))  # sin ρ − r_hi
    cos_m1 = r2 * (_C2 + r2 * (_C4 + r2 * (_C6 + r2 * _C8))) - r_hi * r_lo  # cos ρ − 1
    r_a, r_b = veltkamp_split(r_hi)
    rows = np.take(circle_table(), index, axis=0)
    ch, cl, sh, sl, ca, cb, sa, sb = (rows[..., i] for i in range(8))
    # sin(T + ρ) = S + S·(cos ρ − 1) + C·sin ρ
    p = ch * r_hi
    p_err = ((ca * r_a - p) + ca * r_b + cb * r_a) + cb * r_b
    head, err = two_sum(sh, p)
    tail = err + (p_err + sl + ch * sin_tail + sh * cos_m1 + cl * r_hi)
    s_hi, s_lo = two_sum(head, tail)
    # cos(T + ρ) = C + C·(cos ρ − 1) − S·sin ρ
    q = sh * r_hi
    q_err = ((sa * r_a - q) + sa * r_b + sb * r_a) + sb * r_b
    head, err = two_sum(ch, -q)
    tail = err + (cl - q_err + ch * cos_m1 - sh * sin_tail - sl * r_hi)
    c_hi, c_lo = two_sum(head, tail)
    return s_hi, s_lo, c_hi, c_lo


def row_chunks(n: int, width: int) -> Iterator[tuple[int, int]]:
    """[start, stop) row ranges with about CHUNK_ELEMENTS elements per (rows, width) block."""
    rows = max(1, CHUNK_ELEMENTS // max(width, 1))
    for start in range(0, n, rows):
        yield start, min(n, start + rows)


def sincos_dd(
    x: F64, pieces: F64, extra: tuple[F64, F64] | None = None
) -> tuple[F64, F64, F64, F64]:
    """Double-double sin and cos of 2π·(x·W_k + extra_k); x (n,), each result (n, K)."""
    n, half = x.shape[0], pieces.shape[0]
    s_hi, s_lo, c_hi, c_lo = (np.empty((n, half)) for _ in range(4))
    for start, stop in row_chunks(n, half):
        parts = sincos_turns(*turns(x[start:stop], pieces, extra))
        for target, part in zip((s_hi, s_lo, c_hi, c_lo), parts, strict=True):
            target[start:stop] = part
    return s_hi, s_lo, c_hi, c_lo


class Factors:
    """Split sin/cos double-doubles of a set of angles, ready for the rotation; shapes (m, K).

    ``head`` is complex: for anchors w(A) = sin A + i·cos A, for fine offsets
    e^{-iF} = cos F − i·sin F, each part rounded to float32 (24 bits) so that products of
    two heads are exact in float64. ``t_re``/``t_im`` are the tails (value − head, about
    2^-24 relative) and ``f_re``/``f_im`` the full float64 heads of the double-doubles.
    """

    NAMES: Final = ("head", "h_re", "h_im", "t_re", "t_im", "f_re", "f_im")

    stacked: F64 | None = None
    """(6, m, K): h_re, h_im, t_re, t_im, f_re, f_im, as the compiled kernels take them."""

    def __init__(self, x: F64, pieces: F64, *, anchor: bool) -> None:
        if kernels.enabled():
            self.stacked = kernels.factors(x, pieces, anchor=anchor)
            self.h_re, self.h_im, self.t_re, self.t_im, self.f_re, self.f_im = self.stacked
            self.head = complex_of(self.h_re, self.h_im if anchor else -self.h_im)
            return
        s_hi, s_lo, c_hi, c_lo = sincos_dd(x, pieces)
        s_head, s_tail = f32_split(s_hi, s_lo)
        c_head, c_tail = f32_split(c_hi, c_lo)
        if anchor:  # w(A) = sin A + i·cos A
            self.head = complex_of(s_head, c_head)
            self.h_re, self.h_im, self.t_re, self.t_im = s_head, c_head, s_tail, c_tail
            self.f_re, self.f_im = s_hi, c_hi
        else:  # e^{-iF}: real part cos F, imaginary part −sin F (stored as +sin F below)
            self.head = complex_of(c_head, -s_head)
            self.h_re, self.h_im, self.t_re, self.t_im = c_head, s_head, c_tail, s_tail
            self.f_re, self.f_im = c_hi, s_hi

    def take(self, index: NDArray[np.intp]) -> Factors:
        """The factors of rows ``index`` (a gather), same class."""
        result = object.__new__(Factors)
        for name in self.NAMES:
            setattr(result, name, getattr(self, name)[index])
        return result

    def stack(self) -> F64:
        """The (6, m, K) stack the compiled kernels take (made once if the NumPy path built us)."""
        if self.stacked is None:
            names = ("h_re", "h_im", "t_re", "t_im", "f_re", "f_im")
            self.stacked = np.stack([getattr(self, name) for name in names])
        return self.stacked


def complex_of(real: F64, imag: F64) -> C128:
    """real + i·imag as a complex128 array (each part stored exactly)."""
    result = np.empty(real.shape, dtype=np.complex128)
    result.real = real
    result.imag = imag
    return result
