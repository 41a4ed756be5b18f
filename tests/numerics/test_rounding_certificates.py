"""Attacks on the certification checks of pespec.numerics.rounding (SPEC Annex B.2).

The values are built exactly (gmpy2 numbers of a few dozen bits, exact dyadic rationals) so
that the error interval of each one touches, or just misses, a float64 midpoint or a power of
two. Every expectation comes from the arithmetic written next to it, not from the code under
test: an interval [ỹ − err, ỹ + err] that contains a midpoint must be refused, one that does
not (by a margin far above the SLACK factor's 2^-40 relative) must be accepted.
"""

from __future__ import annotations

from fractions import Fraction

import gmpy2
import numpy as np
import pytest

from pespec.numerics.rounding import (
    SLACK,
    exact_positions,
    float_gaps,
    rational_omega,
    round_certified,
    round_interval,
)
from pespec.sinusoidal.reference.oracle import frequencies_dd

P = 80
"""Working precision of the constructed values: a unit 2^-80 is 2^27 below float64's half ulp
at 1.5 and 2^12 above the SLACK slop (2^-40 of a float64 ulp ≤ 2^-90 for |ỹ| < 8), so whole
units decide; every constructed value (|ỹ| < 8, granularity ≥ 2^-100) is exact at P + 24 bits."""
U = Fraction(1, 2**P)


def _mpfr(value: Fraction) -> object:
    """An exact gmpy2 number of ``value`` (a dyadic rational of at most P + 24 bits)."""
    with gmpy2.context(precision=P + 24):
        result = gmpy2.mpfr(gmpy2.mpq(value.numerator, value.denominator))
    assert Fraction(*result.as_integer_ratio()) == value
    return result


def _certify(
    value: Fraction, angle: float, factor: float, constant: float
) -> tuple[float, list[int]]:
    with gmpy2.context(precision=P + 24):
        hi, failed = round_certified(
            [_mpfr(value)], np.array([angle], dtype=np.float64), factor, constant, P
        )
    return float(hi[0]), failed


# h = 1.5: both neighbours are 2^-52 away; the midpoint above it is m = 1.5 + 2^-53.
H = Fraction(3, 2)
M = H + Fraction(1, 2**53)


@pytest.mark.parametrize(
    ("angle", "factor", "constant", "width"),
    [
        (0.0, 2.0, 0.0, 3),  # err = 2·(|h| + |ỹ − h|)·u ≥ 3u: the value term alone
        (0.0, 0.0, 3.0, 3),  # err = 3u: the constant alone
        (3.0, 0.0, 0.0, 3),  # err = 3u: the angle term alone
        (1.0, 0.5, 1.25, 3),  # 1 + 0.75 + 1.25 = 3u, all three terms
    ],
)
def test_interval_touching_a_midpoint_is_refused(
    angle: float, factor: float, constant: float, width: int
) -> None:
    """ỹ = m − 2u with err ≥ 3u: [ỹ − err, ỹ + err] contains the midpoint m, so no float64
    is certified (a value term subtracted or divided, a constant subtracted, accept it)."""
    hi, failed = _certify(M - 2 * U, angle, factor, constant)
    assert failed == [0]
    assert hi == 1.5  # the nearest float64 of ỹ itself (below m)
    # the same bound with the midpoint 4 units away: [m − 7u, m − u] is certified
    hi, failed = _certify(M - (width + 1) * U, angle, factor, constant)
    assert failed == []
    assert hi == 1.5


def test_value_term_scales_with_large_outputs() -> None:
    """|ỹ| = 6 (a rotary output may exceed 1): err = 2·6u = 12u; ỹ = m' − 10u is refused,
    m' − 14u accepted (m' = 6 + 2^-51, the midpoint above 6, whose ulp is 2^-50)."""
    mid = Fraction(6) + Fraction(1, 2**51)
    assert _certify(mid - 10 * U, 0.0, 2.0, 0.0)[1] == [0]  # a divided value term: 2/6·u
    assert _certify(mid - 14 * U, 0.0, 2.0, 0.0)[1] == []


def test_value_below_a_midpoint_by_less_than_slack_is_refused() -> None:
    """err = 0 and ỹ exactly the midpoint: a tie is never certified."""
    assert _certify(M, 0.0, 0.0, 0.0)[1] == [0]
    assert _certify(M - U, 0.0, 0.0, 0.0)[1] == []  # 1 unit below the tie, no error: fine


def test_binade_crossing_below_a_power_of_two_is_refused() -> None:
    """h = 1: the neighbour below is 2^-53 away (the binade below is finer), above 2^-52,
    so the midpoint below 1 is 1 − 2^-54. ỹ = 1 − 2^-54 + 2u with err = 3u contains it:
    refused, though 2·(|ỹ − 1| + err) is far inside the upper gap 2^-52 (what the larger of
    the two gaps would accept). 4u above it, or 1 − 2^-55 + 2u, the interval stays above the
    midpoint: accepted as 1."""
    low_mid = Fraction(1) - Fraction(1, 2**54)
    assert _certify(low_mid + 2 * U, 3.0, 0.0, 0.0)[1] == [0]
    assert _certify(low_mid + 4 * U, 3.0, 0.0, 0.0) == (1.0, [])
    assert _certify(Fraction(1) - Fraction(1, 2**55) + 2 * U, 3.0, 0.0, 0.0) == (1.0, [])


def test_tiny_and_non_finite_values_are_left_to_the_scalar_path() -> None:
    """|h| ≤ 2^-900 (F64_MIN_SAFE) or an infinite bound: never accepted by the vector check."""
    assert _certify(Fraction(1, 2**950), 0.0, 0.0, 0.0)[1] == [0]
    assert _certify(H, float("inf"), 0.0, 0.0)[1] == [0]


@pytest.mark.parametrize("k", [-1022, -600, -1, 0, 1, 52, 53, 600, 1023])
def test_float_gaps_at_powers_of_two(k: int) -> None:
    """At 2^k (normal): the neighbour below is 2^(k-53) away, above 2^(k-52); the min is the
    lower one (2^-1074 at 2^-1022: the subnormal spacing equals the normal one there)."""
    x = np.array([2.0**k, -(2.0**k)])
    expected = 2.0 ** max(k - 53, -1074) if k > -1022 else 2.0**-1074
    assert float_gaps(x).tolist() == [expected, expected]


def test_float_gaps_inside_a_binade() -> None:
    """Inside [2^k, 2^(k+1)) both neighbours are 2^(k-52) away: 1.5 → 2^-52, 3 → 2^-51,
    the largest float below 2 → 2^-52, and the smallest subnormal → 2^-1074."""
    x = np.array([1.5, 3.0, 2.0 - 2.0**-52, 2.0**-1074])
    assert float_gaps(x).tolist() == [2.0**-52, 2.0**-51, 2.0**-52, 2.0**-1074]


@pytest.mark.parametrize(
    "tie",
    [M, H + Fraction(3, 2**53)],  # ties to even below (1.5) and above (1.5 + 2^-51)
    ids=["even-below", "even-above"],
)
def test_round_interval_refuses_an_interval_around_a_midpoint(tie: Fraction) -> None:
    """ỹ = a midpoint exactly, err = 2^-300: rounded outward at (54 + 64) bits, the ends lie on
    both sides of it and round to its two neighbours (no result). An end rounded inward lands
    on the tie itself, which rounds to the even neighbour, the same as the other end: a
    wrong certificate (the lower end for the tie whose even neighbour is above, the upper
    end for the other)."""
    with gmpy2.context(precision=54):
        value = gmpy2.mpfr(gmpy2.mpq(tie.numerator, tie.denominator))
    assert Fraction(*value.as_integer_ratio()) == tie
    err = gmpy2.mpfr(2) ** -300
    assert round_interval(value, err) is None


@pytest.mark.parametrize(
    ("offset", "err", "expected"),
    [(-2, 3, None), (-2, 1, 1.5), (2, 3, None), (2, 1, 1.5 + 2**-52), (-4, 3, 1.5)],
)
def test_round_interval_near_a_midpoint(offset: int, err: int, expected: float | None) -> None:
    """ỹ = m + offset·u, err = err·u: the interval contains m iff |offset| ≤ err."""
    value = _mpfr(M + offset * U)
    with gmpy2.context(precision=P):
        bound = gmpy2.mpfr(err) * gmpy2.mpfr(2) ** -P
    assert round_interval(value, bound) == expected


def test_round_interval_uses_the_given_rounder() -> None:
    """A monotone rounder other than float (4 significant decimals): 1.2341 ± 10^-6 formats
    as 1.234 at both ends; 1.2345 ± 10^-6 straddles the decimal tie 1.2345: no result."""

    def fmt(value: object) -> str:
        return format(value, ".3e")

    with gmpy2.context(precision=P):
        small = gmpy2.mpfr("1e-6")
        assert round_interval(gmpy2.mpfr("1.2341"), small, fmt) == "1.234e+00"
        assert round_interval(gmpy2.mpfr("1.2345"), small, fmt) is None


def test_slack_is_the_documented_constant() -> None:
    """SLACK = 1 + 2^-40 (SPEC Annex B.2): a bound's few float64 roundings are covered."""
    assert SLACK == 1.0 + 2.0**-40


def test_rational_omega_bit_limit_is_inclusive() -> None:
    """ω = radix^(−n/m) is formed when n·(bits of the m-th root) ≤ MAX_RATIONAL_BITS = 2^16:
    (2^131070)^(−1/2) = 2^-65535 (root 2^65535: 65536 bits, n = 1: exactly the limit) is
    formed; (2^131072)^(−1/2) (a 65537-bit root) is not; a radix that is no perfect square
    gives None."""
    assert rational_omega(Fraction(2**131070), Fraction(1, 2)) == Fraction(1, 2**65535)
    assert rational_omega(Fraction(2**131072), Fraction(1, 2)) is None
    assert rational_omega(Fraction(8), Fraction(1, 2)) is None
    assert rational_omega(Fraction(9, 4), Fraction(3, 2)) == Fraction(8, 27)


@pytest.mark.timeout(10)
def test_dyadic_frequencies_are_formed_exactly() -> None:
    """base 16, d = 8: ω_k = 16^(−k/4) = 2^-k, dyadic, with remainder +0 (SPEC: lo = fl(ω − hi)
    = +0). The Ziv loop cannot certify a remainder of exactly 0 before its bound falls below
    2^-1075 (then both ends round to zeros of opposite signs, −0 taken): these must come from
    the exact rational path."""
    hi, lo = frequencies_dd(8, 16.0)
    assert hi.tolist() == [1.0, 0.5, 0.25, 0.125]
    assert lo.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert np.all(np.signbit(lo) == False)  # noqa: E712 (+0, not −0)


def test_tiny_values_threshold_is_two_to_minus_900() -> None:
    """F64_MIN_SAFE = 2^-900 (SPEC Annex B.2): |h| = 1.5·2^-900 is certified by the vector check
    (no error, value exactly a float64), |h| = 2^-900 is left to the scalar path."""
    assert _certify(Fraction(3, 2**901), 0.0, 0.0, 0.0) == (1.5 * 2.0**-900, [])
    assert _certify(Fraction(1, 2**900), 0.0, 0.0, 0.0)[1] == [0]


def test_exact_positions_keep_every_bit() -> None:
    """Ints beyond 2^53 mixed with floats in a list, and long doubles (64-bit significands on
    x86), are taken at their exact values, never through float64."""
    shape, values = exact_positions([2**60 + 1, 0.5])
    assert shape == (2,) and values == [Fraction(2**60 + 1), Fraction(1, 2)]
    if np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("np.longdouble is float64 here")
    wide = np.longdouble(1) + np.longdouble(2.0**-60)
    assert exact_positions(np.array([wide]))[1] == [1 + Fraction(1, 2**60)]
    assert exact_positions([wide])[1] == [1 + Fraction(1, 2**60)]
    assert exact_positions(wide)[1] == [1 + Fraction(1, 2**60)]


def test_round_interval_certifies_a_float64_with_a_tiny_error() -> None:
    """ỹ = 1.5 + 2^-52 (a float64, held at 54 bits, one unit of its precision above the midpoint
    m), err = 2^-300: the interval is far from every midpoint, so it rounds to ỹ. Ends rounded
    outward at only the value's own 54 bits would reach m (which ties to even 1.5) and refuse;
    the 64 extra bits keep them within 2^-117 of ỹ."""
    with gmpy2.context(precision=54):
        value = gmpy2.mpfr(1.5 + 2.0**-52)
    assert round_interval(value, gmpy2.mpfr(2) ** -300) == 1.5 + 2.0**-52


def test_the_bound_keeps_its_slack_over_float64_evaluation() -> None:
    """SLACK = 1 + 2^-40 covers the float64 roundings of the bound's own evaluation, applied to
    err and to the margin: an enclosure whose exact width 2·(|ỹ − h| + err) is 2^-41 short of the
    gap is refused (it is closer to a midpoint than the float64 evaluation is trusted), once the
    error term makes it (err = (2^27 − 2^-14)·2^-80, ỹ = h) and once the distance to h (ỹ = m −
    2^-94, no error); 2^-30 short, both are accepted."""
    assert _certify(H, 2.0**27 - 2.0**-14, 0.0, 0.0)[1] == [0]
    assert _certify(H, 2.0**27 - 2.0**-3, 0.0, 0.0) == (1.5, [])
    assert _certify(M - Fraction(1, 2**94), 0.0, 0.0, 0.0)[1] == [0]
    assert _certify(M - Fraction(1, 2**83), 0.0, 0.0, 0.0) == (1.5, [])


def test_exact_positions_name_the_first_bad_value() -> None:
    """A non-numeric position is named in the TypeError: the first one, also for one element."""
    with pytest.raises(TypeError, match="got 'a'"):
        exact_positions(["a"])
    with pytest.raises(TypeError, match="got 'a'"):
        exact_positions(["a", "b", "c"])
