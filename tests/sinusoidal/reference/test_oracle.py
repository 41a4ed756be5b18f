"""The oracle against an independent method (SPEC Annex B).

The independent method (:mod:`pespec.sinusoidal.reference._oracle_mpmath`) is mpmath's high-level
context at 400+ bits with a different formula for ω (``mpmath.power`` instead of MPFR's
exp(−k·ln(base)/den)) and mpmath's own sin/cos; its value is rounded to float64 exactly
through a Fraction (never through a decimal string). A disagreement would need the
400-bit value to sit within about 2^-340 of a rounding boundary.
"""

from __future__ import annotations

import math
import os
import random
import sys
from fractions import Fraction
from typing import Any

import gmpy2
import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float, mpmath_omega, mpmath_row
from pespec.sinusoidal.reference.conventions import (
    CANONICAL,
    PRESETS,
    TENSOR2TENSOR,
    Convention,
    diffusers_convention,
)
from pespec.sinusoidal.reference.oracle import (
    encode,
    encode_decimal,
    exact_positions,
    frequencies_dd,
    frequencies_mpf,
)

PRECISION = 400


def _round(value: mpmath.mpf) -> float:
    return mpf_to_float(value)


def _omega(d_model: int, base: float, convention: Convention, k: int) -> mpmath.mpf:
    return mpmath_omega(d_model, base, convention, k)


def _independent_row(
    position: int | float, d_model: int, base: float, convention: Convention, extra_bits: int = 0
) -> list[float]:
    return mpmath_row(position, d_model, base, convention, PRECISION + extra_bits)


@pytest.mark.parametrize(
    ("d_model", "base", "convention"),
    [
        (512, 10000.0, CANONICAL),
        (64, 4.0, CANONICAL),  # ω_16 = 4^(-1/2) = 1/2 exactly: the rational path
        (64, 100.0, TENSOR2TENSOR),  # lowest frequency exactly 1/100
        (8, 1e6, CANONICAL),
        (8, 3.7, diffusers_convention(downscale_freq_shift=0.3)),
        (2048, 1e7, CANONICAL),
    ],
)
def test_frequencies_dd_is_correctly_rounded_double_double(
    d_model: int, base: float, convention: Convention
) -> None:
    hi, lo = frequencies_dd(d_model, base, convention=convention)
    assert hi.shape == lo.shape == (d_model // 2,)
    with mpmath.workprec(PRECISION):
        for k in range(d_model // 2):
            omega = _omega(d_model, base, convention, k)
            assert hi[k] == _round(omega), k
            assert lo[k] == _round(omega - mpmath.mpf(float(hi[k]))), k


def test_frequencies_dd_exact_cases_and_caching() -> None:
    hi, lo = frequencies_dd(64, 4.0)
    # ω_k = 4^(-k/32): k = 16 gives 1/2, k = 0 gives 1; both exact, so lo = 0
    assert (hi[0], lo[0], hi[16], lo[16]) == (1.0, 0.0, 0.5, 0.0)
    # ω_64 of d=512, base 1e4 is 10^-1 exactly: lo = 1/10 − fl(1/10) exactly
    hi, lo = frequencies_dd(512, 10000.0)
    assert hi[64] == 0.1
    assert lo[64] == float(Fraction(1, 10) - Fraction(0.1))
    assert frequencies_dd(512, 10000.0)[0] is hi  # cached
    with pytest.raises(ValueError, match="read-only"):
        hi[0] = 2.0


def test_frequencies_dd_rejects_undefined_convention() -> None:
    with pytest.raises(ValueError, match="frequency_shift"):
        frequencies_dd(2, 10000.0, convention=TENSOR2TENSOR)


def test_frequencies_mpmath_digits() -> None:
    omegas = frequencies_mpf(16, 10000.0, digits=60)
    with mpmath.workdps(80):
        for k, value in enumerate(omegas):
            # independent: exp(−(2k/d)·ln base) at 80 digits
            expected = mpmath.exp(-mpmath.mpf(2 * k) / 16 * mpmath.log(10000))
            assert abs(value - expected) <= mpmath.mpf(10) ** -60 * expected, k
    with pytest.raises(ValueError, match="digits"):
        frequencies_mpf(16, digits=0)


def _random_cases(seed: int, count: int) -> list[tuple[float | int, int, float, Convention]]:
    rng = random.Random(seed)
    conventions = [*PRESETS.values(), diffusers_convention(True, 0.0, 1000.0)]
    cases: list[tuple[float | int, int, float, Convention]] = []
    for i in range(count):
        kind = i % 4
        position: float | int
        if kind == 0:
            position = rng.randrange(0, 2**40)
        elif kind == 1:
            position = rng.uniform(-1e6, 1e6)  # fractional, exact binary value
        elif kind == 2:
            position = rng.randrange(-(2**20), 2**20)
        else:
            position = rng.uniform(0, 2**40)
        base = float(math.exp(rng.uniform(math.log(2.0), math.log(1e7))))
        d_model = 2 * rng.randrange(2, 12)
        cases.append((position, d_model, base, conventions[i % len(conventions)]))
    return cases


@pytest.mark.parametrize(("position", "d_model", "base", "convention"), _random_cases(3, 24))
def test_encode_matches_independent_method(
    position: float | int, d_model: int, base: float, convention: Convention
) -> None:
    got = encode([position], d_model, base=base, convention=convention)
    expected = _independent_row(position, d_model, base, convention)
    assert got.shape == (1, d_model)
    assert got[0].tolist() == expected


_positions = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(-(2.0**40), 2.0**40, allow_nan=False, allow_infinity=False),
)
_conventions = st.builds(
    Convention,
    layout=st.sampled_from(["interleaved", "sin_cos_halves", "cos_sin_halves"]),
    frequency_shift=st.sampled_from([0.0, 1.0, 0.5, -1.0]),
    position_offset=st.integers(-3, 3),
    argument_scale=st.sampled_from([1.0, 1000.0, 0.5, -2.5, 2 * math.pi]),
)


@given(
    position=_positions,
    half=st.integers(2, 6),
    base=st.floats(2.0, 1e7, allow_nan=False),
    convention=st.one_of(st.sampled_from(list(PRESETS.values())), _conventions),
)
def test_encode_matches_independent_method_property(
    position: int | float, half: int, base: float, convention: Convention
) -> None:
    got = encode([position], 2 * half, base=base, convention=convention)
    assert got[0].tolist() == _independent_row(position, 2 * half, base, convention)


def test_encode_bulk_rows_match_independent_method() -> None:
    positions = [0, 1, 2, 3, 1000, 4999, 2**31 - 1, 2**40 + 3]
    got = encode(positions, 64)
    for row, position in zip(got, positions, strict=True):
        assert row.tolist() == _independent_row(position, 64, 10000.0, CANONICAL)


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple[Any, ...]]:
    """Replace oracle.<name> by a wrapper recording each call's arguments."""
    calls: list[tuple[Any, ...]] = []
    original = getattr(oracle, name)

    def spy(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(oracle, name, spy)
    return calls


TABLE_POSITIONS = [*range(-40, 200), *(2**40 + i for i in range(0, 640, 7))]


def test_table_path_matches_independent_method(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many integer positions go through the angle-addition tables; spy that they do."""
    calls = _spy(monkeypatch, "_table_rows")
    convention = PRESETS["fairseq"]
    got = encode(TABLE_POSITIONS, 12, base=3e5, convention=convention, workers=1)
    assert [len(args[0]) for args in calls] == [len(TABLE_POSITIONS) - 1]  # all but −2
    for row, position in zip(got, TABLE_POSITIONS, strict=True):
        assert row.tolist() == _independent_row(position, 12, 3e5, convention)


def test_table_path_fallback_stays_correct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oracle, "GUARD_BITS", -45)
    calls = _spy(monkeypatch, "_scalar_value")
    got = encode(TABLE_POSITIONS, 6, base=50.0, workers=1)
    assert len(calls) >= 100
    for row, position in zip(got, TABLE_POSITIONS, strict=True):
        assert row.tolist() == _independent_row(position, 6, 50.0, CANONICAL)


def test_encode_exact_zero_angle_and_shapes() -> None:
    out = encode(np.zeros((2, 3), dtype=np.int64), 8)
    assert out.shape == (2, 3, 8)
    assert np.array_equal(out[..., 0::2], np.zeros((2, 3, 4)))
    assert np.array_equal(out[..., 1::2], np.ones((2, 3, 4)))
    # fairseq offset 2: position −2 is angle 0
    fairseq = encode([-2], 8, convention=PRESETS["fairseq"])
    assert fairseq[0, :4].tolist() == [0.0] * 4 and fairseq[0, 4:].tolist() == [1.0] * 4


def test_encode_huge_int_and_tiny_positions() -> None:
    huge = 2**200 + 12345  # far outside float64's integers: taken exactly
    assert encode([huge], 4)[0].tolist() == _independent_row(huge, 4, 10000.0, CANONICAL, 300)
    beyond_float = 3**1400  # > 1.8e308: its magnitude must be handled without floats
    assert encode([beyond_float], 2)[0].tolist() == _independent_row(
        beyond_float, 2, 10000.0, CANONICAL, 2300
    )
    tiny = 5e-324  # sin(ω·2^-1074) is subnormal: rounds to 2^-1074 or 0
    row = encode([tiny, 1e-300], 4)
    assert row[0].tolist() == _independent_row(tiny, 4, 10000.0, CANONICAL)
    assert row[1].tolist() == _independent_row(1e-300, 4, 10000.0, CANONICAL)


@pytest.mark.slow
def test_fast_check_error_bound_survives_precisions_beyond_1074_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """|x| near 2^1023 needs P > 1074 bits, where 2^-P is 0 in float64: the vectorised
    bound must not become 0 there. With 22 guard bits removed (P = 1088, θ̃ good to about
    2^-60) an unscaled bound certified a wrong float64 in column 248 (found by a scan);
    the check must reject it so that the Ziv loop recomputes it."""
    monkeypatch.setattr(oracle, "GUARD_BITS", -22)
    position = float((2**53 - 1) * 2**970)  # the largest float64 below 2^1023
    got = encode([position], 2048, base=1e7, workers=1)
    assert got[0].tolist() == mpmath_row(position, 2048, 1e7, CANONICAL, 2400)


def _shifted(shift: float) -> Convention:
    return Convention(layout="interleaved", frequency_shift=shift, name="near-pole")


def test_frequencies_dd_when_d_over_2_minus_s_is_tiny() -> None:
    """d/2 − s = 2^-40 makes ω_1 = 10000^(−2^40): far below float64 (rounds to +0, and so
    does ω_1 − 0), and an exact rational whose power must not be formed (it hung)."""
    hi, lo = frequencies_dd(4, 10000.0, convention=_shifted(2 - 2.0**-40))
    assert hi.tolist() == [1.0, 0.0] and lo.tolist() == [0.0, 0.0]
    assert math.copysign(1.0, hi[1]) == 1.0 and math.copysign(1.0, lo[1]) == 1.0
    # ω_1 = (1 + 2^-52)^(−2^30) is rational with a 5·10^10-bit numerator (it hung): the Ziv
    # loop certifies it instead (not dyadic, so it terminates).
    base = 1 + 2.0**-52
    convention = _shifted(2 - 2.0**-30)
    hi, lo = frequencies_dd(4, base, convention=convention)
    with mpmath.workprec(PRECISION):
        omega = _omega(4, base, convention, 1)
        assert (hi[1], lo[1]) == (_round(omega), _round(omega - mpmath.mpf(float(hi[1]))))


def test_encode_rejects_frequencies_beyond_the_exponent_range() -> None:
    """ω_1 = e^-1.01e13 would underflow MPFR to 0 (the bound assumes it does not; the sine
    of position 1 came back as −0.0): refused with the parameters named."""
    with pytest.raises(ValueError, match=r"d_model=4.*frequency_shift = 9.09e-13"):
        encode([1], 4, convention=_shifted(2 - 2.0**-40))
    with pytest.raises(ValueError, match="too close to 0"):
        encode_decimal([1], 4, convention=_shifted(2 - 2.0**-40))


def test_int_base_beyond_float64_range() -> None:
    base = 10**400  # an int is taken exactly; ln(base) must not go through float(base)
    got = encode([1, 3], 4, base=base)
    for row, position in zip(got, [1, 3], strict=True):
        assert row.tolist() == mpmath_row(position, 4, base, CANONICAL, PRECISION)  # type: ignore[arg-type]


def test_subnormal_result_next_to_a_midpoint() -> None:
    """x = c·p = 0.5·3·2^-1074 = 1.5·2^-1074 is the midpoint of 2^-1074 and 2^-1073, and
    x − x³/6 < sin x < x (x > 0), so sin x rounds down to 2^-1074 (−x to −2^-1074), about
    2^-3225 away from the tie; 1 − x²/2 < cos x < 1 rounds to 1. The Ziv loop has to reach
    about 3000 bits (mpmath at 400 bits sees the tie itself and rounds it to even, 2^-1073)."""
    convention = Convention(layout="interleaved", argument_scale=0.5, name="half")
    got = encode([3 * 2.0**-1074, -3 * 2.0**-1074], 2, convention=convention, workers=1)
    assert (
        got.view(np.int64).tolist()
        == np.array([[5e-324, 1.0], [-5e-324, 1.0]]).view(np.int64).tolist()
    )


def _skip_unless_fork_is_safe() -> None:
    if "jax" in sys.modules:  # imported by an earlier test: the oracle then never forks
        pytest.skip("jax is imported in this process; the oracle computes without forking")


def test_no_fork_once_jax_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", object())
    assert not oracle._can_fork()
    monkeypatch.setattr(oracle, "PARALLEL_THRESHOLD", 100)
    parent = os.getpid()
    rows = oracle._certified_rows

    def only_in_parent(*args: Any) -> Any:
        assert os.getpid() == parent  # a forked child would fail this (and the parent)
        return rows(*args)

    monkeypatch.setattr(oracle, "_certified_rows", only_in_parent)
    assert encode(list(range(40)), 8, workers=2).shape == (40, 8)


def test_encode_is_independent_of_worker_count(monkeypatch: pytest.MonkeyPatch) -> None:
    _skip_unless_fork_is_safe()
    monkeypatch.setattr(oracle, "PARALLEL_THRESHOLD", 1000)
    assert oracle._can_fork()  # so that workers=3 really forks two children here
    positions = list(range(0, 200 * 37, 37))
    one = encode(positions, 64, workers=1)
    three = encode(positions, 64, workers=3)
    assert one.tobytes() == three.tobytes()


def test_failing_worker_process_is_an_error_not_a_wrong_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _skip_unless_fork_is_safe()
    parent = os.getpid()
    rows = oracle._certified_rows

    def crash_in_child(*args: Any) -> Any:
        if os.getpid() != parent:
            raise MemoryError("simulated worker failure")
        return rows(*args)

    monkeypatch.setattr(oracle, "PARALLEL_THRESHOLD", 100)
    monkeypatch.setattr(oracle, "_certified_rows", crash_in_child)
    with pytest.raises(RuntimeError, match="oracle worker process failed"):
        encode(list(range(40)), 8, workers=2)


def test_low_precision_fast_path_falls_back_and_stays_correct(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With 45 guard bits removed the vectorised check must reject most elements; the
    scalar Ziv loop then recomputes them, and the result is still correctly rounded."""
    monkeypatch.setattr(oracle, "GUARD_BITS", -45)
    calls = _spy(monkeypatch, "_scalar_value")
    positions = [1, 7, 1000, 2**30 + 5, 0.1]
    got = encode(positions, 16, base=777.0)
    assert len(calls) >= 20  # 30 of the 80 values at the time of writing
    for row, position in zip(got, positions, strict=True):
        assert row.tolist() == _independent_row(position, 16, 777.0, CANONICAL)


def test_callers_gmpy2_context_does_not_matter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every conversion happens in a fresh round-to-nearest context."""
    monkeypatch.setattr(oracle, "GUARD_BITS", -45)  # exercise the scalar path too
    previous = gmpy2.get_context().copy()
    gmpy2.set_context(gmpy2.context(round=gmpy2.RoundUp, precision=20, subnormalize=True))
    try:
        got = encode([3, 1234.5, 2**35 + 1], 10, base=31.0)
        hi, lo = frequencies_dd(10, 31.0)
    finally:
        gmpy2.set_context(previous)
    for row, position in zip(got, [3, 1234.5, 2**35 + 1], strict=True):
        assert row.tolist() == _independent_row(position, 10, 31.0, CANONICAL)
    with mpmath.workprec(PRECISION):
        for k in range(5):
            omega = _omega(10, 31.0, CANONICAL, k)
            assert (hi[k], lo[k]) == (_round(omega), _round(omega - mpmath.mpf(float(hi[k]))))


def test_encode_decimal_matches_mpmath() -> None:
    positions = [1, 2.5, -7, 2**33]
    rows = encode_decimal(positions, 6, digits=30)
    assert rows[0][0] == "8.41470984807896506652502321630e-01"  # sin 1 (published)
    with mpmath.workprec(PRECISION):
        for position, row in zip(positions, rows, strict=True):
            x = mpmath.mpf(position)
            for k in range(3):
                theta = x * _omega(6, 10000.0, CANONICAL, k)
                for column, value in ((2 * k, mpmath.sin(theta)), (2 * k + 1, mpmath.cos(theta))):
                    assert mpmath.mpf(row[column]) == mpmath.mpf(
                        mpmath.nstr(value, 30, min_fixed=1, max_fixed=0)
                    )


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="long double is float64 here")
def test_long_double_positions_are_taken_exactly() -> None:
    """2^40 + 2^-20 is exact in x87 long double but not in float64 (it rounded to 2^40)."""
    position = np.longdouble(2**40) + np.longdouble(2.0**-20)
    assert Fraction(*position.as_integer_ratio()) == 2**40 + Fraction(1, 2**20)
    _, values = exact_positions(np.array([position]))
    assert values == [2**40 + Fraction(1, 2**20)]
    got = encode(np.array([position]), 2)
    with mpmath.workprec(PRECISION):
        theta = mpmath.mpf(2) ** 40 + mpmath.mpf(2) ** -20  # ω_0 = 1
        assert got[0].tolist() == [_round(mpmath.sin(theta)), _round(mpmath.cos(theta))]


def test_exact_positions_accepts_exact_values_and_rejects_bad_input() -> None:
    shape, values = exact_positions([[1, 2**70], [0.1, -3]])
    assert shape == (2, 2)
    assert values == [Fraction(1), Fraction(2**70), Fraction(0.1), Fraction(-3)]
    # NumPy makes [2**60 + 1, 0.5] a float64 array (2^60 + 1 → 2^60): the int stays exact
    assert exact_positions([[2**60 + 1], [0.5]]) == ((2, 1), [2**60 + 1, Fraction(1, 2)])
    assert encode([2**60 + 1, 0.5], 2)[0].tolist() == encode([2**60 + 1], 2)[0].tolist()
    with pytest.raises(ValueError, match="finite"):
        exact_positions([1.0, math.nan])
    with pytest.raises(TypeError, match="bool"):
        exact_positions([True])
    with pytest.raises(TypeError, match="str"):
        exact_positions(["1"])
    with pytest.raises(ValueError, match="workers"):
        encode([1], 4, workers=0)
    with pytest.raises(ValueError, match="d_model"):
        encode([1], 5)
    with pytest.raises(ValueError, match="base"):
        encode([1], 4, base=1)
    with pytest.raises(TypeError, match="convention must be a pespec Convention; got 'fairseq'"):
        encode([1], 4, convention="fairseq")  # type: ignore[arg-type]
