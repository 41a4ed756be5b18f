"""The sinusoidal oracle's error bounds pinned from both sides (issue 42, SPEC Annex B.2/B.3).

Each call the oracle makes to its certification checks is recorded; the test then computes
the proof's terms independently (ω_k and the exact angle in mpmath, t_k = ln(base)·k/(d/2))
and requires (1) the bound handed to the check is never below them (a dropped or shrunken
term is a false certificate waiting for a hard input) and (2) the true error of every value
the oracle certified, measured against mpmath at far higher precision, never exceeds the bound
it used. The Ziv retry is forced by starting it below float64's precision.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import gmpy2
import mpmath
import numpy as np
import pytest

from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.conventions import CANONICAL, MLX, Convention

MARGIN = 1 - 2.0**-30
"""Allowance for the float64 roundings of a bound's evaluation (covered by SLACK = 1 + 2^-40)."""


def _record(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple[Any, ...]]:
    """Replace oracle.<name> by a wrapper that records each call's positional arguments."""
    calls: list[tuple[Any, ...]] = []
    original = getattr(oracle, name)

    def spy(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(oracle, name, spy)
    return calls


def _omega(k: int, d: int, base: float, convention: Convention) -> mpmath.mpf:
    """ω_k = base^(−k/(d/2 − s)) at the current mpmath precision (independent of the oracle)."""
    den = mpmath.mpf(d // 2) - mpmath.mpf(convention.frequency_shift)
    return mpmath.power(mpmath.mpf(base), -mpmath.mpf(k) / den)


def _t(k: int, d: int, base: float, convention: Convention) -> float:
    """t_k = ln(base)·k/(d/2 − s), the exponent of the frequency (the proof's t_k)."""
    return float(mpmath.log(base) * k / (d // 2 - convention.frequency_shift))


def _true_error_within(values: list[Any], exact: list[mpmath.mpf], bound: list[float]) -> None:
    """|ỹ_i − y_i| ≤ bound_i for every i (y_i exact to 400 bits)."""
    for value, y, err in zip(values, exact, bound, strict=True):
        assert abs(mpmath.mpf(value) - y) <= err


# integer positions 64·q + r, q, r in 1..4: 16 ints, 4 + 4 table entries (the table path)
TABLE = [64 * q + r for q in range(1, 5) for r in range(1, 5)]


def test_table_path_bound_never_below_the_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """_table_rows: err = (|θ̃_a| + |θ̃_b|)·(4·t_k + 3)·u + c·u with c ≥ 6.07 (four table entries
    within u of their sine/cosine, each multiplied by a factor ≤ 1.01: 4.04u; two products and a
    sum: 2.03u), for the sines and the cosines alike; and the true error of every value the
    table path formed is within it."""
    d, base = 8, 10000.0
    calls = _record(monkeypatch, "round_certified")
    oracle.encode(TABLE, d, base=base, workers=1)
    assert len(calls) == 2 * (d // 2)  # sines and cosines per k: the table path, nothing else
    mpmath.mp.prec = 400
    try:
        for index, (values, angle, factor, constant, precision) in enumerate(calls):
            k, want_sin = index // 2, index % 2 == 0
            assert constant >= 4 * 1.01 + 2 * 1.01 + 0.01  # 6.07
            assert factor >= 0
            w, t_k = _omega(k, d, base, CANONICAL), _t(k, d, base, CANONICAL)
            magnitude = np.array(TABLE, dtype=np.float64)
            proof = magnitude * float(w) * (4 * t_k + 3)
            assert np.all(angle >= proof * MARGIN)
            unit = mpmath.ldexp(1, -precision)
            f = mpmath.sin if want_sin else mpmath.cos
            exact = [f(x * w) for x in TABLE]
            bound = [
                (a + factor * abs(float(v)) + constant) * unit
                for a, v in zip(angle, values, strict=True)
            ]
            _true_error_within(values, exact, bound)
    finally:
        mpmath.mp.prec = 53


@pytest.mark.parametrize("convention", [CANONICAL, MLX], ids=lambda c: c.name)
def test_direct_path_bound_never_below_the_proof(
    monkeypatch: pytest.MonkeyPatch, convention: Convention
) -> None:
    """_direct_rows: err = A·|θ̃|·(4·t_k + 3)·u + f·|ỹ|·u with f ≥ 2 (A = 1: sin_cos and θ̃'s
    product) or f ≥ 2 + 1.5 + 1 = 4.5 (Ã within 1.5u, the product A·ṽ one more rounding); every
    certified value's true error within the bound used."""
    d, base = 16, 10000.0
    positions = [0.375, 5.5, 1000.25, -77.125]
    calls = _record(monkeypatch, "round_certified")
    oracle.encode(positions, d, base=base, convention=convention, workers=1)
    assert len(calls) == 2 * len(positions)  # sines and cosines per row
    a = 1.0 if convention.output_scale == 1.0 else convention.amplitude(d)
    need = 2.0 if convention.output_scale == 1.0 else 4.5
    half = d // 2
    mpmath.mp.prec = 400
    try:
        amplitude = mpmath.sqrt(mpmath.mpf(2) / d) if a != 1.0 else mpmath.mpf(1)
        for index, (values, angle, factor, constant, precision) in enumerate(calls):
            x, want_sin = positions[index // 2], index % 2 == 0
            assert factor >= need and constant >= 0
            ws = [_omega(k, d, base, convention) for k in range(half)]
            ts = [_t(k, d, base, convention) for k in range(half)]
            proof = np.array(
                [a * abs(x) * float(w) * (4 * t + 3) for w, t in zip(ws, ts, strict=True)]
            )
            assert np.all(angle >= proof * MARGIN)
            unit = mpmath.ldexp(1, -precision)
            f = mpmath.sin if want_sin else mpmath.cos
            exact = [amplitude * f(mpmath.mpf(x) * w) for w in ws]
            bound = [
                (g + factor * abs(float(v)) + constant) * unit
                for g, v in zip(angle, values, strict=True)
            ]
            _true_error_within(values, exact, bound)
    finally:
        mpmath.mp.prec = 53


def test_underflow_guard_routes_only_tiny_angles_to_the_scalar_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Normal angles are certified by the vectorised check (no scalar recomputation at the
    default 24 guard bits for these fixed inputs); angles below 2^-900, where the float64 bound
    could underflow, get an infinite angle term (never accepted by the vector check)."""
    scalar = _record(monkeypatch, "_scalar_value")
    calls = _record(monkeypatch, "round_certified")
    oracle.encode([0.375, 5.5, 1000.25, 3.0e5], 16, workers=1)
    assert scalar == []
    assert all(np.all(np.isfinite(args[1])) for args in calls)
    calls.clear()
    oracle.encode([2.0**-1000], 4, workers=1)
    assert calls and all(np.all(np.isinf(args[1])) for args in calls)


@pytest.mark.parametrize("want_sin", [False, True], ids=["cos", "sin"])
def test_scalar_path_scaled_bound_never_below_the_proof(
    monkeypatch: pytest.MonkeyPatch, want_sin: bool
) -> None:
    """_scalar_value with an output scale A = 1/2 (A² = 1/4, d = 8 of √(2/d)): the error
    handed to round_interval is ≥ (A·|θ̃|·(4·t + 3) + 4.5·|ỹ|)·2^-P (the direct path's proof),
    here at x = 1/2, k = 0 (t = 0), where the |ỹ| term dominates."""
    calls = _record(monkeypatch, "round_interval")
    x = gmpy2.mpfr(0.5)
    result = oracle._scalar_value(
        x, Fraction(10000), Fraction(4), 0, want_sin, 128, float, Fraction(1, 4)
    )
    value, err = calls[-1][0], calls[-1][1]
    proof = (0.5 * 0.5 * 3 + 4.5 * abs(float(value))) * 2.0**-128
    assert float(err) >= proof * MARGIN
    exact = 0.5 * (mpmath.sin(0.5) if want_sin else mpmath.cos(0.5))
    assert result == float(mpmath.mpf(exact))  # mpmath at 53 bits: correctly rounded


@pytest.mark.timeout(10)
@pytest.mark.parametrize("start", [8, 16, 40])
def test_scalar_retry_from_a_low_start_gives_the_certified_value(start: int) -> None:
    """The Ziv loop of _scalar_value started below float64's 53 bits must double until it
    certifies, and give what encode certifies at full precision (a loop that does not raise
    its precision hangs: the timeout fails it)."""
    d, base, position = 8, 10000.0, 1000.25
    expected = oracle.encode([position], d, base=base, workers=1)[0]
    x = gmpy2.mpfr(position)
    for k in range(d // 2):
        for want_sin, column in ((True, 2 * k), (False, 2 * k + 1)):
            got = oracle._scalar_value(x, Fraction(10000), Fraction(d // 2), k, want_sin, start)
            assert got == expected[column]


@pytest.mark.timeout(10)
def test_one_value_retries_from_a_low_start_give_the_certified_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ω_k (base 10001: no perfect power, so the Ziv loop, not the rational path) and the output
    scale A = √(1/3) started at START_BITS = 8 bits: the loops must double until certified
    and give the full-precision results (a loop that does not raise its precision hangs)."""
    expected = oracle._frequencies_dd_cached.__wrapped__(8, Fraction(10001), Fraction(4))
    amplitude = oracle._sqrt_certified(Fraction(1, 3))
    assert amplitude == float(mpmath.sqrt(mpmath.mpf(1) / 3))  # mpmath at 53 bits: nearest
    monkeypatch.setattr(oracle, "START_BITS", 8)
    got = oracle._frequencies_dd_cached.__wrapped__(8, Fraction(10001), Fraction(4))
    assert got[0].tolist() == expected[0].tolist() and got[1].tolist() == expected[1].tolist()
    assert oracle._sqrt_certified(Fraction(1, 3)) == amplitude


def test_default_base_is_10000() -> None:
    """The public entry points' default base is 10000 (SPEC: Vaswani et al.): ω_k = 10000^(-k/4)
    for d_model = 8, from mpmath at 400 bits; encode_decimal's default equals base=10000."""
    from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

    with mpmath.workprec(400):
        exact = [mpmath.power(10000, -mpmath.mpf(k) / 4) for k in range(4)]
        hi, _ = oracle.frequencies_dd(8)
        assert hi.tolist() == [mpf_to_float(w) for w in exact]
        for got, w in zip(oracle.frequencies_mpf(8), exact, strict=True):
            assert abs(got - w) <= abs(w) * mpmath.mpf(10) ** -39
    assert oracle.encode_decimal([3], 8) == oracle.encode_decimal([3], 8, base=10000.0)
    assert oracle.encode_decimal([3], 8) != oracle.encode_decimal([3], 8, base=10001.0)


def test_integer_base_one_is_refused() -> None:
    """base = 1 (an int) makes every ω_k = 1: refused with the allowed range named."""
    with pytest.raises(ValueError, match=r"base must be a finite real number > 1; got 1"):
        oracle.frequencies_dd(8, base=1)


def test_position_zero_and_minus_one() -> None:
    """Position 0: sin 0 = +0 and cos 0 = 1 exactly, half of the row each; position −1:
    sin(−ω_k) < 0 for 0 < ω_k ≤ 1, so each decimal sine is negative and no row is the zero row."""
    row = oracle.encode([0], 8)[0]
    assert sorted(row.tolist()) == [0.0] * 4 + [1.0] * 4
    assert not np.any(np.signbit(row))
    zero, minus_one = oracle.encode_decimal([0, -1], 8)
    assert sorted(float(v) for v in zero) == [0.0] * 4 + [1.0] * 4
    assert zero != minus_one
    assert sum(v.startswith("-") for v in minus_one) == 4


def test_certified_omega_bound_never_below_the_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """_certified_omega (base 10001: no perfect power, so the Ziv loop, not the rational path):
    the error handed to round_interval for ω̃_k and for the residual ω̃_k − hi is
    ≥ |ω̃_k|·(4·t_k + 2)·2^-P (module docstring: four correctly rounded operations, each error
    carried through exp), with t_k = ln(10001)·k/4 from mpmath; and ω̃_k's true error is within
    it (ω_k at 400 bits)."""
    calls = _record(monkeypatch, "round_interval")
    hi, lo = oracle._frequencies_dd_cached.__wrapped__(8, Fraction(10001), Fraction(4))
    assert len(calls) == 2 * 3  # k = 1, 2, 3 (ω_0 = 1 is rational): hi, then lo
    mpmath.mp.prec = 400
    try:
        for index, (value, err) in enumerate(calls):
            k = index // 2 + 1
            omega = calls[2 * (k - 1)][0]  # the hi call's value is ω̃_k itself
            t_k = float(mpmath.log(10001) * k / 4)
            proof = abs(float(omega)) * (4 * t_k + 2) * 2.0**-omega.precision
            assert float(err) >= proof * MARGIN, (k, index % 2)
            if index % 2 == 0:
                exact = mpmath.power(10001, -mpmath.mpf(k) / 4)
                assert abs(mpmath.mpf(value) - exact) <= mpmath.mpf(err)
                assert hi[k] == float(exact)  # 400 → 53 bits: mpmath rounds to nearest
                assert lo[k] == float(exact - mpmath.mpf(hi[k]))
    finally:
        mpmath.mp.prec = 53


def test_frequency_below_the_smallest_subnormal_is_positive_zero() -> None:
    """base 1e300, d = 8, s = 1.5: ω_3 = 1e300^(-3/2.5) ≈ 10^-360, below 2^-1075, so hi and lo
    round to +0 (the oracle's shortcut for t > 750); ω_2 ≈ 10^-240 is a normal float64. Both
    against mpmath; a row at position 1 then holds sin ω_3 = +0 and cos ω_3 = 1."""
    from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

    convention = Convention(frequency_shift=1.5)
    hi, lo = oracle.frequencies_dd(8, base=1e300, convention=convention)
    with mpmath.workprec(400):
        for k in range(4):
            exact = mpmath.power(mpmath.mpf(1e300), -mpmath.mpf(k) / mpmath.mpf(2.5))
            assert hi[k] == mpf_to_float(exact), k
            assert lo[k] == mpf_to_float(exact - mpmath.mpf(hi[k])), k
    assert hi[3] == 0.0 and lo[3] == 0.0 and not np.signbit(hi[3]) and not np.signbit(lo[3])
    row = oracle.encode([1], 8, base=1e300, convention=convention, workers=1)[0]
    assert row[6] == 0.0 and not np.signbit(row[6]) and row[7] == 1.0


# SPEC: the oracle evaluates t_max = ln(base)·(d/2 − 1)/(d/2 − s) up to 2^29. With base = 1e300
# (ln = 690.78, three times that is 2072.3) and d = 8: s = 4 − 3·2^-19 gives t_max = 0.675·2^29
# (accepted; (d/2 + 1)/(d/2 − 1) = 5/3 times it, or a limit of 2^28, would refuse it) and
# s = 4 − 2^-18 gives 1.012·2^29 (refused).
INSIDE = Convention(frequency_shift=4 - 3 * 2.0**-19)
OUTSIDE = Convention(frequency_shift=4 - 2.0**-18)


def test_exponent_range_limit_from_both_sides() -> None:
    """t_max just inside 2^29 is encoded (ω_0 = 1, every other ω_k rounds to +0: the row at
    position 1 is sin 1, cos 1, then (0, 1) pairs, from mpmath); just outside is refused with
    the limit named, by encode and encode_decimal."""
    assert 0.6 * 2**29 < 690.7755 * 3 / (4 - INSIDE.frequency_shift) < 2**29
    assert 2**29 < 690.7755 * 3 / (4 - OUTSIDE.frequency_shift) < 1.02 * 2**29
    from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

    row = oracle.encode([1], 8, base=1e300, convention=INSIDE, workers=1)[0]
    with mpmath.workprec(400):
        first = [mpf_to_float(mpmath.sin(1)), mpf_to_float(mpmath.cos(1))]
    assert row.tolist() == first + [0.0, 1.0] * 3
    for entry in (oracle.encode, oracle.encode_decimal):
        with pytest.raises(ValueError, match=r"below the oracle's range e\^-5\.37e\+08"):
            entry([1], 8, base=1e300, convention=OUTSIDE)
        # an int base beyond float64 (10^474) is named by its magnitude, not an OverflowError
        with pytest.raises(ValueError, match=r"base=~1e474\.0: .* below the oracle's range"):
            entry([1], 8, base=10**474, convention=OUTSIDE)


def test_scaled_decimal_row_at_position_zero() -> None:
    """encode_decimal at position 0 with an output scale: sin 0 = 0 and A·cos 0 = A exactly
    (MLX, d = 6: A = √(2/6) = √(1/3), from mpmath at 400 bits, 30 digits)."""
    row = oracle.encode_decimal([0], 6, convention=MLX, digits=30)[0]
    with mpmath.workprec(400):
        amplitude = mpmath.sqrt(mpmath.mpf(1) / 3)
        mantissa, exponent = mpmath.nstr(amplitude, 30, min_fixed=1, max_fixed=0).split("e")
    want = f"{mantissa}e{int(exponent):+03d}"
    assert sorted(row) == sorted(["0.00000000000000000000000000000e+00"] * 3 + [want] * 3)


# ---------------------------------------------------------------------------
# the held-out sample's survivors (docs/mutation.md, "A held-out sample")


@pytest.mark.parametrize("want_sin", [False, True], ids=["cos", "sin"])
def test_scalar_path_unscaled_bound_never_below_the_proof(
    monkeypatch: pytest.MonkeyPatch, want_sin: bool
) -> None:
    """_scalar_value with A = 1 at x = 1/2, k = 0 (t = 0, θ̃ = 1/2 exactly): the error handed to
    round_interval is ≥ (|θ̃|·3 + 2·|ỹ|)·2^-P (the direct path's proof; the 2·|ỹ| term, the
    rounding of sin/cos itself, dominates here)."""
    calls = _record(monkeypatch, "round_interval")
    result = oracle._scalar_value(gmpy2.mpfr(0.5), Fraction(10000), Fraction(4), 0, want_sin, 128)
    value, err = calls[-1][0], calls[-1][1]
    proof = (0.5 * 3 + 2 * abs(float(value))) * 2.0**-128
    assert float(err) >= proof * MARGIN
    exact = mpmath.sin(0.5) if want_sin else mpmath.cos(0.5)
    assert result == float(mpmath.mpf(exact))


def test_sqrt_certified_bound_never_below_the_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """_sqrt_certified: Ã = √(A² rounded once) correctly rounded is within 1.5 units of 2^-P
    relative (half an ulp ≤ |Ã|·2^-P each for the square and the root, the first halved by
    the root); the error handed to round_interval is never below 1.5·|Ã|·2^-P."""
    calls = _record(monkeypatch, "round_interval")
    result = oracle._sqrt_certified(Fraction(1, 3))
    value, err = calls[-1][0], calls[-1][1]
    assert float(err) >= 1.5 * abs(float(value)) * 2.0**-value.precision * MARGIN
    with mpmath.workprec(400):
        exact = mpmath.sqrt(mpmath.mpf(1) / 3)
        assert abs(mpmath.mpf(value) - exact) <= mpmath.mpf(err)
    assert result == float(mpmath.sqrt(mpmath.mpf(1) / 3))


def test_direct_path_angle_term_at_k0_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """At k = 0 every quantity of the direct path's angle term is exact (ω_0 = 1, t_0 = 0): it
    must be ≥ 3·|x| with no margin, so the SLACK factor covering the float64 evaluation of θ̃
    cannot be inverted (a division by SLACK gives 3·|x|/SLACK < 3·|x|)."""
    calls = _record(monkeypatch, "round_certified")
    positions = [0.375, 5.5, 1000.25, -77.125]
    oracle.encode(positions, 8, workers=1)
    for index, args in enumerate(calls):
        assert args[1][0] >= 3 * abs(positions[index // 2])


def test_table_path_bound_for_negative_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table path splits x = B·q + r with 0 ≤ r < B, so for x < 0 the proof's angle term is
    (|B·q| + r)·ω̃·(4t + 3) = (|x| + 2r)·ω̃·(4t + 3), above |x|·ω̃·(4t + 3) when r > 0."""
    d, base = 8, 10000.0
    positions = [-x for x in TABLE]
    calls = _record(monkeypatch, "round_certified")
    oracle.encode(positions, d, base=base, workers=1)
    assert len(calls) == 2 * (d // 2)  # the table path
    magnitude = np.array([abs(64 * (x // 64)) + x % 64 for x in positions], dtype=np.float64)
    with mpmath.workprec(400):
        for index, args in enumerate(calls):
            k = index // 2
            w, t_k = _omega(k, d, base, CANONICAL), _t(k, d, base, CANONICAL)
            assert np.all(args[1] >= magnitude * float(w) * (4 * t_k + 3) * MARGIN)


def test_table_path_at_d_model_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """d_model = 2 (one frequency, ω_0 = 1, t_max = 0) through the table path (the 16 integer
    positions of TABLE): every value is sin x or cos x correctly rounded (mpmath at 400 bits)."""
    positions = TABLE
    calls = _record(monkeypatch, "round_certified")
    got = oracle.encode(positions, 2, workers=1)
    assert len(calls) == 2 and len(calls[0][0]) == len(TABLE)  # one k, sines and cosines
    with mpmath.workprec(400):
        want = [[float(mpmath.sin(x)), float(mpmath.cos(x))] for x in positions]
    assert got.tolist() == want


def test_subnormal_frequency_angle_term_never_below_the_proof(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ω_1 = 3^-674 (base 3^1348, d = 4) is subnormal and float(ω_1) is 0.5% below it; at
    x = 2^1000 the angle θ ≈ 2^-67 is far above the underflow guard, so the direct path's
    angle term must use an upper bound of ω_1 (2^-1022), not float(ω_1)."""
    calls = _record(monkeypatch, "round_certified")
    x, base = 2.0**1000, 3**1348
    got = oracle.encode([x], 4, base=base, workers=1)[0]
    with mpmath.workprec(4000):
        w = mpmath.mpf(3) ** -674
        t_1 = float(674 * mpmath.log(3))
        for args in calls:
            assert np.isfinite(args[1][1])
            assert args[1][1] >= float(mpmath.mpf(x) * w * (4 * t_1 + 3)) * MARGIN
        theta = mpmath.mpf(x) * w
        assert got[2] == float(mpmath.sin(theta)) and got[3] == float(mpmath.cos(theta))


def test_omega_t_bound_for_a_denominator_below_one() -> None:
    """_omega_mpfr's t_k upper bound is ln(base)·k/den also when den = d/2 − s < 1 (here
    d = 4, s = 1.5, den = 1/2: t_1 = 2·ln(10000))."""
    _, _, t_upper = oracle._omega_mpfr.__wrapped__(4, Fraction(10000), Fraction(1, 2), 128)
    assert t_upper[1] >= float(2 * mpmath.log(10000)) * MARGIN
    assert t_upper[1] <= float(2 * mpmath.log(10000)) * (1 + 2.0**-30)


def test_frequencies_mpf_digits_for_a_fractional_denominator() -> None:
    """frequencies_mpf is good to its 40 digits for large t_k (base 1e300: t_100 ≈ 270, which
    amplifies the rounding of the exponent k/den) and for a fractional d/2 − s (s = 0.5,
    d = 512: den = 511/2), against mpmath at 400 bits."""
    convention = Convention(frequency_shift=0.5)
    got = oracle.frequencies_mpf(512, base=1e300, convention=convention)
    with mpmath.workprec(400):
        for k in (1, 100, 255):
            exact = _omega(k, 512, 1e300, convention)
            assert abs(got[k] - exact) <= abs(exact) * mpmath.mpf(10) ** -40, k


def test_encode_decimal_default_digits_and_range() -> None:
    """encode_decimal's default is 40 significant digits; digits = 0 is refused with the
    documented range."""
    row = oracle.encode_decimal([1], 2)[0]
    with mpmath.workprec(400):
        mantissa = mpmath.nstr(mpmath.sin(1), 40, min_fixed=1, max_fixed=0).split("e")[0]
    assert row[0] == f"{mantissa}e-01"
    assert len(row[0].split("e")[0].replace(".", "").lstrip("-")) == 40
    with pytest.raises(ValueError, match=r"digits must be an int in \[1, 10000\]"):
        oracle.encode_decimal([1], 2, digits=0)


def test_exact_denominator_beyond_two_to_53() -> None:
    """den = d/2 − s is exact for any even d_model: at d = 2^55 + 4, d/2 = 2^54 + 2 is not a
    float64 (the float division would round it to 2^54)."""
    assert oracle._exact_denominator(2**55 + 4, CANONICAL) == Fraction(2**54 + 2)
