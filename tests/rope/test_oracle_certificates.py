"""The rotary oracle's certificates attacked (issue 42, SPEC Annex B.6).

Bounds: each call to the certification checks is recorded and compared with the proof's
terms computed here (|p|·|ω'_j| for the angle, |ỹ|·2^-P for each MPFR rounding, the rotation's
|a|·e_c + |b|·e_s + (|a c̃| + |b s̃| + |t̃|)·2^-P), and with the true error against an independent
mpmath transcription of the schedule (tests/rope_mpmath.py) at 400 bits. Retries: GUARD_BITS
lowered to −100 starts every row at 16 bits, so every element goes through the scalar Ziv loops
(a loop that never raises its precision hangs; the timeouts fail it), and the interval run, the
attention factor and ω' fall back the way they would on a hard configuration.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import gmpy2
import mpmath
import numpy as np
import pytest
from rope_mpmath import mp_schedule

from pespec.numerics.rounding import SLACK
from pespec.rope import RopeConfig, oracle
from pespec.rope._exact_schedule import (
    NOT_RATIONAL,
    IntervalArith,
    RationalArith,
    Undecided,
    ends,
    interval_precision,
)
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

MARGIN = 1 - 2.0**-30
"""Allowance for the float64 roundings of a bound's evaluation (covered by SLACK = 1 + 2^-40)."""

CONFIG = RopeConfig(head_dim=16, theta=10000.0)
YARN = RopeConfig(
    head_dim=16,
    theta=10000.0,
    rope_type="yarn",
    factor=8.0,
    original_max_position_embeddings=4096,
)
POSITIONS = [3, 1000, -5, 0.5, 2**24 + 1]


@pytest.fixture(autouse=True)
def _precision() -> None:
    mpmath.mp.prec = 400  # restored by the conftest fixture


def _record(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple[Any, ...]]:
    """Replace oracle.<name> by a wrapper that records each call's positional arguments."""
    calls: list[tuple[Any, ...]] = []
    original = getattr(oracle, name)

    def spy(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(oracle, name, spy)
    return calls


# ---------------------------------------------------------------------------
# the enclosure and the interval run


def test_midpoint_radius_covers_the_interval() -> None:
    """_midpoint of [1, 2] is 1.5 with radius ≥ 1/2; of a 300-bit interval around 1/3, mid ± r
    contains both ends (a radius (high − low)/3 would not)."""
    mid, radius = oracle._midpoint(mpmath.iv.mpf([1, 2]))
    assert Fraction(*mid.as_integer_ratio()) == Fraction(3, 2) and radius >= 0.5
    with interval_precision(300):
        third = mpmath.iv.mpf(1) / 3 + mpmath.iv.mpf([-(2.0**-60), 2.0**-60])
    low, high = ends(third)
    mid, radius = oracle._midpoint(third)
    centre = Fraction(*mid.as_integer_ratio())
    assert centre - Fraction(radius) <= low and high <= centre + Fraction(radius)


def test_interval_floor_and_sign_refuse_undecided_intervals() -> None:
    """floor of [0.9, 1.1] and the sign of [−1, 1] cannot be decided: Undecided, and no
    decision recorded; [1.1, 1.9] floors to 1, [−1.9, −1.1] to −2; [0.5, 2] is positive,
    [−0.5, −0.25] is not."""
    arith = IntervalArith()
    with pytest.raises(Undecided):
        arith.floor(lambda: mpmath.iv.mpf([0.9, 1.1]))
    with pytest.raises(Undecided):
        arith.positive(lambda: mpmath.iv.mpf([-1, 1]))
    assert arith.decisions == []
    assert arith.floor(lambda: mpmath.iv.mpf([1.1, 1.9])) == 1
    assert arith.positive(lambda: mpmath.iv.mpf([0.5, 2])) is True
    assert arith.positive(lambda: mpmath.iv.mpf([-0.5, -0.25])) is False
    assert arith.floor(lambda: mpmath.iv.mpf([-1.9, -1.1])) == -2
    assert arith.decisions == [1, True, False, -2]


def test_interval_run_from_a_low_precision_retries_to_the_same_decisions() -> None:
    """YaRN's floor/ceil of the correction range at 4 bits are undecided: the run doubles until
    decided and records the decisions of a 1024-bit run."""
    _, _, decisions_low, precision = oracle._interval_run(YARN, 4)
    _, _, decisions_high, _ = oracle._interval_run(YARN, 1024)
    assert precision > 4
    assert decisions_low == decisions_high


def _widened(real: Any, which: str) -> Any:
    """An _interval_run whose attention factor (or ω'_0) interval is widened by 2^-52 each way,
    so its ends never round alike: the oracle must fall back to the exact rational value."""

    def run(config: RopeConfig, precision: int) -> tuple[Any, Any, Any, int]:
        omegas, attention, decisions, used = real(config, precision)
        pad = mpmath.iv.mpf([-(2.0**-52), 2.0**-52])
        if which == "attention":
            attention = attention + pad
        else:
            omegas = [omegas[0] + pad, *omegas[1:]]
        return omegas, attention, decisions, used

    return run


@pytest.mark.parametrize("which", ["attention", "omega"])
def test_exact_fallback_gives_the_certified_value(
    monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    """A = 1 and ω'_0 = 1 are rational: with their intervals undecidable the oracle evaluates
    them exactly and rounds that (1.0, remainder 0), the same as without the widening."""
    expected = oracle._certified.__wrapped__(CONFIG)  # type: ignore[attr-defined]
    monkeypatch.setattr(oracle, "_interval_run", _widened(oracle._interval_run, which))
    got = oracle._certified.__wrapped__(CONFIG)  # type: ignore[attr-defined]
    assert got == expected
    assert got.attention == 1.0 and got.hi[0] == 1.0 and got.lo[0] == 0.0


# ---------------------------------------------------------------------------
# cos, sin


def _expected_cos_sin(config: RopeConfig, positions: list[Any]) -> tuple[list[Any], list[Any]]:
    omegas, _ = mp_schedule(config)
    cos = [[mpmath.cos(mpmath.mpf(p) * w) for w in omegas] for p in positions]
    sin = [[mpmath.sin(mpmath.mpf(p) * w) for w in omegas] for p in positions]
    return cos, sin


def test_cos_sin_bound_never_below_the_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """cos_sin: err_j = (|p|·r_j + |φ̃_j|·2^-P + |ỹ_j|·2^-P): the angle term handed to the check
    is ≥ |p|·|ω'_j| (units of 2^-P), the value factor ≥ 1; every value's true error within."""
    calls = _record(monkeypatch, "round_certified")
    oracle.cos_sin(POSITIONS, CONFIG)
    cos, sin = _expected_cos_sin(CONFIG, POSITIONS)
    omegas, _ = mp_schedule(CONFIG)
    assert len(calls) == 2 * len(POSITIONS)  # sin then cos per row
    for index, (values, angle, factor, constant, precision) in enumerate(calls):
        row = index // 2
        exact = (sin if index % 2 == 0 else cos)[row]
        proof = np.array([abs(POSITIONS[row]) * float(w) for w in omegas])
        assert factor >= 1 and constant >= 0
        assert np.all(angle >= proof * MARGIN)
        # the |p|·r_j term (r_j the radius of ω'_j's enclosure, pinned by the midpoint test)
        radii = oracle._enclosure(CONFIG, precision + 32).omega_radius
        with_radius = [
            abs(POSITIONS[row]) * (float(w) + math.ldexp(r, precision))
            for w, r in zip(omegas, radii, strict=True)
        ]
        assert np.all(angle >= np.array(with_radius) * (1 - 2.0**-45))
        unit = mpmath.ldexp(1, -precision)
        for value, y, g in zip(values, exact, angle, strict=True):
            assert abs(mpmath.mpf(value) - y) <= (g + factor * abs(float(value)) + constant) * unit


@pytest.mark.timeout(10)
def test_cos_sin_scalar_retries_give_the_certified_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row started at 16 bits: all elements fail the vector check and go through _scalar,
    whose loop must double from 32 bits; the results equal the default run's and mpmath's."""
    expected = oracle.cos_sin(POSITIONS, CONFIG)
    monkeypatch.setattr(oracle, "GUARD_BITS", -100)
    calls = _record(monkeypatch, "_scalar")
    got = oracle.cos_sin(POSITIONS, CONFIG)
    assert len(calls) == 2 * len(POSITIONS) * (CONFIG.d_r // 2)
    assert all(args[4] == 32 for args in calls)  # 2 × the 16-bit row precision
    assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])
    cos, sin = _expected_cos_sin(CONFIG, POSITIONS)
    assert got[0].tolist() == [[mpf_to_float(v) for v in row] for row in cos]
    assert got[1].tolist() == [[mpf_to_float(v) for v in row] for row in sin]


# ---------------------------------------------------------------------------
# the rotation


def _pairs(config: RopeConfig) -> tuple[list[int], list[int]]:
    """Where pair j lives (SPEC §8.1), independently of the oracle: (j, j + d_r/2) for halves,
    (2j, 2j + 1) interleaved; read and written alike for these configurations."""
    half = config.d_r // 2
    if config.pairing == "interleaved":
        return [2 * j for j in range(half)], [2 * j + 1 for j in range(half)]
    return list(range(half)), [j + half for j in range(half)]


def _rotation_input(config: RopeConfig, n: int) -> np.ndarray:
    """a = 0.75 and b = 1000.5 in every pair (dyadic, exact): |b| ≫ |a| makes the |b|·e_s term
    of y_a and the |b|·e_c term of y_b dominate."""
    read_a, read_b = _pairs(config)
    x = np.zeros((n, config.head_dim))
    x[:, read_a] = 0.75
    x[:, read_b] = 1000.5
    return x


def _expected_rotation(config: RopeConfig, x: np.ndarray, positions: list[Any]) -> list[Any]:
    omegas, attention = mp_schedule(config)
    read_a, read_b = _pairs(config)
    rows = []
    for row, p in enumerate(positions):
        y_a, y_b = [], []
        for j, w in enumerate(omegas):
            a, b = mpmath.mpf(x[row, read_a[j]]), mpmath.mpf(x[row, read_b[j]])
            c, s = mpmath.cos(p * w), mpmath.sin(p * w)
            y_a.append(attention * (a * c - b * s))
            y_b.append(attention * (a * s + b * c))
        rows.append((y_a, y_b))
    return rows


INTERLEAVED = RopeConfig(head_dim=16, theta=10000.0, pairing="interleaved")


@pytest.mark.parametrize(
    "config", [CONFIG, YARN, INTERLEAVED], ids=["default", "yarn", "interleaved"]
)
def test_rotation_bound_never_below_the_proof(
    monkeypatch: pytest.MonkeyPatch, config: RopeConfig
) -> None:
    """_rotate_row: for y_a (first = a, second = −b) and y_b (first = b, second = a), in units of
    2^-P: term ≥ A·(|first|·(|p|·ω'_j + |c|) + |second|·(|p|·ω'_j + |s|) + |a c| + |b s| + |t|)
    (c̃, s̃ within (|p|·ω' + |ỹ|)·2^-P; three roundings of t̃), value factor ≥ 1 (the product
    A·t̃); and the true error of every certified output within the bound used."""
    positions = [3, 1000, -5, -1, 0.5]
    x = _rotation_input(config, len(positions))
    calls = _record(monkeypatch, "round_certified")
    got = oracle.rotate(x, positions, config)
    omegas, attention = mp_schedule(config)
    expected = _expected_rotation(config, x, positions)
    write_a, write_b = _pairs(config)
    for row, (y_a, y_b) in enumerate(expected):
        assert got[row, write_a].tolist() == [mpf_to_float(v) for v in y_a]
        assert got[row, write_b].tolist() == [mpf_to_float(v) for v in y_b]
    assert len(calls) == 2 * len(positions)
    big_a = float(attention)
    for index, (values, term, factor, constant, precision) in enumerate(calls):
        row, which = index // 2, index % 2
        p = positions[row]
        assert factor >= 1 and constant >= 0
        unit = mpmath.ldexp(1, -precision)
        for j, w in enumerate(omegas):
            c, s = float(mpmath.cos(p * w)), float(mpmath.sin(p * w))
            a, b = 0.75, 1000.5
            first, second = (a, -b) if which == 0 else (b, a)
            t = first * c + second * s
            angle = abs(p) * float(w)
            proof = big_a * (
                abs(first) * (angle + abs(c))
                + abs(second) * (angle + abs(s))
                + abs(first * c)
                + abs(second * s)
                + abs(t)
            )
            assert term[j] >= proof * MARGIN, (row, which, j)
            y = expected[row][which][j]
            err = (term[j] + factor * abs(float(values[j])) + constant) * unit
            assert abs(mpmath.mpf(values[j]) - y) <= err


@pytest.mark.timeout(10)
def test_rotation_scalar_retries_give_the_certified_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rows started at 16 bits: every pair goes through _rotate_pair, doubling from 32 bits;
    the outputs equal the default run's and the mpmath transcription's."""
    positions = [3, 1000, -5, 0.5]
    x = _rotation_input(YARN, len(positions))
    expected = oracle.rotate(x, positions, YARN)
    monkeypatch.setattr(oracle, "GUARD_BITS", -100)
    calls = _record(monkeypatch, "_rotate_pair")
    got = oracle.rotate(x, positions, YARN)
    assert len(calls) >= len(positions) * (YARN.d_r // 2)
    assert all(args[5] == 32 for args in calls)
    assert np.array_equal(got, expected)
    write_a, write_b = _pairs(YARN)
    for row, (y_a, y_b) in enumerate(_expected_rotation(YARN, x, positions)):
        assert got[row, write_a].tolist() == [mpf_to_float(v) for v in y_a]
        assert got[row, write_b].tolist() == [mpf_to_float(v) for v in y_b]


def _pair_errors(
    monkeypatch: pytest.MonkeyPatch, e_s: float, e_c: float, precision: int = 128
) -> list[float]:
    """The two error bounds _pair_values hands to round_interval for a = 3, b = 5, s̃ = 0.6,
    c̃ = 0.8 (the nearest 128-bit numbers: the bound is about the values given), A = 1
    exactly (radius 0)."""
    calls = _record(monkeypatch, "round_interval")
    enclosure = oracle._Enclosure((), (), gmpy2.mpfr(1), 0.0, Fraction(1))
    with gmpy2.context(precision=precision):
        s, c = gmpy2.mpfr("0.6"), gmpy2.mpfr("0.8")
        oracle._pair_values(3.0, 5.0, s, c, e_s, e_c, enclosure, precision)
    assert len(calls) == 2
    return [float(args[1]) for args in calls]


def test_pair_bound_counts_each_rounding(monkeypatch: pytest.MonkeyPatch) -> None:
    """e_s = e_c = 0: the bound is ≥ (|a c̃| + |b s̃| + |t̃|)·2^-P + |ỹ|·2^-P (three roundings of
    t̃, one of A·t̃), for y_a = 3·0.8 − 5·0.6 = −0.6 and y_b = 5·0.8 + 3·0.6 = 5.8."""
    u = 2.0**-128
    err_a, err_b = _pair_errors(monkeypatch, 0.0, 0.0)
    assert err_a >= ((2.4 + 3.0 + 0.6) + 0.6) * u * MARGIN
    assert err_b >= ((4.0 + 1.8 + 5.8) + 5.8) * u * MARGIN
    # both carry the documented SLACK² cover of their float64 evaluation (t̃'s part SLACK³)
    assert err_a >= ((2.4 + 3.0 + 0.6) + 0.6) * u * SLACK**2 * (1 - 2.0**-48)
    assert err_b >= ((4.0 + 1.8 + 5.8) + 5.8) * u * SLACK**2 * (1 - 2.0**-48)


def test_pair_bound_counts_the_input_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """e_s = 2^-60, e_c = 0: y_a's bound ≥ |b|·e_s = 5·2^-60, y_b's ≥ |a|·e_s = 3·2^-60; with
    e_c = 2^-60, e_s = 0: y_a's ≥ |a|·e_c, y_b's ≥ |b|·e_c."""
    e = 2.0**-60
    err_a, err_b = _pair_errors(monkeypatch, e, 0.0)
    assert err_a >= 5 * e * MARGIN and err_b >= 3 * e * MARGIN
    cover = SLACK**3 * (1 - 2.0**-48)  # t̃'s error carries SLACK, the output's SLACK² more
    assert err_a >= 5 * e * cover and err_b >= 3 * e * cover
    monkeypatch.undo()
    err_a, err_b = _pair_errors(monkeypatch, 0.0, e)
    assert err_a >= 3 * e * MARGIN and err_b >= 5 * e * MARGIN


def test_rotation_at_position_zero_with_an_irrational_attention_factor() -> None:
    """p = 0 with YaRN's A = 0.1·ln(s) + 1 (not rational, so no exact product): cos = 1, sin = 0
    exactly and y = fl(A·(a, b)) certified through the enclosure of A; compared with mpmath.
    With pairs read interleaved (2j, 2j + 1), the pair indices are checked too."""
    for config in (YARN, RopeConfig(**{**YARN.to_dict(), "pairing": "interleaved"})):
        x = np.arange(1, config.head_dim + 1, dtype=np.float64)[None, :] / 8
        got = oracle.rotate(x, [0], config)
        _, attention = mp_schedule(config)
        assert got[0].tolist() == [mpf_to_float(attention * mpmath.mpf(v)) for v in x[0]]


def _undecided_below(real: Any, bits: int) -> Any:
    """An _interval_run whose attention interval is widened by 2^-52 each way below ``bits``."""

    def run(config: RopeConfig, precision: int) -> tuple[Any, Any, Any, int]:
        omegas, attention, decisions, used = real(config, precision)
        if used < bits:
            attention = attention + mpmath.iv.mpf([-(2.0**-52), 2.0**-52])
        return omegas, attention, decisions, used

    return run


def test_an_irrational_value_undecided_at_first_is_decided_by_a_rerun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """YaRN's A is irrational, so only a rerun at doubled precision can decide it (the exact
    rational path cannot): undecided at 256 bits, the oracle must rerun at 512, not give up."""
    expected = oracle._certified.__wrapped__(YARN)  # type: ignore[attr-defined]
    monkeypatch.setattr(oracle, "_interval_run", _undecided_below(oracle._interval_run, 512))
    assert oracle._certified.__wrapped__(YARN) == expected  # type: ignore[attr-defined]


def test_rational_arithmetic_is_exact_or_says_not_rational() -> None:
    """RationalArith (the fallback that rounds a rational ω' or A exactly): powers, roots and
    logarithms are exact rationals where the value is one, NOT_RATIONAL otherwise; the
    decisions of the interval run are replayed in their order."""
    ar = RationalArith([True, 3, False, -1])
    assert ar.power(Fraction(9, 4), Fraction(1, 2)) == Fraction(3, 2)
    assert ar.power(Fraction(8), Fraction(-1, 3)) == Fraction(1, 2)
    assert ar.power(Fraction(7), Fraction(0)) == 1 and ar.power(Fraction(1), Fraction(1, 3)) == 1
    assert ar.power(Fraction(2), Fraction(1, 2)) is NOT_RATIONAL
    assert ar.power(Fraction(3), Fraction(1)) == 3 and ar.power(Fraction(2), Fraction(-1)) == 0.5
    assert ar.sqrt(Fraction(9, 16)) == Fraction(3, 4)
    assert ar.sqrt(Fraction(8, 9)) is NOT_RATIONAL and ar.sqrt(Fraction(9, 8)) is NOT_RATIONAL
    assert ar.sqrt(Fraction(4, 9)) == Fraction(2, 3)
    assert ar.log(Fraction(1)) == 0 and ar.log(Fraction(2)) is NOT_RATIONAL
    assert ar.pi() is NOT_RATIONAL and ar.q(NOT_RATIONAL) is NOT_RATIONAL
    assert [ar.positive(lambda: 0), ar.floor(lambda: 0)] == [True, 3]
    assert [ar.positive(lambda: 0), ar.floor(lambda: 0)] == [False, -1]


def test_interval_arithmetic_powers_and_exact_inputs() -> None:
    """IntervalArith: base^0 and 1^e are exactly 1; 4^(1/2) encloses 2; q of an int or a
    fraction encloses it exactly; 7^1, 2^-1 and 2^(1/2) are enclosed tightly; a sign test of an
    interval touching or containing 0 is undecided (branches are decided on intervals that
    exclude the boundary, rope.oracle's docstring)."""
    ar = IntervalArith()
    with interval_precision(80):
        assert ends(ar.power(Fraction(7), Fraction(0))) == (1, 1)
        assert ends(ar.power(Fraction(1), Fraction(3, 7))) == (1, 1)
        low, high = ends(ar.power(Fraction(4), Fraction(1, 2)))
        assert low <= 2 <= high and high - low < Fraction(1, 2**70)
        assert ends(ar.q(5)) == (5, 5)
        low, high = ends(ar.q(Fraction(1, 3)))
        assert low <= Fraction(1, 3) <= high and high - low < Fraction(1, 2**78)
        for power, value in ((Fraction(1), 7), (Fraction(-1), Fraction(1, 2))):
            low, high = ends(ar.power(Fraction(7) if power == 1 else Fraction(2), power))
            assert low <= value <= high and high - low < Fraction(1, 2**70)
        low, high = ends(ar.power(Fraction(2), Fraction(1, 2)))
        assert low**2 <= 2 <= high**2 and high - low < Fraction(1, 2**70)
        for boundary in ([-1, 0], [0, 1], [-0.5, 0.5]):  # branches need 0 excluded
            with pytest.raises(Undecided):
                ar.positive(lambda b=boundary: mpmath.iv.mpf(b))  # type: ignore[misc]


def test_cos_sin_at_position_zero() -> None:
    """φ = 0 exactly: cos = 1, sin = 0 (and +0), whatever the schedule."""
    for config in (CONFIG, YARN):
        cos, sin = oracle.cos_sin([0, 0.0], config)
        assert cos.tolist() == [[1.0] * (config.d_r // 2)] * 2
        assert sin.tolist() == [[0.0] * (config.d_r // 2)] * 2
        assert not np.any(np.signbit(sin))


@pytest.mark.timeout(10)
def test_rotation_retries_with_zero_components(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forced retries (GUARD_BITS = −100) on pairs with a = 0 or b = 0 (not both): only a pair
    with both zero may skip the retry as (0, 0); the others equal mpmath's rotation."""
    positions = [3, -1]
    read_a, read_b = _pairs(YARN)
    x = np.zeros((2, YARN.head_dim))
    x[:, read_a[0::2]] = 0.75  # even pairs: (0.75, 0)
    x[:, read_b[1::2]] = -2.5  # odd pairs: (0, −2.5)
    monkeypatch.setattr(oracle, "GUARD_BITS", -100)
    got = oracle.rotate(x, positions, YARN)
    write_a, write_b = _pairs(YARN)
    for row, (y_a, y_b) in enumerate(_expected_rotation(YARN, x, positions)):
        assert got[row, write_a].tolist() == [mpf_to_float(v) for v in y_a]
        assert got[row, write_b].tolist() == [mpf_to_float(v) for v in y_b]


def test_rotation_of_a_batch_is_the_rotation_of_each_slice() -> None:
    """A (2, n, head_dim) input: each batch slice rotates as the 2-D input it holds (the 2-D
    outputs are pinned to mpmath above)."""
    positions = [3, -5]
    x = _rotation_input(CONFIG, len(positions))
    batch = np.stack([x, 2 * x[::-1]])
    got = oracle.rotate(batch, positions, CONFIG)
    assert got.shape == batch.shape
    for k in range(2):
        assert np.array_equal(got[k], oracle.rotate(batch[k], positions, CONFIG))


def test_rotation_positions_shape_error_names_n() -> None:
    """Positions not of shape (n,): the message gives n = x.shape[-2] (here 2, head_dim 16)."""
    x = _rotation_input(CONFIG, 2)
    with pytest.raises(ValueError, match=r"positions must have shape \(n,\) = \(2,\); got \(3,\)"):
        oracle.rotate(x, [1, 2, 3], CONFIG)


# ---------------------------------------------------------------------------
# the radii of the enclosures of ω' and A

WIDE_BITS = 20
"""The wide enclosure's radius: 2^(20 + 32 − q) for the first precision q asked in a run step
(q = P + 32 for a row at P bits, so 2^(20 − P))."""


def _wide_checks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any, tuple[Any, ...]]]:
    """Replace oracle._enclosure by a wide one and record each round_certified call with the
    enclosures its bound was computed from: (the one of ω', the one of A, the call's args).

    The wide enclosure moves the midpoints of ω'_j and A up by r = 2^(WIDE_BITS + 32 − q) and
    grows their radii by r (still sound: the true value is within the old radius of the old
    midpoint); like the real one it is shared by every request of the same run step (256
    bits). The radius terms then dominate the bounds, so a dropped or shrunken radius term is
    a bound below the proof's; r shrinks as the precision grows, so the Ziv retries end. The
    sin/cos values a check is given are traced to the _sin_cos_mpfr call that made them (its
    enclosure gave the angle term); a rotation's check to the last _row_values (its A)."""
    real_enclosure, real_check = oracle._enclosure, oracle.round_certified
    real_sin_cos, real_row = oracle._sin_cos_mpfr, oracle._row_values
    made: dict[tuple[RopeConfig, int], Any] = {}
    last: list[Any] = [None]
    producers: dict[int, tuple[Any, Any]] = {}  # id of a values list: (the list, enclosure)
    row: list[Any] = [None, None]
    checks: list[tuple[Any, Any, tuple[Any, ...]]] = []

    def moved(value: Any, r: float) -> Any:
        with gmpy2.context(precision=value.precision + 128):
            return value + gmpy2.mpfr(r)  # exact: r is a power of 2 above ulp(value)

    def wide(config: RopeConfig, precision: int) -> Any:
        key = (config, 256 * math.ceil(precision / 256))
        if key not in made:
            enclosure = real_enclosure(config, precision)
            r = math.ldexp(1.0, WIDE_BITS + 32 - precision)
            made[key] = oracle._Enclosure(
                tuple(moved(w, r) for w in enclosure.omega),
                tuple((old + r) * SLACK for old in enclosure.omega_radius),
                moved(enclosure.attention, r),
                (enclosure.attention_radius + r) * SLACK,
                enclosure.attention_exact,
            )
        last[0] = made[key]
        return made[key]

    def sin_cos(*args: Any) -> Any:
        result = real_sin_cos(*args)
        for values in result[:2]:
            producers[id(values)] = (values, last[0])  # the list kept: its id stays unique
        return result

    def row_values(*args: Any) -> Any:
        result = real_row(*args)
        row[:] = [producers.get(id(result[0]), (None, result[4]))[1], result[4]]
        return result

    def spy(*args: Any) -> Any:
        if id(args[0]) in producers:
            checks.append((producers[id(args[0])][1], None, args))
        else:
            checks.append((row[0], row[1], args))
        return real_check(*args)

    monkeypatch.setattr(oracle, "_enclosure", wide)
    monkeypatch.setattr(oracle, "_sin_cos_mpfr", sin_cos)
    monkeypatch.setattr(oracle, "_row_values", row_values)
    monkeypatch.setattr(oracle, "round_certified", spy)
    return checks


def test_cos_sin_bound_counts_the_frequency_radius(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ω'_j known only within r_j ≈ 2^(20 − P): the angle term is ≥ |p|·(r_j·2^P + |ω̃_j|)
    (|p·ω' − p·ω̃| ≤ |p|·r_j; the product's rounding ≤ |p ω̃|·2^-P), and every value, computed
    from a midpoint r_j away from ω', is still within its bound of cos and sin of p·ω'."""
    checks = _wide_checks(monkeypatch)
    got = oracle.cos_sin(POSITIONS, CONFIG)
    cos, sin = _expected_cos_sin(CONFIG, POSITIONS)
    assert got[0].tolist() == [[mpf_to_float(v) for v in row] for row in cos]
    assert got[1].tolist() == [[mpf_to_float(v) for v in row] for row in sin]
    assert len(checks) == 2 * len(POSITIONS)
    for index, (enclosure, _, (values, angle, factor, constant, precision)) in enumerate(checks):
        row = index // 2
        p = abs(POSITIONS[row])
        radii = [math.ldexp(r, precision) for r in enclosure.omega_radius]
        assert min(radii) >= 2.0 ** (WIDE_BITS - 8)  # the radius term dominates |ω̃_j| ≤ 1
        proof = [p * (r + abs(float(w))) for w, r in zip(enclosure.omega, radii, strict=True)]
        assert np.all(angle >= np.array(proof) * MARGIN)
        exact = (sin if index % 2 == 0 else cos)[row]
        unit = mpmath.ldexp(1, -precision)
        for value, y, g in zip(values, exact, angle, strict=True):
            assert abs(mpmath.mpf(value) - y) <= (g + factor * abs(float(value)) + constant) * unit


def test_rotation_bound_counts_the_attention_radius(monkeypatch: pytest.MonkeyPatch) -> None:
    """YaRN with A and ω' known only within ≈ 2^(20 − P): the term of y = Ã·t̃ is ≥
    |Ã|·T + r_A·2^P·(|t̃| + T·2^-P) (units of 2^-P), T = t̃'s proof bound with the angle
    |p|·(r_j·2^P + |ω̃_j|) (|A t − Ã t̃| ≤ |Ã|·|t − t̃| + |A − Ã|·(|t̃| + |t − t̃|)); the
    certified outputs equal the mpmath transcription's."""
    positions = [3, 1000, -5, 0.5]
    x = _rotation_input(YARN, len(positions))
    checks = _wide_checks(monkeypatch)
    got = oracle.rotate(x, positions, YARN)
    write_a, write_b = _pairs(YARN)
    expected = _expected_rotation(YARN, x, positions)
    for row, (y_a, y_b) in enumerate(expected):
        assert got[row, write_a].tolist() == [mpf_to_float(v) for v in y_a]
        assert got[row, write_b].tolist() == [mpf_to_float(v) for v in y_b]
    assert len(checks) == 2 * len(positions)
    omegas, _ = mp_schedule(YARN)
    for index, (enclosure, scale, (_, term, factor, _, precision)) in enumerate(checks):
        p, which = positions[index // 2], index % 2
        assert factor == 1  # the rotation's check (the product A·t̃)
        big_a = abs(float(scale.attention))
        r_a = math.ldexp(scale.attention_radius, precision)
        assert r_a >= 2.0 ** (WIDE_BITS - 8)  # r_A·|t̃| far above the proof's rounding terms
        for j, w in enumerate(omegas):
            c, s = float(mpmath.cos(p * w)), float(mpmath.sin(p * w))
            first, second = (0.75, -1000.5) if which == 0 else (1000.5, 0.75)
            t = first * c + second * s
            angle = abs(p) * (math.ldexp(enclosure.omega_radius[j], precision) + float(w))
            proof_t = (
                abs(first) * (angle + abs(c))
                + abs(second) * (angle + abs(s))
                + abs(first * c)
                + abs(second * s)
                + abs(t)
            )
            proof = big_a * proof_t + r_a * (abs(t) + math.ldexp(proof_t, -precision))
            assert term[j] >= proof * MARGIN, (index, j)


def test_pair_bound_counts_the_attention_radius_times_the_input_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """t̃ = 0 exactly (a = 3, b = 2, c̃ = 1/2, s̃ = 3/4: y_a's t̃ = a c̃ − b s̃ = 0) with t's error
    e = |a|·e_c + |b|·e_s and A within r_A = 1/4 of Ã = 1: |A t − Ã t̃| reaches (1 + 1/4)·e (the
    box's corner), so the bound must be ≥ 1.25·e; with r_A = 0 it is ≥ e."""
    e_s = e_c = 2.0**-60
    e = 3 * e_c + 2 * e_s
    for radius, need in ((0.25, 1.25 * e), (0.0, e)):
        calls = _record(monkeypatch, "round_interval")
        enclosure = oracle._Enclosure((), (), gmpy2.mpfr(1), radius, None)
        with gmpy2.context(precision=128):
            s, c = gmpy2.mpfr(0.75), gmpy2.mpfr(0.5)
            oracle._pair_values(3.0, 2.0, s, c, e_s, e_c, enclosure, 128)
        assert calls[0][0] == 0  # y_a = Ã·t̃ = 0 exactly
        assert float(calls[0][1]) >= need * MARGIN
        monkeypatch.undo()
