"""The exact float64 reference (SPEC Annex C): within 2^-52 of the oracle at every position.

What: the sinusoidal encoding in float64 whose error does not grow with the position (the
naive formula's does), for any convention of SPEC §3. Why: the suite compares large
configurations with it, and users call it for a fast float64 encoding.

How: the angle is taken in turns (θ/2π) from the oracle's double-double frequencies times a
256-bit 1/(2π), reduced modulo 1 without error, evaluated with a table and short
polynomials (no libm call), and consecutive integer positions use a block rotation; every
element depends on its position alone, bit for bit, and the sine is odd bit for bit. The
algorithm and the proof of the bound are SPEC Annex C.3 and C.4 (:func:`error_budget` evaluates its
table); they are not repeated here.

Shapes: positions (n,) or any shape, outputs (*positions.shape, d_model) float64;
angles in radians unless called turns.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final

import gmpy2
import mpmath
import numpy as np
from numpy.typing import NDArray

from pespec.reference import _kernels
from pespec.reference.circle import TABLE_SIZE, circle_table, veltkamp_split
from pespec.reference.conventions import CANONICAL, Convention
from pespec.reference.oracle import frequencies_dd
from pespec.reference.validation import (
    check_base,
    check_d_model,
    check_non_negative_int,
    check_positions,
)

__all__ = [
    "GRID",
    "INV_2PI_BITS",
    "MAX_POSITION",
    "MAX_SCALED_POSITION",
    "PIECES",
    "PIECE_BITS",
    "TABLE_SIZE",
    "TILE_ELEMENTS",
    "TWO_PI_HI",
    "TWO_PI_LO",
    "Factors",
    "Rotator",
    "apply_output_scale",
    "dyadic",
    "error_budget",
    "exact_encode",
    "exact_frequencies",
    "exact_sinusoidal_positional_encoding",
    "fill_positions",
    "inv_two_pi_fixed",
    "iter_encoding_chunks",
    "scaled_reference_error",
    "turn_pieces",
]

F64 = NDArray[np.float64]
C128 = NDArray[np.complex128]

MAX_POSITION: Final = 2.0**53
"""|p + o| must not exceed this (float64 integers are exact up to 2^53); beyond it use the
oracle. The 2^-52 bound is proved for |c·(p + o)| ≤ 2^40 (SPEC Annex C)."""

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
_CHUNK_ELEMENTS: Final = 1 << 13  # elements per temporary in the exact path (64 KiB)
GRID: Final = 64
"""B: integer positions are rotated from anchors at multiples of GRID (SPEC Annex C)."""

TILE_ELEMENTS: Final = 1 << 15
"""Elements per rotation tile (256 KiB per float64 array)."""
_FACTOR_BYTES: Final = 64  # per (angle, column) of a Factors: 1 complex + 6 float64
_FINE_CACHE_BYTES: Final = 1 << 24  # fine factors up to 16 MiB are cached per configuration
_KERNEL_ANCHOR_ELEMENTS: Final = 1 << 15  # kernels: anchor factors per gather block (2 MiB)

# Taylor coefficients, correctly rounded by CPython's int/int division.
_S3, _S5, _S7 = -1 / 6, 1 / 120, -1 / 5040
_C2, _C4, _C6, _C8 = -1 / 2, 1 / 24, -1 / 720, 1 / 40320


# ---------------------------------------------------------------------------
# error-free transformations (Dekker 1971, Knuth TAOCP vol. 2 §4.2.2)


def _two_sum(a: F64, b: F64) -> tuple[F64, F64]:
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _frac(x: F64) -> F64:
    """x − rint(x), exact for every float64; result in [−1/2, 1/2]."""
    result: F64 = x - np.rint(x)
    return result


def _f32_split(hi: F64, lo: F64) -> tuple[F64, F64]:
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


@lru_cache(maxsize=32)
def _turn_pieces_cached(d_model: int, base: float, convention: Convention) -> F64:
    hi, lo = frequencies_dd(d_model, base, convention=convention)
    scale_m, scale_e = dyadic(float(convention.argument_scale))
    inverse = inv_two_pi_fixed()
    mask = (1 << PIECE_BITS) - 1
    pieces = np.zeros((d_model // 2, PIECES), dtype=np.float64)
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


def turn_pieces(d_model: int, base: float = 10000.0, *, convention: Convention = CANONICAL) -> F64:
    """W_k = c·ω_k/(2π) (turns per unit position) as 5 pieces of ≤ 26 bits; shape (d/2, 5).

    Each piece is a truncation of W_k (same sign, decreasing), so x·w_i is exact for any
    x of ≤ 27 bits; the pieces sum to c·(ω_hi + ω_lo)/(2π) within 2^-129 relative.
    Cached per (d_model, base, convention); read-only.
    """
    d = check_d_model(d_model)
    b = check_base(base)
    convention.denominator(d)
    return _turn_pieces_cached(d, b, convention)


def exact_frequencies(
    d_model: int, base: float = 10000.0, *, convention: Convention = CANONICAL
) -> F64:
    """ω_k = base^(−k/(d/2 − s)) correctly rounded to float64 (the oracle's hi); shape (d/2,)."""
    hi, _ = frequencies_dd(check_d_model(d_model), check_base(base), convention=convention)
    result: F64 = hi.copy()
    return result


# ---------------------------------------------------------------------------
# the exact path: turns, then double-double sin and cos


def _turns(x: F64, pieces: F64, extra: tuple[F64, F64] | None = None) -> tuple[F64, F64]:
    """x·W_k modulo 1 as a double-double (hi, lo), |hi| ≤ 1/2; x (n,), result (n, K).

    ``extra`` (hi, lo) of shape (K,) is added modulo 1 (the turns of a position offset).
    Every product is exact and every fractional part is exact; the double-double sum
    loses < 2^-100; the two smallest pieces are added in plain float64 (< 2^-87 for
    |x·W| ≤ 2^40).
    """
    x_hi, x_lo = veltkamp_split(x)
    x_hi, x_lo = x_hi[:, None], x_lo[:, None]
    w = [pieces[:, i] for i in range(PIECES)]
    total = _frac(x_hi * w[0])
    low = np.zeros_like(total)
    # x_lo = 0 (|x| < 2^26, e.g. every anchor and offset of a short table) makes its terms
    # zero, and adding a zero term changes nothing: skipping them gives the same bits.
    halves = (x_hi, x_lo) if np.any(x_lo) else (x_hi,)
    for i in range(3):
        for half in halves:
            if i == 0 and half is x_hi:
                continue
            total, err = _two_sum(total, _frac(half * w[i]))
            low += err
            total = _frac(total)
    small = x_hi * w[3] + x_hi * w[4]
    if len(halves) == 2:
        small = (x_hi * w[3] + x_lo * w[3]) + (x_hi * w[4] + x_lo * w[4])
    low += small
    if extra is not None:
        total, err = _two_sum(total, np.broadcast_to(extra[0], total.shape))
        low += err + extra[1]
        total = _frac(total)
    hi, lo = _two_sum(total, low)
    return _frac(hi), lo


def _sincos_turns(t_hi: F64, t_lo: F64) -> tuple[F64, F64, F64, F64]:
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
    head, err = _two_sum(sh, p)
    tail = err + (p_err + sl + ch * sin_tail + sh * cos_m1 + cl * r_hi)
    s_hi, s_lo = _two_sum(head, tail)
    # cos(T + ρ) = C + C·(cos ρ − 1) − S·sin ρ
    q = sh * r_hi
    q_err = ((sa * r_a - q) + sa * r_b + sb * r_a) + sb * r_b
    head, err = _two_sum(ch, -q)
    tail = err + (cl - q_err + ch * cos_m1 - sh * sin_tail - sl * r_hi)
    c_hi, c_lo = _two_sum(head, tail)
    return s_hi, s_lo, c_hi, c_lo


def _row_chunks(n: int, width: int) -> Iterator[tuple[int, int]]:
    """[start, stop) row ranges with about _CHUNK_ELEMENTS elements per (rows, width) block."""
    rows = max(1, _CHUNK_ELEMENTS // max(width, 1))
    for start in range(0, n, rows):
        yield start, min(n, start + rows)


def _sincos_dd(
    x: F64, pieces: F64, extra: tuple[F64, F64] | None = None
) -> tuple[F64, F64, F64, F64]:
    """Double-double sin and cos of 2π·(x·W_k + extra_k); x (n,), each result (n, K)."""
    n, half = x.shape[0], pieces.shape[0]
    s_hi, s_lo, c_hi, c_lo = (np.empty((n, half)) for _ in range(4))
    for start, stop in _row_chunks(n, half):
        parts = _sincos_turns(*_turns(x[start:stop], pieces, extra))
        for target, part in zip((s_hi, s_lo, c_hi, c_lo), parts, strict=True):
            target[start:stop] = part
    return s_hi, s_lo, c_hi, c_lo


# ---------------------------------------------------------------------------
# block rotation: integer positions x = A + q, A = GRID·floor(x/GRID), 0 <= q < GRID


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
        if _kernels.enabled():
            self.stacked = _kernels.factors(x, pieces, anchor=anchor)
            self.h_re, self.h_im, self.t_re, self.t_im, self.f_re, self.f_im = self.stacked
            self.head = _complex(self.h_re, self.h_im if anchor else -self.h_im)
            return
        s_hi, s_lo, c_hi, c_lo = _sincos_dd(x, pieces)
        s_head, s_tail = _f32_split(s_hi, s_lo)
        c_head, c_tail = _f32_split(c_hi, c_lo)
        if anchor:  # w(A) = sin A + i·cos A
            self.head = _complex(s_head, c_head)
            self.h_re, self.h_im, self.t_re, self.t_im = s_head, c_head, s_tail, c_tail
            self.f_re, self.f_im = s_hi, c_hi
        else:  # e^{-iF}: real part cos F, imaginary part −sin F (stored as +sin F below)
            self.head = _complex(c_head, -s_head)
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


def _complex(real: F64, imag: F64) -> C128:
    result = np.empty(real.shape, dtype=np.complex128)
    result.real = real
    result.imag = imag
    return result


def _rotate(
    anchor: Factors,
    a_index: Any,
    fine: Factors,
    f_index: Any,
    sin_out: F64,
    cos_out: F64,
    scratch: tuple[C128, F64, F64],
) -> None:
    """sin_out, cos_out ← sin and cos of A + F for broadcast-compatible selections.

    sin(A+F) = [s1·c1' + c1·s1'] + [(s1·c2' + c1·s2') + (s2·C' + c2·S')] and
    cos(A+F) = [c1·c1' − s1·s1'] + [(c1·c2' − s1·s2') + (c2·C' − s2·S')], where 1 = head,
    2 = tail, C', S' = full heads of the fine factor. The bracketed head products are exact
    (24 + 24 bits), so the complex multiply rounds each part once whatever its internal
    order; every other step is a plain IEEE operation in a fixed order, so each element is
    a function of (A, F) alone, bit for bit, whatever the array shapes.
    """
    big, acc, tmp = scratch
    np.multiply(anchor.head[a_index], fine.head[f_index], out=big)
    a1, c1, a2, c2 = (getattr(anchor, n)[a_index] for n in ("h_re", "h_im", "t_re", "t_im"))
    b2, d2, bh, dh = (getattr(fine, n)[f_index] for n in ("t_re", "t_im", "f_re", "f_im"))
    _signed_products(
        acc, tmp, [(a1, b2, np.add), (c1, d2, np.add), (a2, bh, np.add), (c2, dh, np.add)]
    )
    np.add(big.real, acc, out=sin_out)
    _signed_products(
        acc, tmp, [(c1, b2, np.add), (a1, d2, np.subtract), (c2, bh, np.add), (a2, dh, np.subtract)]
    )
    np.add(big.imag, acc, out=cos_out)


def _signed_products(acc: F64, tmp: F64, terms: list[tuple[F64, F64, np.ufunc]]) -> None:
    """acc ← ((x₀·y₀ ± x₁·y₁) ± x₂·y₂) ± …, left to right (the first sign is +)."""
    first, *rest = terms
    np.multiply(first[0], first[1], out=acc)
    for x, y, combine in rest:
        np.multiply(x, y, out=tmp)
        combine(acc, tmp, out=acc)


def _sin_cos_views(out: F64, convention: Convention) -> tuple[F64, F64]:
    """The sin and cos column views of ``out`` (..., d); strided for the interleaved layout."""
    half = out.shape[-1] // 2
    if convention.layout == "interleaved":
        return out[..., 0::2], out[..., 1::2]
    if convention.layout == "sin_cos_halves":
        return out[..., :half], out[..., half:]
    return out[..., half:], out[..., :half]


def _layout_code(convention: Convention) -> int:
    """The kernels' layout code: 0 interleaved, 1 sin|cos halves, 2 cos|sin halves."""
    return {"interleaved": 0, "sin_cos_halves": 1}.get(convention.layout, 2)


def _scratch(shape: tuple[int, ...]) -> tuple[C128, F64, F64]:
    return np.empty(shape, dtype=np.complex128), np.empty(shape), np.empty(shape)


@lru_cache(maxsize=8)
def _cached_fine(d_model: int, base: float, convention: Convention) -> Factors:
    """The fine-offset factors of a configuration, like the frequencies computed once."""
    pieces = _abs_pieces(d_model, base, convention)
    fine = Factors(np.arange(GRID, dtype=np.float64), pieces, anchor=False)
    for name in Factors.NAMES:
        getattr(fine, name).setflags(write=False)
    return fine


@lru_cache(maxsize=32)
def _abs_pieces(d_model: int, base: float, convention: Convention) -> F64:
    """|W_k| as pieces, shape (d/2, 5): the reference works on |θ| (the sign comes last)."""
    pieces = np.abs(turn_pieces(d_model, base, convention=convention))
    pieces.setflags(write=False)
    return pieces


def _negate_sine(out: F64, convention: Convention, rows: NDArray[np.bool_] | None = None) -> None:
    """Negate the sine columns of ``out`` (n, d) in place, of all rows or where ``rows``."""
    if rows is None:
        sin_view = _sin_cos_views(out, convention)[0]
        np.negative(sin_view, out=sin_view)
        return
    index = np.ix_(np.flatnonzero(rows), convention.sin_columns(out.shape[-1]))
    out[index] = -out[index]


class Rotator:
    """Encodes integer positions x (|x| ≤ 2^53) by the block rotation; value depends on x only.

    The rotation runs on |x| with the absolute pieces |W_k| (non-negative angles, so no
    anchor is negative); the sine is negated where c·x < 0 (``flip`` says whether c < 0).
    """

    def __init__(self, d_model: int, base: float, convention: Convention) -> None:
        self.key = (check_d_model(d_model), check_base(base), convention)
        self.pieces = _abs_pieces(*self.key)
        self.flip = convention.argument_scale < 0
        self.convention = convention
        self.half = self.pieces.shape[0]
        self._fine: Factors | None = None
        # work in tiles of about TILE_ELEMENTS elements: g anchors × GRID offsets × kt columns
        self.kt = max(1, min(self.half, TILE_ELEMENTS // GRID))
        self.group = max(1, TILE_ELEMENTS // (GRID * self.kt))

    @property
    def fine(self) -> Factors:
        """Factors of the fine offsets q = 0 .. GRID−1 (cached per configuration if small)."""
        if self._fine is None:
            if GRID * self.half * _FACTOR_BYTES <= _FINE_CACHE_BYTES:
                self._fine = _cached_fine(*self.key)
            else:
                self._fine = Factors(np.arange(GRID, dtype=np.float64), self.pieces, anchor=False)
        return self._fine

    def _anchors(self, first: float, count: int) -> Factors:
        return Factors(first + GRID * np.arange(count, dtype=np.float64), self.pieces, anchor=True)

    def fill_range(self, out: F64, x0: int) -> None:
        """out (n, d) ← rows for the positions x0, x0 + 1, …, x0 + n − 1."""
        n = out.shape[0]
        if x0 < 0:  # the negative part is its positive mirror, reversed, sine negated
            negative = min(n, -x0)
            self._fill_mirrored(out[:negative], x0)
            if negative < n:
                self.fill_range(out[negative:], 0)
            return
        self._fill_range(out, x0)
        if self.flip:  # c < 0: every angle but that of x = 0 is negative
            _negate_sine(out[1:] if x0 == 0 else out, self.convention)

    def _fill_mirrored(self, out: F64, x0: int) -> None:
        """out (m, d) ← rows for x0 … x0 + m − 1 < 0, from tiles of |x| (≤ 2 MiB each)."""
        m, d = out.shape
        rows = max(GRID, (1 << 18) // d // GRID * GRID)
        for r0 in range(0, m, rows):
            r1 = min(m, r0 + rows)
            tile = np.empty((r1 - r0, d), dtype=np.float64)
            self._fill_range(tile, -(x0 + r1 - 1))  # |x| for rows r1 − 1 … r0
            out[r0:r1] = tile[::-1]
        if not self.flip:
            _negate_sine(out, self.convention)

    def _fill_range(self, out: F64, x0: int) -> None:
        """fill_range for x0 ≥ 0 at the angles |c|·x·ω (no sign applied)."""
        n = out.shape[0]
        if n < GRID:  # fewer rows than fine offsets: evaluate only the offsets used
            self._fill_gather(out, np.arange(x0, x0 + n, dtype=np.int64))
            return
        first_block = x0 // GRID
        n_blocks = (x0 + n - 1) // GRID - first_block + 1
        batch = max(1, _CHUNK_ELEMENTS // self.half)
        for b0 in range(0, n_blocks, batch):
            b1 = min(n_blocks, b0 + batch)
            anchors = self._anchors(float((first_block + b0) * GRID), b1 - b0)
            if _kernels.enabled():
                r0 = max(0, (first_block + b0) * GRID - x0)
                r1 = min(n, (first_block + b1) * GRID - x0)
                x = np.arange(x0 + r0, x0 + r1, dtype=np.int64)
                _kernels.rotate_gather(
                    x // GRID - (first_block + b0),
                    x % GRID,
                    anchors.stack(),
                    self.fine.stack(),
                    out[r0:r1],
                    _layout_code(self.convention),
                )
                continue
            b = b0
            while b < b1:
                start = (first_block + b) * GRID - x0  # row of q = 0 (may be < 0)
                r0, r1 = max(0, start), min(n, start + GRID)
                if r1 - r0 < GRID:  # partial first or last block
                    self._block(out[r0:r1], anchors, b - b0, r0 - start)
                    b += 1
                    continue
                full = min(self.group, b1 - b, (n - r0) // GRID)  # consecutive full blocks
                rows = out[r0 : r0 + full * GRID].reshape(full, GRID, out.shape[1])
                self._group(rows, anchors, b - b0)
                b += full

    def _block(self, rows: F64, anchors: Factors, j: int, q0: int) -> None:
        """One partial block: rows (m, d) with offsets q0 .. q0 + m − 1 from anchor j."""
        m = rows.shape[0]
        sin_out, cos_out = _sin_cos_views(rows, self.convention)
        scratch = _scratch((m, self.kt))
        for k0 in range(0, self.half, self.kt):
            cols = slice(k0, min(self.half, k0 + self.kt))
            width = cols.stop - cols.start
            _rotate(
                anchors,
                (slice(j, j + 1), cols),
                self.fine,
                (slice(q0, q0 + m), cols),
                sin_out[:, cols],
                cos_out[:, cols],
                tuple(s[:, :width] for s in scratch),  # type: ignore[arg-type]
            )

    def _group(self, rows: F64, anchors: Factors, j: int) -> None:
        """Full blocks: rows (g, GRID, d) for anchors j .. j + g − 1."""
        g = rows.shape[0]
        sin_out, cos_out = _sin_cos_views(rows, self.convention)
        scratch = _scratch((g, GRID, self.kt))
        for k0 in range(0, self.half, self.kt):
            cols = slice(k0, min(self.half, k0 + self.kt))
            width = cols.stop - cols.start
            _rotate(
                anchors,
                (slice(j, j + g), None, cols),
                self.fine,
                (None, slice(None), cols),
                sin_out[..., cols],
                cos_out[..., cols],
                tuple(s[..., :width] for s in scratch),  # type: ignore[arg-type]
            )

    def fill_gather(self, out: F64, x: NDArray[np.int64]) -> None:
        """out (n, d) ← rows for arbitrary integer positions x (n,)."""
        negative = x < 0
        self._fill_gather(out, np.abs(x))
        if self.flip:
            negative = ~negative & (x != 0)
        if np.any(negative):
            _negate_sine(out, self.convention, negative)

    def _fill_gather(self, out: F64, x: NDArray[np.int64]) -> None:
        """fill_gather for x ≥ 0 at the angles |c|·x·ω (no sign applied)."""
        if _kernels.enabled():
            rows = max(1, _KERNEL_ANCHOR_ELEMENTS // self.half)
            for start in range(0, x.shape[0], rows):
                block = x[start : start + rows]
                q = block % GRID
                anchors, a_index = np.unique(block - q, return_inverse=True)
                anchor = Factors(anchors.astype(np.float64), self.pieces, anchor=True)
                _kernels.rotate_gather(
                    a_index.reshape(-1),
                    q,
                    anchor.stack(),
                    self.fine.stack(),
                    out[start : start + rows],
                    _layout_code(self.convention),
                )
            return
        for start, stop in _row_chunks(x.shape[0], self.half):
            block = x[start:stop]
            q = block % GRID
            anchors, a_index = np.unique(block - q, return_inverse=True)
            offsets, q_index = np.unique(q, return_inverse=True)
            anchor = Factors(anchors.astype(np.float64), self.pieces, anchor=True)
            if self._fine is None and offsets.shape[0] < GRID:
                fine = Factors(offsets.astype(np.float64), self.pieces, anchor=False)
            else:
                fine = self.fine.take(offsets.astype(np.intp))
            sin_out, cos_out = _sin_cos_views(out[start:stop], self.convention)
            _rotate(
                anchor.take(a_index.reshape(-1)),
                slice(None),
                fine.take(q_index.reshape(-1)),
                slice(None),
                sin_out,
                cos_out,
                _scratch(sin_out.shape),
            )


# ---------------------------------------------------------------------------
# public entry points


def _check_range(first: int, last: int) -> None:
    for value in (first, last):
        if abs(value) > MAX_POSITION:
            raise ValueError(
                f"positions must satisfy |position + position_offset| <= 2**53 for the float64 "
                f"reference; got {value} (use pespec.reference.oracle.encode beyond)"
            )


def _is_unit_range(p: NDArray[Any]) -> bool:
    """True for a 1-D int array p_0, p_0 + 1, …, p_0 + n − 1."""
    if p.ndim != 1 or p.dtype.kind not in "iu" or p.shape[0] < 2:
        return False
    return bool(int(p[-1]) - int(p[0]) == p.shape[0] - 1 and np.all(np.diff(p) == 1))


def _check_domain(p: NDArray[Any], offset: int) -> None:
    """Raise the ValueError of :func:`_check_range` unless every |p + o| ≤ 2^53."""
    if p.size == 0:
        return
    if p.dtype.kind in "iu":
        _check_range(int(p.min()) + offset, int(p.max()) + offset)
        return
    _check_range(offset, offset)
    biggest = float(np.max(np.abs(p)))
    if biggest > MAX_POSITION:
        _check_range(int(biggest), 0)
    is_integral = p == np.rint(p)
    integral = p[is_integral]
    if integral.size:  # integral floats are shifted by o exactly: check p + o
        _check_range(int(integral.min()) + offset, int(integral.max()) + offset)
    fractional = p[~is_integral]
    if fractional.size:  # |p| < 2^52 here, so |p + o| ≤ ⌈max |p|⌉ + |o| is exact in ints
        _check_range(math.ceil(float(np.max(np.abs(fractional)))) + abs(offset), 0)


def fill_positions(out: F64, p: NDArray[Any], rotator: Rotator) -> None:
    """out (n, d) ← encoding of the flat positions p (n,), int64 or float64.

    Integer values (ints, and floats with integral values) go through the block rotation,
    other floats through the exact path, so every element depends on its position only.
    An output scale A multiplies the result once at the end (:func:`apply_output_scale`).
    """
    _fill_unscaled(out, p, rotator)
    apply_output_scale(out, rotator.convention)


def apply_output_scale(out: F64, convention: Convention) -> None:
    """out (n, d) ← fl(Â·out), Â the float64 nearest the output scale A (nothing when A = 1).

    Each value v̂ within 2^-52 of v (|v̂| ≤ 1) becomes fl(Â·v̂) within
    A·(2^-52 + u·(1 + 2^-52)·(2 + u)) ≤ A·2^-51·(1 + 2^-52) of A·v (|Â − A| ≤ u·A, then one
    rounding): :func:`scaled_reference_error`, SPEC Annex C.7.
    """
    if convention.output_scale != 1.0:
        np.multiply(out, convention.amplitude(out.shape[-1]), out=out)


def scaled_reference_error(convention: Convention, d_model: int) -> float:
    """|x_ref − x| of this reference for ``convention`` at ``d_model`` (|p + o| < 2^31,
    |c·(p + o)| ≤ 2^40): 2^-52, or A·2^-51·(1 + 2^-50) with an output scale A (rounded up)."""
    if convention.output_scale == 1.0:
        return 2.0**-52
    return convention.amplitude(d_model) * 2.0**-51 * (1.0 + 2.0**-50)


def _fill_unscaled(out: F64, p: NDArray[Any], rotator: Rotator) -> None:
    """:func:`fill_positions` without the output scale."""
    pieces, convention = rotator.pieces, rotator.convention
    offset = int(convention.position_offset)
    _check_domain(p, offset)
    if p.dtype.kind in "iu":
        if _is_unit_range(p):
            rotator.fill_range(out, int(p[0]) + offset)
        else:
            rotator.fill_gather(out, p.astype(np.int64) + offset)
        return
    integral = p == np.rint(p)
    if np.any(integral):
        rows = np.flatnonzero(integral)
        values = p[rows].astype(np.int64)
        block = np.empty((rows.shape[0], out.shape[1]))
        rotator.fill_gather(block, values + offset)
        out[rows] = block
    fractional = ~integral
    if not np.any(fractional):
        return
    # |θ| = |c|·|p + o|·ω: rows with p + o < 0 are evaluated at −p − o (−p exact, the offset
    # reduced as −o) and their sine negated, like rows with p + o > 0 when c < 0.
    negative = p < -offset  # exact: |o| ≤ 2^53
    for mirrored in (False, True):
        rows = np.flatnonzero(fractional & (negative if mirrored else ~negative))
        if rows.size == 0:
            continue
        extra: tuple[F64, F64] | None = None
        if offset:
            hi, lo = _turns(np.array([float(-offset if mirrored else offset)]), pieces)
            extra = (hi[0], lo[0])
        x = -p[rows] if mirrored else p[rows]
        sign = -1.0 if mirrored != rotator.flip else 1.0
        _fill_exact(out, rows, x, extra, sign, rotator)


def _fill_exact(
    out: F64,
    rows: NDArray[np.intp],
    x: F64,
    extra: tuple[F64, F64] | None,
    sign: float,
    rotator: Rotator,
) -> None:
    """out[rows] ← rows by the exact path at x + o > 0 (turns of o in ``extra``), sine × sign."""
    pieces, convention = rotator.pieces, rotator.convention
    if _kernels.enabled():
        _fill_exact_kernels(out, rows, x, extra, sign, rotator)
        return
    sin_cols = convention.sin_columns(out.shape[1])
    cos_cols = convention.cos_columns(out.shape[1])
    for start, stop in _row_chunks(rows.shape[0], pieces.shape[0]):
        s_hi, s_lo, c_hi, c_lo = _sincos_turns(*_turns(x[start:stop], pieces, extra))
        target = rows[start:stop, None]
        out[target, sin_cols] = sign * (s_hi + s_lo)
        out[target, cos_cols] = c_hi + c_lo


def _fill_exact_kernels(
    out: F64,
    rows: NDArray[np.intp],
    x: F64,
    extra: tuple[F64, F64] | None,
    sign: float,
    rotator: Rotator,
) -> None:
    """:func:`_fill_exact` by the compiled kernels, in blocks of rows (written in place when
    the block's rows are consecutive, else through one block-sized buffer)."""
    step = max(1, _KERNEL_ANCHOR_ELEMENTS // rotator.half)
    for start in range(0, rows.shape[0], step):
        block = rows[start : start + step]
        first, last = int(block[0]), int(block[-1])
        consecutive = block.shape[0] == last - first + 1  # rows are increasing
        buffer = out[first : last + 1] if consecutive else np.empty((block.shape[0], out.shape[1]))
        layout = _layout_code(rotator.convention)
        _kernels.fill_exact(x[start : start + step], rotator.pieces, extra, sign, buffer, layout)
        if not consecutive:
            out[block] = buffer


def exact_encode(
    positions: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    convention: Convention = CANONICAL,
) -> F64:
    """Encoding of finite positions, each element within 2^-52 of the oracle (SPEC Annex C).

    ``positions``: ints or floats of any shape, |p + o| ≤ 2^53; result shape
    (*positions.shape, d_model), float64. Each element depends only on its position (bit
    for bit the same in every call and every entry point).
    """
    p = check_positions(positions)
    d = check_d_model(d_model)
    rotator = Rotator(d, base, convention)
    out = np.empty((p.size, d), dtype=np.float64)
    fill_positions(out, p.reshape(-1), rotator)
    return out.reshape((*p.shape, d))


def exact_sinusoidal_positional_encoding(
    seq_len: int,
    d_model: int,
    *,
    base: float = 10000.0,
    offset: int = 0,
    convention: Convention = CANONICAL,
) -> F64:
    """Rows for positions offset .. offset+seq_len−1; shape (seq_len, d_model), float64.

    Block rotation: extra memory O(d_model) besides the output (SPEC Annex C.5).
    """
    n = check_non_negative_int(seq_len, "seq_len")
    start = check_non_negative_int(offset, "offset")
    d = check_d_model(d_model)
    rotator = Rotator(d, base, convention)
    out = np.empty((n, d), dtype=np.float64)
    if n:
        x0 = start + int(convention.position_offset)
        _check_range(x0, x0 + n - 1)
        rotator.fill_range(out, x0)
        apply_output_scale(out, convention)
    return out


def iter_encoding_chunks(
    positions: range | Any,
    d_model: int,
    *,
    base: float = 10000.0,
    convention: Convention = CANONICAL,
    chunk_rows: int = 4096,
) -> Iterator[tuple[int, F64]]:
    """Iterator of (first_row, block): the encoding of the next ``chunk_rows`` positions.

    ``positions``: a ``range`` (any step; never materialised) or a 1-D array. Each block
    has shape (rows, d_model), float64, is a fresh array, and equals the matching rows
    of :func:`exact_encode` bit for bit. Memory: O(chunk_rows·d_model) per block, so a
    131072 × 4096 encoding can be compared against the reference block by block. Arguments
    are checked when called, not when iteration starts.
    """
    d = check_d_model(d_model)
    rows = check_non_negative_int(chunk_rows, "chunk_rows")
    if rows == 0:
        raise ValueError("chunk_rows must be a positive int; got 0")
    rotator = Rotator(d, base, convention)
    offset = int(convention.position_offset)
    if isinstance(positions, range):
        if len(positions):
            _check_range(positions[0] + offset, positions[-1] + offset)
        return _stream_range(positions, d, rows, rotator)
    p = check_positions(positions)
    if p.ndim != 1:
        raise ValueError(f"positions must be a range or one-dimensional; got shape {p.shape}")
    _check_domain(p, offset)
    return _stream_array(p, d, rows, rotator)


def _stream_range(
    positions: range, d: int, rows: int, rotator: Rotator
) -> Iterator[tuple[int, F64]]:
    """The generator behind :func:`iter_encoding_chunks` for a validated range."""
    for first in range(0, len(positions), rows):
        chunk = positions[first : first + rows]
        block = np.empty((len(chunk), d), dtype=np.float64)
        fill_positions(block, np.arange(chunk.start, chunk.stop, chunk.step), rotator)
        yield first, block


def _stream_array(
    p: NDArray[Any], d: int, rows: int, rotator: Rotator
) -> Iterator[tuple[int, F64]]:
    """The generator behind :func:`iter_encoding_chunks` for a validated 1-D array."""
    for first in range(0, p.shape[0], rows):
        block = np.empty((min(rows, p.shape[0] - first), d), dtype=np.float64)
        fill_positions(block, p[first : first + rows], rotator)
        yield first, block


# ---------------------------------------------------------------------------
# the error budget (SPEC Annex C), computed

MAX_SCALED_POSITION: Final = 2.0**40
"""|c·(p + o)| up to which the 2^-52 bound is proved (SPEC Annex C)."""


def error_budget() -> list[tuple[str, str, mpmath.mpf]]:
    """The terms of the Annex C proof: (step, term, upper bound on its absolute error) in mpmath.

    Every bound is evaluated from the constants of this module (N, the piece count, the
    polynomial degrees, the float32 split) with u = 2^-53; the last two rows are δ (the
    error of a double-double sin/cos from the exact path) and ε' (the error of a rotated
    element before its final rounding, excluding the one rounding of its exact head
    product). SPEC Annex C shows that 3·2^-54 + ε' < 2^-52 proves the bound.
    """
    mp = mpmath.mp
    with mpmath.workdps(40):
        u = mp.mpf(2) ** -53
        theta = mp.mpf(MAX_SCALED_POSITION)  # |θ| ≤ |c·(p + o)|·ω ≤ 2^40 rad
        turns = theta / (2 * mp.pi)
        rho = mp.pi / TABLE_SIZE + mp.mpf(2) ** -50  # |ρ| incl. the low word of the turns
        rho_lo = 2 * mp.pi * mp.mpf(2) ** -54 + mp.mpf(2) ** -60  # |2π·t_lo| + Dekker error
        half_sq = rho**2 / 2
        two = mp.mpf(2)
        terms: list[tuple[str, str, mpmath.mpf]] = [
            (
                "frequency",
                "ω as hi + lo (2^-106), pieces (2^-129), 1/2π (2^-250)",
                theta * two**-105,
            ),
            (
                "reduction",
                "the 2 smallest pieces summed in float64",
                8 * mp.pi * u * turns * two**-76,
            ),
            ("reduction", "low words of the turn sums", 16 * mp.pi * u * two**-52),
            ("residual", "ρ = 2π·τ: 2π_lo, t_lo products, 2 additions", 4 * u * rho_lo + two**-105),
            ("table", "e^{2πim/N} as double-doubles (2^-106 each, 3 used)", 3 * two**-106),
            ("polynomial", "sin truncation ρ^9/9!", rho**9 / mp.factorial(9)),
            ("polynomial", "cos truncation ρ^10/10!", rho**10 / mp.factorial(10)),
            ("polynomial", "rounding in ρ² and cos ρ − 1 (6u·ρ²/2)", 6 * u * half_sq),
            ("polynomial", "rounding in sin ρ − ρ (6u·ρ³/6)", u * rho**3),
            (
                "polynomial",
                "ignored ρ_lo·ρ²/2 (sin) and ρ_lo²/2 (cos)",
                rho_lo * half_sq + rho_lo**2,
            ),
            ("combination", "ignored S_lo·(cos ρ − 1), C_lo·(sin ρ − ρ)", u * half_sq),
            (
                "combination",
                "6 roundings in the low word, sums ≤ ρ²/2 + ρ³/6 + 2^-50",
                6 * u * (half_sq + rho**3 / 6 + two**-50),
            ),
        ]
        delta = mp.fsum(t[2] for t in terms)
        terms.append(("δ", "double-double sin/cos of the exact path (sum above)", delta))
        rotation = [
            ("rotation", "anchor and offset errors: 2·√2·δ", 2 * mp.sqrt(2) * delta),
            ("rotation", "tails (hi − head) + lo and ignored W2·E_lo: 8·2^-24·u", 8 * two**-24 * u),
            ("rotation", "small part: 8 products, 6 sums, all below 2^-22", 14 * u * two**-22),
        ]
        terms.extend(rotation)
        epsilon = mp.fsum(t[2] for t in rotation)
        terms.append(("ε'", "rotated element before rounding, head rounding excluded", epsilon))
    return terms
