"""The exact float64 reference (SPEC Annex C): within 2^-52 of the oracle at every position.

What: the sinusoidal encoding in float64 whose error does not grow with the position (the
naive formula's does), for any convention of SPEC §3. Why: the suite compares large
configurations with it, and users call it for a fast float64 encoding.

How: the angle is taken in turns (θ/2π) from the oracle's double-double frequencies times a
256-bit 1/(2π), reduced modulo 1 without error, evaluated with a table and short
polynomials (no libm call), and consecutive integer positions use a block rotation; every
element depends on its position alone, bit for bit, and the sine is odd bit for bit. The
algorithm and the proof of the bound are SPEC Annex C.3 and C.4 (:func:`error_budget` evaluates its
table), and C.8 for fractional positions (:mod:`pespec.numerics.faithful`); they are not
repeated here.

Shapes: positions (n,) or any shape, outputs (*positions.shape, d_model) float64;
angles in radians unless called turns.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final

import mpmath
import numpy as np
from numpy.typing import NDArray

from pespec.numerics.rotation import (
    GRID,
    TILE_ELEMENTS,
    Rotator,
    TableLayout,
    fine_factors,
)
from pespec.numerics.rotation import fill_positions as fill_rows
from pespec.numerics.turns import (
    INV_2PI_BITS,
    PIECE_BITS,
    PIECES,
    TABLE_SIZE,
    TWO_PI_HI,
    TWO_PI_LO,
    Factors,
    cut_turn_pieces,
    dyadic,
    inv_two_pi_fixed,
)
from pespec.numerics.validation import check_non_negative_int, check_positions
from pespec.sinusoidal.reference.conventions import CANONICAL, Convention
from pespec.sinusoidal.reference.oracle import frequencies_dd
from pespec.sinusoidal.reference.validation import check_base, check_d_model

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
    "TableLayout",
    "apply_output_scale",
    "dyadic",
    "error_budget",
    "exact_encode",
    "exact_frequencies",
    "exact_sinusoidal_positional_encoding",
    "fill_positions",
    "fine_factors",
    "inv_two_pi_fixed",
    "iter_encoding_chunks",
    "make_rotator",
    "scaled_reference_error",
    "turn_pieces",
]

F64 = NDArray[np.float64]

MAX_POSITION: Final = 2.0**53
"""|p + o| must not exceed this (float64 integers are exact up to 2^53); beyond it use the
oracle. The 2^-52 bound is proved for |c·(p + o)| ≤ 2^40 (SPEC Annex C)."""


@lru_cache(maxsize=32)
def _turn_pieces_cached(d_model: int, base: float, convention: Convention) -> F64:
    hi, lo = frequencies_dd(d_model, base, convention=convention)
    return cut_turn_pieces(hi, lo, float(convention.argument_scale))


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
# the block rotation of a configuration (the machinery is pespec.numerics.rotation)


def table_layout(convention: Convention) -> TableLayout:
    """The row layout of ``convention`` for the angle kernel: its layout, its position offset
    o as the shift, and c < 0 as the negation of every angle."""
    return TableLayout(
        convention.layout, int(convention.position_offset), convention.argument_scale < 0
    )


@lru_cache(maxsize=8)
def _cached_fine(d_model: int, base: float, convention: Convention) -> Factors:
    """The fine-offset factors of a configuration, like the frequencies computed once."""
    return fine_factors(_abs_pieces(d_model, base, convention))


@lru_cache(maxsize=32)
def _abs_pieces(d_model: int, base: float, convention: Convention) -> F64:
    """|W_k| as pieces, shape (d/2, 5): the reference works on |θ| (the sign comes last)."""
    pieces = np.abs(turn_pieces(d_model, base, convention=convention))
    pieces.setflags(write=False)
    return pieces


def make_rotator(d_model: int, base: float, convention: Convention) -> Rotator:
    """The block rotation of one configuration: |W_k| pieces, its layout, shared fine factors.

    The rotation runs on |x| with the absolute pieces |W_k| (non-negative angles, so no
    anchor is negative); the sine is negated where c·x < 0.
    """
    key = (check_d_model(d_model), check_base(base), convention)
    return Rotator(_abs_pieces(*key), table_layout(convention), lambda: _cached_fine(*key))


# ---------------------------------------------------------------------------
# public entry points


def _check_range(first: int, last: int) -> None:
    for value in (first, last):
        if abs(value) > MAX_POSITION:
            raise ValueError(
                f"positions must satisfy |position + position_offset| <= 2**53 for the float64 "
                f"reference; got {value} (use pespec.sinusoidal.reference.oracle.encode beyond)"
            )


def _check_domain(p: NDArray[Any], offset: int) -> None:
    """Raise the ValueError of :func:`_check_range` unless every |p + o| ≤ 2^53."""
    if p.size == 0:
        return
    if p.dtype.kind in "iu":
        _check_range(int(p.min()) + offset, int(p.max()) + offset)
        return
    _check_range(offset, offset)
    biggest = float(np.max(np.abs(p)))
    if biggest > MAX_POSITION + abs(offset):  # |p + o| ≥ |p| − |o| > 2^53
        _check_range(int(biggest) - abs(offset), 0)
    is_integral = p == np.rint(p)
    integral = p[is_integral]
    if integral.size:  # integral floats are shifted by o exactly: check p + o
        _check_range(int(integral.min()) + offset, int(integral.max()) + offset)
    fractional = p[~is_integral]
    if fractional.size:  # |p| < 2^52 here, so |p + o| ≤ ⌈max |p|⌉ + |o| is exact in ints
        _check_range(math.ceil(float(np.max(np.abs(fractional)))) + abs(offset), 0)


def fill_positions(out: F64, p: NDArray[Any], rotator: Rotator, convention: Convention) -> None:
    """out (n, d) ← encoding of the flat positions p (n,), int64 or float64, for the
    ``convention`` the rotator was made for (:func:`make_rotator`), after checking
    |p + o| ≤ 2^53 (:func:`pespec.numerics.rotation.fill_positions` does the work). An output
    scale A multiplies the result once at the end (:func:`apply_output_scale`)."""
    _check_domain(p, rotator.layout.shift)
    fill_rows(out, p, rotator)
    apply_output_scale(out, convention)


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
    rotator = make_rotator(d, base, convention)
    out = np.empty((p.size, d), dtype=np.float64)
    fill_positions(out, p.reshape(-1), rotator, convention)
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
    rotator = make_rotator(d, base, convention)
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
    rotator = make_rotator(d, base, convention)
    offset = int(convention.position_offset)
    if isinstance(positions, range):
        if len(positions):
            _check_range(positions[0] + offset, positions[-1] + offset)
        return _stream_range(positions, d, rows, rotator, convention)
    p = check_positions(positions)
    if p.ndim != 1:
        raise ValueError(f"positions must be a range or one-dimensional; got shape {p.shape}")
    _check_domain(p, offset)
    return _stream_array(p, d, rows, rotator, convention)


def _stream_range(
    positions: range, d: int, rows: int, rotator: Rotator, convention: Convention
) -> Iterator[tuple[int, F64]]:
    """The generator behind :func:`iter_encoding_chunks` for a validated range."""
    for first in range(0, len(positions), rows):
        chunk = positions[first : first + rows]
        block = np.empty((len(chunk), d), dtype=np.float64)
        chunk_positions = np.arange(chunk.start, chunk.stop, chunk.step)
        fill_positions(block, chunk_positions, rotator, convention)
        yield first, block


def _stream_array(
    p: NDArray[Any], d: int, rows: int, rotator: Rotator, convention: Convention
) -> Iterator[tuple[int, F64]]:
    """The generator behind :func:`iter_encoding_chunks` for a validated 1-D array."""
    for first in range(0, p.shape[0], rows):
        block = np.empty((min(rows, p.shape[0] - first), d), dtype=np.float64)
        fill_positions(block, p[first : first + rows], rotator, convention)
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
