"""The exact path's reduction and polynomials attacked where the value tests do not look
(issue 42, SPEC Annex C.3/C.4).

turns() is checked against x·Σ W_i taken exactly in mpmath at the bound of SPEC Annex C.4's
two "reduction" rows rescaled to the tested turns (as
tests/sinusoidal/reference/test_exact.py does),
about 2^-101 here: on positions |x| < 2^26 (whose Veltkamp low half is 0, the branch every
anchor and offset of a short table takes), and with an ``extra`` (the turns of a position
offset) added modulo 1. A dropped or doubled smallest piece (|x·W_4| ≈ 2^-80 here) or a lost
two_sum error (up to 2^-54) is far outside. The Taylor coefficients are pinned to the
correctly rounded ±1/n!: their errors are below what any value test of sin/cos can see
(a wrong 1/8! moves cos by ~2^-81, inside δ = 2^-62.4).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from pespec.numerics import turns as angle_turns
from pespec.numerics.circle import veltkamp_split
from pespec.sinusoidal.reference import exact
from pespec.sinusoidal.reference.conventions import PRESETS

EXTRA_ROUNDINGS = mpmath.mpf(2) ** -104
"""``low += err + extra_lo``: two float64 roundings of numbers below 2^-52 (½ ulp ≤ 2^-106
each), taken as 2^-104."""


def _pieces() -> np.ndarray:
    return exact.turn_pieces(64, 10000.0, convention=PRESETS["canonical"])


def _bound(x: np.ndarray, pieces: np.ndarray) -> mpmath.mpf:
    """SPEC Annex C.4's reduction rows (radians at |θ| = 2^40) rescaled to max |x·W_0|, in
    turns: (growing·turns/turns_max + constant)/(2π)."""
    growing, constant = (b for step, _, b in exact.error_budget() if step == "reduction")
    budget_turns = mpmath.mpf(2) ** 40 / (2 * mpmath.pi)
    tested = mpmath.mpf(float(np.max(np.abs(x)))) * mpmath.fsum(pieces[0].tolist())
    return (growing * tested / budget_turns + constant) / (2 * mpmath.pi)


def _check(x: np.ndarray, pieces: np.ndarray, extra: tuple[np.ndarray, np.ndarray] | None) -> None:
    hi, lo = angle_turns.turns(x, pieces, extra)
    assert np.all(np.abs(hi) <= 0.5)
    with mpmath.workdps(60):
        bound = _bound(x, pieces) + (EXTRA_ROUNDINGS if extra is not None else 0)
        assert bound < mpmath.mpf(2) ** -98
        for k in range(pieces.shape[0]):
            w = mpmath.fsum(mpmath.mpf(v) for v in pieces[k].tolist())
            shift = 0 if extra is None else mpmath.mpf(extra[0][k]) + mpmath.mpf(extra[1][k])
            for i in range(x.shape[0]):
                want = mpmath.mpf(x[i]) * w + shift
                diff = mpmath.mpf(hi[i, k]) + mpmath.mpf(lo[i, k]) - want
                assert abs(diff - mpmath.nint(diff)) <= bound, (i, k)


def _short_positions() -> np.ndarray:
    """Integers |x| < 2^26 (x_lo = 0), the largest at both ends: |x·W_0| ≈ 2^23.3 turns."""
    rng = np.random.default_rng(11)
    ends = np.array([2**26 - 1, -(2**26 - 1), 2**25 + 1, 3], dtype=np.float64)
    return np.concatenate([ends, rng.integers(-(2**26) + 1, 2**26, 12).astype(np.float64)])


def test_turns_of_short_positions_against_mpmath() -> None:
    pieces = _pieces()
    x = _short_positions()
    assert not np.any(veltkamp_split(x)[1])  # the x_lo = 0 branch
    _check(x, pieces, None)


def test_turns_with_an_offset_against_mpmath() -> None:
    """extra = (hi, lo) per frequency, |hi| ≤ 1/2 and |lo| ≤ 2^-54 (a double-double in turns),
    added modulo 1; positions of both branches (|x| < 2^26 and up to 2^31)."""
    pieces = _pieces()
    rng = np.random.default_rng(12)
    half = pieces.shape[0]
    extra_hi = np.asarray(rng.uniform(-0.5, 0.5, half))
    extra_hi[:2] = (0.5, -0.5)  # the ends of the turns' range
    extra = (extra_hi, np.asarray(rng.uniform(-(2.0**-54), 2.0**-54, half)))
    long = rng.integers(-(2**31), 2**31, 6).astype(np.float64)
    _check(_short_positions(), pieces, extra)
    _check(long, pieces, extra)


def test_taylor_coefficients_are_the_nearest_reciprocal_factorials() -> None:
    """sin ρ = ρ − ρ³/3! + ρ⁵/5! − ρ⁷/7!, cos ρ − 1 = −ρ²/2! + ρ⁴/4! − ρ⁶/6! + ρ⁸/8!: each
    coefficient the float64 nearest ±1/n! (CPython's int/int is correctly rounded)."""
    want = {
        "_S3": -Fraction(1, math.factorial(3)),
        "_S5": Fraction(1, math.factorial(5)),
        "_S7": -Fraction(1, math.factorial(7)),
        "_C2": -Fraction(1, math.factorial(2)),
        "_C4": Fraction(1, math.factorial(4)),
        "_C6": -Fraction(1, math.factorial(6)),
        "_C8": Fraction(1, math.factorial(8)),
    }
    for name, value in want.items():
        assert getattr(angle_turns, name) == float(value), name


def test_f32_split_is_the_float32_head_and_the_exact_rest() -> None:
    """head = hi rounded to 24 bits, tail = (hi − head) + lo; both chosen so that every value
    is exact in float64 (derived by hand): 1 + 2^-30 + 2^-52 rounds to 1 in float32 and the
    rest 2^-30 + 2^-52 + 2^-60 spans 31 bits; likewise −3/4 − 2^-40 and −2^-70."""
    hi = np.array([1.0 + 2.0**-30 + 2.0**-52, -0.75 - 2.0**-40])
    lo = np.array([2.0**-60, -(2.0**-70)])
    head, tail = angle_turns.f32_split(hi, lo)
    assert head.tolist() == [1.0, -0.75]
    assert tail.tolist() == [2.0**-30 + 2.0**-52 + 2.0**-60, -(2.0**-40) - 2.0**-70]


def test_cut_turn_pieces_default_scale_signs_and_zero() -> None:
    """With the default scale (1, as rope/reference.py calls it) the pieces of ω sum to ω/(2π)
    within 2^-129 relative (mpmath at 300 bits), keep ω's sign (ω = −1 included), have ≤ 26
    bits each, and a zero frequency gives zero pieces."""
    hi = np.array([1.0, -1.0, 0.0, 0.5, -3.0])
    lo = np.array([0.0, 0.0, 0.0, 2.0**-60, -(2.0**-55)])
    pieces = angle_turns.cut_turn_pieces(hi, lo)
    assert pieces.shape == (5, angle_turns.PIECES)
    assert not pieces[2].any()
    with mpmath.workprec(300):
        for k in (0, 1, 3, 4):
            want = (mpmath.mpf(hi[k]) + mpmath.mpf(lo[k])) / (2 * mpmath.pi)
            total = sum((Fraction(float(p)) for p in pieces[k]), Fraction(0))
            got = mpmath.mpf(total.numerator) / total.denominator
            assert abs(got - want) <= abs(want) * mpmath.mpf(2) ** -129, k
            assert all(math.copysign(1.0, float(p)) == math.copysign(1.0, hi[k]) for p in pieces[k])
            assert all(abs(Fraction(float(p)).numerator).bit_length() <= 26 for p in pieces[k])


def test_sincos_dd_in_chunks_gives_each_row_its_own_bits() -> None:
    """Above CHUNK_ELEMENTS the rows are computed in chunks; every element is computed on its
    own (elementwise operations), so a row must get the bits it gets alone, the result keep
    shape (n, K) for K ≠ PIECES, and every row (chunk ends included) be filled."""
    freqs = np.array([1.0, 0.01, 1e-4])
    pieces = angle_turns.cut_turn_pieces(freqs, np.zeros(3))
    rows = angle_turns.CHUNK_ELEMENTS // 3
    n = 2 * rows + 5
    x = np.arange(n, dtype=np.float64) * 7.0 + 0.25
    parts = angle_turns.sincos_dd(x, pieces)
    for part in parts:
        assert part.shape == (n, 3)
    for i in (0, rows - 1, rows, 2 * rows, n - 1):
        alone = angle_turns.sincos_turns(*angle_turns.turns(x[i : i + 1], pieces))
        for part, single in zip(parts, alone, strict=True):
            assert part[i].tobytes() == single[0].tobytes(), i


def test_frac_is_x_minus_the_nearest_integer() -> None:
    """x − rint(x) (ties to even), by hand: 2.75 → −0.25, −3.25 → −0.25, 0.5 → 0.5 (rint 0),
    −1.5 → 0.5 (rint −2), 2^52 + 1 → 0."""
    x = np.array([2.75, -3.25, 0.5, -1.5, 2.0**52 + 1])
    assert angle_turns.frac(x).tolist() == [-0.25, -0.25, 0.5, 0.5, 0.0]
