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
CHUNK_ELEMENTS: Final = 1 << 14  # elements per temporary in the exact path (128 KiB)


_SPLITTER: Final = 134217729.0  # 2^27 + 1, as in veltkamp_split
# Taylor coefficients, correctly rounded by CPython's int/int division.
_S3, _S5, _S7 = -1 / 6, 1 / 120, -1 / 5040
_C2, _C4, _C6, _C8 = -1 / 2, 1 / 24, -1 / 720, 1 / 40320
_TWO_PI_A, _TWO_PI_B = (float(v) for v in veltkamp_split(np.array(TWO_PI_HI)))
# ---------------------------------------------------------------------------
# error-free transformations (Dekker 1971, Knuth TAOCP vol. 2 §4.2.2)


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
    |x·W| ≤ 2^40). In order: total = frac(x_hi·w0); for each further product
    (x_lo·w0, x_hi·w1, x_lo·w1, x_hi·w2, x_lo·w2) total, err = TwoSum(total, frac(product)),
    low += err, total = frac(total); low += (x_hi·w3 + x_lo·w3) + (x_hi·w4 + x_lo·w4); the
    offset's TwoSum (low += err + extra_lo); (hi, lo) = TwoSum(total, low), hi = frac(hi).
    Computed in place in a few (n, K) buffers (the same operations, fewer passes).
    """
    x_hi, x_lo = veltkamp_split(x)
    x_hi, x_lo = x_hi[:, None], x_lo[:, None]
    w = [pieces[:, i] for i in range(PIECES)]
    total = x_hi * w[0]
    term, tmp, s, e = (np.empty_like(total) for _ in range(4))
    _frac_into(total, tmp)
    low = np.zeros_like(total)
    # x_lo = 0 (|x| < 2^26, e.g. every anchor and offset of a short table) makes its terms
    # zero, and adding a zero term changes nothing: skipping them gives the same bits.
    halves = (x_hi, x_lo) if np.any(x_lo) else (x_hi,)
    for i in range(3):
        for half in halves:
            if i == 0 and half is x_hi:
                continue
            np.multiply(half, w[i], out=term)
            _frac_into(term, tmp)
            _two_sum_into(total, term, s, e, tmp)
            low += e
            np.rint(s, out=tmp)
            np.subtract(s, tmp, out=total)
    np.multiply(x_hi, w[3], out=term)  # the small products
    if len(halves) == 2:
        _add_product(term, x_lo, w[3], tmp)
        np.multiply(x_hi, w[4], out=s)
        _add_product(s, x_lo, w[4], tmp)
    else:
        np.multiply(x_hi, w[4], out=s)
    term += s
    low += term
    if extra is not None:
        _two_sum_into(total, extra[0], s, e, tmp)
        e += extra[1]
        low += e
        np.rint(s, out=tmp)
        np.subtract(s, tmp, out=total)
    _two_sum_into(total, low, s, e, tmp)
    _frac_into(s, tmp)
    return s, e


def _frac_into(x: F64, tmp: F64) -> None:
    """x ← x − rint(x) in place (exact; :func:`frac`), ``tmp`` a scratch of x's shape."""
    np.rint(x, out=tmp)
    np.subtract(x, tmp, out=x)


def _two_sum_into(a: F64, b: F64, s: F64, e: F64, tmp: F64) -> None:
    """s, e ← Knuth's TwoSum of (a, b): s = fl(a + b), s + e = a + b exactly; s, e, tmp distinct
    from a and b."""
    np.add(a, b, out=s)
    np.subtract(s, a, out=tmp)  # bb
    np.subtract(s, tmp, out=e)
    np.subtract(a, e, out=e)  # a − (s − bb)
    np.subtract(b, tmp, out=tmp)  # b − bb
    e += tmp


def _add_product(acc: F64, a: F64 | float, b: F64 | float, tmp: F64, sign: int = 1) -> None:
    """acc ← acc + a·b (sign −1: acc − a·b), the product rounded first."""
    np.multiply(a, b, out=tmp)
    if sign < 0:
        acc -= tmp
    else:
        acc += tmp


def _dekker_error(
    a: F64 | float, b: F64 | float, r_a: F64, r_b: F64, product: F64, tmp: F64
) -> F64:
    """((a·r_a − product) + a·r_b + b·r_a) + b·r_b: Dekker's error of the product (a + b)·r."""
    err = a * r_a
    err -= product
    _add_product(err, a, r_b, tmp)
    _add_product(err, b, r_a, tmp)
    _add_product(err, b, r_b, tmp)
    return err


def sincos_turns(t_hi: F64, t_lo: F64) -> tuple[F64, F64, F64, F64]:
    """(sin_hi, sin_lo, cos_hi, cos_lo) of 2π·(t_hi + t_lo), |t_hi| ≤ 1/2; any shape.

    t = m/N + τ; ρ = 2π·τ as a double-double (Dekker product); sin ρ and cos ρ − 1 by
    Taylor polynomials (|ρ| ≤ π/N: truncation < 2^-75); angle addition with the table
    entry, the large products exact (Dekker with pre-split table heads). The operations,
    each a plain IEEE operation in a fixed order (the compiled kernel's too):
    τ = (t_hi·N − m)/N, r_hi = 2π_hi·τ,
    r_lo = (((a·τ_a − r_hi) + a·τ_b) + b·τ_a) + b·τ_b + (2π_hi·t_lo + 2π_lo·τ) (a + b = 2π_hi),
    sin_tail = r_lo + (r_hi·r²)·(S3 + r²·(S5 + r²·S7)),
    cos_m1 = r²·(C2 + r²·(C4 + r²·(C6 + r²·C8))) − r_hi·r_lo; then
    sin: (head, err) = TwoSum(S, C·r_hi), tail = err + ((((p_err + S_lo) + C·sin_tail)
    + S·cos_m1) + C_lo·r_hi); cos: (head, err) = TwoSum(C, −S·r_hi), tail = err +
    ((((C_lo − q_err) + C·cos_m1) − S·sin_tail) − S_lo·r_hi); each result TwoSum(head, tail).
    """
    tau = t_hi * TABLE_SIZE
    m = np.rint(tau)
    tau -= m
    tau *= 1.0 / TABLE_SIZE  # exact
    index = m.astype(np.intp)
    index &= TABLE_SIZE - 1
    tmp = np.empty_like(tau)
    tau_a, tau_b = _split_into(tau, tmp)
    r_hi = tau * TWO_PI_HI
    r_lo = _dekker_error(_TWO_PI_A, _TWO_PI_B, tau_a, tau_b, r_hi, tmp)
    low = t_lo * TWO_PI_HI
    _add_product(low, tau, TWO_PI_LO, tmp)
    r_lo += low
    r2 = r_hi * r_hi
    sin_tail = _horner(r2, (_S7, _S5, _S3), tmp)  # sin ρ − r_hi
    np.multiply(r_hi, r2, out=tmp)
    sin_tail *= tmp
    sin_tail += r_lo
    cos_m1 = _horner(r2, (_C8, _C6, _C4, _C2), tmp)  # cos ρ − 1
    cos_m1 *= r2
    _add_product(cos_m1, r_hi, r_lo, tmp, sign=-1)
    r_a, r_b = _split_into(r_hi, tmp)
    ch, cl, sh, sl, ca, cb, sa, sb = (column.take(index) for column in _circle_columns())
    # sin(T + ρ) = S + S·(cos ρ − 1) + C·sin ρ
    p = ch * r_hi
    tail = _dekker_error(ca, cb, r_a, r_b, p, tmp)
    tail += sl
    for a, b, sign in ((ch, sin_tail, 1), (sh, cos_m1, 1), (cl, r_hi, 1)):
        _add_product(tail, a, b, tmp, sign)
    s_hi, s_lo = _head_tail(sh, p, tail, tmp)
    # cos(T + ρ) = C + C·(cos ρ − 1) − S·sin ρ
    q = sh * r_hi
    q_err = _dekker_error(sa, sb, r_a, r_b, q, tmp)
    np.subtract(cl, q_err, out=q_err)
    for a, b, sign in ((ch, cos_m1, 1), (sh, sin_tail, -1), (sl, r_hi, -1)):
        _add_product(q_err, a, b, tmp, sign)
    np.negative(q, out=q)
    c_hi, c_lo = _head_tail(ch, q, q_err, tmp)
    return s_hi, s_lo, c_hi, c_lo


def _split_into(x: F64, tmp: F64) -> tuple[F64, F64]:
    """Veltkamp's split of x (:func:`veltkamp_split`, op for op): (hi, lo), new arrays."""
    hi = x * _SPLITTER
    np.subtract(hi, x, out=tmp)
    hi -= tmp
    return hi, x - hi


def _horner(r2: F64, coefficients: tuple[float, ...], tmp: F64) -> F64:
    """c_0·r² + c_1, times r², + c_2 … (the innermost coefficient first), a new array."""
    acc = r2 * coefficients[0]
    for i, c in enumerate(coefficients[1:], start=2):
        acc += c
        if i < len(coefficients):
            acc *= r2
    return acc


def _head_tail(big: F64, product: F64, tail: F64, tmp: F64) -> tuple[F64, F64]:
    """TwoSum(head, err + tail) of (head, err) = TwoSum(big, product); ``tail`` reused."""
    head, err = np.empty_like(tail), np.empty_like(tail)
    _two_sum_into(big, product, head, err, tmp)
    tail += err
    s, e = product, err  # product is no longer needed
    _two_sum_into(head, tail, s, e, tmp)
    return s, e


@lru_cache(maxsize=1)
def _circle_columns() -> tuple[F64, ...]:
    """The 8 columns of :func:`circle_table` as contiguous arrays (N,), for 1-D gathers."""
    return tuple(np.ascontiguousarray(circle_table()[:, i]) for i in range(8))


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
    if n <= max(1, CHUNK_ELEMENTS // max(half, 1)):  # one chunk: no copy
        return sincos_turns(*turns(x, pieces, extra))
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
