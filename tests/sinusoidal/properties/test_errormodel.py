"""Tests of the SPEC §4 error model: its building blocks against independent derivations."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import mpmath
import numpy as np
import pytest

from pespec.numerics import formats
from pespec.sinusoidal.properties import errormodel as em
from pespec.sinusoidal.properties.base import (
    DTYPES,
    LEVELS,
    SIGNIFICAND_BITS,
    EncodingConfig,
    Level,
    parse_level,
)
from pespec.sinusoidal.reference.conventions import MARIAN, TENSOR2TENSOR
from pespec.specblocks import errormodel as blocks

ALL_LEVELS = em.TABLE_LEVELS


@pytest.mark.parametrize("name", ["float64", "float32", "float16"])
def test_ulp_below_one_matches_numpy_spacing(name: str) -> None:
    # np.spacing(v) is the gap to the next representable value above |v| (NumPy docs), an
    # independent source for the spacing in (0, 1); at 1 the binade [1/2, 1) is used.
    dtype = DTYPES[name]
    rng = np.random.default_rng(5)
    values = np.concatenate([rng.uniform(0, 1, 500), 2.0 ** -np.arange(1, 40)]).astype(dtype)
    values = values[values > 0]
    spacing = np.spacing(values).astype(np.float64)
    assert np.array_equal(formats.ulp_below_one(values.astype(np.float64), name), spacing)
    below_one = float(np.spacing(np.nextafter(dtype.type(1), dtype.type(0))))
    assert formats.ulp_below_one(np.array([1.0]), name)[0] == below_one


@pytest.mark.parametrize(
    ("name", "dtype", "limit"),
    [
        ("float16", np.float16, 2.0**-12),
        ("bfloat16", ml_dtypes.bfloat16, 2.0**-9),
        ("float32", np.float32, 2.0**-25),
    ],
)
def test_rounding_to_output_on_minus_one_one(name: str, dtype: type, limit: float) -> None:
    # Exhaustive over the format's values in [-1, 1]: midpoints between neighbours are the
    # worst case of round-to-nearest; the error there must be ≤ rounding_term(|v|) ≤ u/2.
    if name == "float32":
        grid = np.linspace(-1, 1, 200_001).astype(np.float32)
    else:
        bits = np.arange(2**16, dtype=np.uint16).view(np.dtype(dtype))
        with np.errstate(invalid="ignore"):
            as64 = bits.astype(np.float64)
        grid = np.sort(as64[np.isfinite(as64)])
        grid = grid[np.abs(grid) <= 1.0]
    grid64 = np.unique(np.asarray(grid, dtype=np.float64))
    midpoints = (grid64[1:] + grid64[:-1]) / 2  # exact in float64 (fewer than 53 bits)
    values = np.concatenate([midpoints, grid64, np.random.default_rng(1).uniform(-1, 1, 10_000)])
    error = np.abs(values.astype(dtype).astype(np.float64) - values)
    term = formats.rounding_term(np.abs(values), name)
    assert np.all(error <= term)
    assert float(np.max(term)) == limit  # u/2 = 2^-(p+1): the 2^-12 for float16
    assert float(np.max(error)) == limit  # attained: the bound is exact


def test_gamma_matches_definition() -> None:
    u = 2.0**-24
    assert float(formats.gamma(10.0, u)) == pytest.approx(10 * u / (1 - 10 * u), rel=1e-15)
    assert math.isinf(float(formats.gamma(2.0**24, u)))


def test_frequencies_and_logs_against_mpmath() -> None:
    # ω_k = base^(−2k/d) at 60 digits, independently of the code's exp/log formulation.
    d, base = 512, 10000.0
    omega, lam = em.frequencies_and_logs(d, base)
    mpmath.mp.dps = 60
    for k in (0, 1, 100, 255):
        expected = mpmath.power(10000, -mpmath.mpf(2 * k) / d)
        assert omega[k] == float(expected)
        assert lam[k] == pytest.approx(float(-mpmath.log(expected)), rel=1e-15)
    # Often misquoted: the last pair's frequency is base^(−(d−2)/d), not 1/base.
    assert omega[-1] == pytest.approx(10000.0 ** (-(d - 2) / d), rel=1e-14)
    assert omega[-1] != pytest.approx(1e-4, rel=1e-3)
    omega_t2t, _ = em.frequencies_and_logs(d, base, TENSOR2TENSOR)
    assert omega_t2t[-1] == pytest.approx(1e-4, rel=1e-14)  # s = 1: lowest is exactly 1/base


def test_element_bound_at_position_zero_by_hand() -> None:
    # p = 0: θ = 0, so E = u_w·c_f exactly; x = 0 in sin columns and 1 in cos columns.
    config = EncodingConfig(np.array([0]), 8)
    level = LEVELS["float16"]
    u_w, u_out = 2.0**-24, 2.0**-11
    e = 4 * u_w
    bound = em.element_bound(config, level)[0]
    # sin: |x| + E = 2^-22, a float16 subnormal: spacing 2^-24, half of it 2^-25.
    assert bound[0::2] == pytest.approx(e + 2.0**-25, rel=1e-12)
    # cos: |x| + E > 1 clips to the binade below 1: half spacing u_out/2.
    assert bound[1::2] == pytest.approx(e + u_out / 2, rel=1e-12)


def test_element_bound_working_part_by_hand() -> None:
    # float32 level, p = 1000, pair 0: ω̂_0 = 1 exactly, so θ̂ = fl(1000·1) = 1000 = θ and
    # only the sine's own error is left: E = 4u (issue 14; was 4u + γ(10)·1000).
    config = EncodingConfig(np.array([1000]), 4)
    parts = em.element_bound_parts(config, LEVELS["float32"])
    u = 2.0**-24
    assert parts.working[0, 0] == 4 * u
    # pair 1: ω = 10^-2, λ = ln 100, K_θ = 10(1 + ln 100).
    k_theta = 10 * (1 + math.log(100))
    expected = 4 * u + k_theta * u / (1 - k_theta * u) * 1000 * 0.01
    assert parts.working[0, 2] == pytest.approx(expected, rel=1e-12)


def test_position_term_when_not_representable() -> None:
    # 2^24 + 1 is not a float32: q̂ is off by ≤ ½ulp32 = 1. In pair 0 (ω̂_0 = 1, θ̂ = q̂) that
    # is the whole angle error: E = 4u + 1, against 4u at the representable 2^24.
    level = LEVELS["float32"]
    exact = em.element_bound_parts(EncodingConfig(np.array([2**24]), 2), level).working[0, 0]
    inexact = em.element_bound_parts(EncodingConfig(np.array([2**24 + 1]), 2), level).working
    assert exact == 4 * 2.0**-24
    assert inexact[0, 0] == 4 * 2.0**-24 + 1.0
    # In pair 1 the term is ω_1·1·(1 + γ(K_θ(1))) on top of γ(K_θ(1))·θ.
    pairs = em.element_bound_parts(EncodingConfig(np.array([2**24, 2**24 + 1]), 4), level)
    omega_1 = 0.01  # base 10^4, d = 4: ω_1 = 10^-2
    k_theta = 10 * (1 + math.log(100))
    g = k_theta * 2.0**-24 / (1 - k_theta * 2.0**-24)
    growth = pairs.working[1, 2] - pairs.working[0, 2]
    assert growth == pytest.approx(omega_1 * (1 + g) + g * omega_1, rel=1e-9)
    # 0.1 is not a float32 either (nor float64): a fractional position gets the term too.
    frac = em.element_bound_parts(EncodingConfig(np.array([0.1]), 2), level).working[0, 0]
    half_ulp = float(np.spacing(np.float32(0.1))) / 2
    assert frac >= 4 * 2.0**-24 + half_ulp
    # float64 work holds 0.1 (as given) exactly: no position term.
    frac64 = em.element_bound_parts(EncodingConfig(np.array([0.1]), 2), LEVELS["float64"])
    assert frac64.working[0, 0] == 4 * 2.0**-53


def test_overflowing_working_precision_gives_infinite_bound() -> None:
    config = EncodingConfig(np.array([70000, 10]), 4)
    bound = em.element_bound(config, Level("float16", "float16"))
    assert np.all(np.isinf(bound[0])) and np.all(np.isfinite(bound[1]))


def test_bound_layout_follows_convention() -> None:
    # MARIAN has canonical frequencies with sines in the first half: same per-pair bound,
    # columns permuted by the layout.
    config = EncodingConfig(np.array([3, 700]), 8)
    marian = EncodingConfig(np.array([3, 700]), 8, convention=MARIAN)
    parts = em.element_bound_parts(config, LEVELS["float32"])
    parts_m = em.element_bound_parts(marian, LEVELS["float32"])
    assert np.array_equal(parts_m.working[:, :4], parts.working[:, 0::2])
    assert np.array_equal(parts_m.working[:, 4:], parts.working[:, 1::2])


def test_bound_non_decreasing_in_position() -> None:
    for level in ALL_LEVELS:
        values = [em.max_element_bound(level, p, 64) for p in (0, 10, 1e3, 1e5, 2.0**40)]
        assert values == sorted(values), level.name


def _limit_by_hand(level: Level, threshold: float, d: int = 512, base: float = 1e4) -> int:
    """Pair 1 dominates: pair 0 has no angle term (ω̂_0 = 1) and K_θ(k)·ω_k ∝ (1 + λ_k)e^−λ_k
    decreases in k. Solve 4u + γ(K_θ(1))·ω_1·P + u_out/2 < τ for P while P ≤ 2^p_work (no
    position term), at 50 digits (ω_1 = base^(−2/d) is irrational)."""
    with mpmath.workdps(50):
        u_w = mpmath.mpf(2) ** -SIGNIFICAND_BITS[level.working_dtype]
        u_out = mpmath.mpf(2) ** -SIGNIFICAND_BITS[level.output_dtype]
        c_f = formats.FUNCTION_ULPS[level.working_dtype]
        lam = mpmath.log(base) / (d // 2)
        n = (2 * c_f + 2) * (1 + lam) * u_w
        g = n / (1 - n) * mpmath.exp(-lam)
        limit = (mpmath.mpf(threshold) / em.EVALUATION_SAFETY - u_out / 2 - c_f * u_w) / g
        whole = int(mpmath.floor(limit))
        return whole - 1 if whole == limit else whole


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16"])
def test_meaningful_position_limit_by_hand(name: str) -> None:
    level = LEVELS[name]
    expected = _limit_by_hand(level, 1e-2)
    assert expected < 2**24
    assert em.meaningful_position_limit(level, 512, 10000.0, 1e-2) == float(expected)


def test_meaningful_position_limit_orders_levels_and_rejects_bad_threshold() -> None:
    limits = {lv.name: em.meaningful_position_limit(lv, 512) for lv in ALL_LEVELS}
    assert limits["float64"] > limits["float32"] > limits["bfloat16"]
    assert limits["float16@float64"] > 1e12  # a claimed float64 working precision pays off
    assert em.meaningful_position_limit(LEVELS["bfloat16"], 512, threshold=1e-3) == -1.0
    with pytest.raises(ValueError, match="threshold must be a positive finite number; got -1"):
        em.meaningful_position_limit(LEVELS["float32"], 512, threshold=-1)


def test_adjacent_separation_against_direct_sum() -> None:
    # ‖x_{p+1} − x_p‖² = Σ_k (Δsin² + Δcos²) at p = 123, from the oracle-free mpmath values.
    mpmath.mp.dps = 40
    d = 16
    total = mpmath.mpf(0)
    for k in range(d // 2):
        w = mpmath.power(10000, -mpmath.mpf(2 * k) / d)
        total += (mpmath.sin(124 * w) - mpmath.sin(123 * w)) ** 2
        total += (mpmath.cos(124 * w) - mpmath.cos(123 * w)) ** 2
    assert em.adjacent_separation(d) == pytest.approx(float(mpmath.sqrt(total)), rel=1e-14)


def test_uniqueness_limit_holds_at_and_fails_after() -> None:
    level = LEVELS["float32"]
    limit = int(em.uniqueness_position_limit(level, 64))
    separation = em.adjacent_separation(64)

    def envelope(n: int) -> float:
        error = em.sup_working_error(level, float(n), 64)
        return 2 * math.sqrt(2 * float(np.sum((error + 2.0**-25) ** 2)))

    assert envelope(limit) < separation <= envelope(limit + 1) * (1 + 1e-12)


def test_tables_contain_the_computed_numbers() -> None:
    table = blocks.position_limits_table()
    for level in ALL_LEVELS:
        assert f"`{level.name}`" in table
    p = em.meaningful_position_limit(LEVELS["float32"], 512)
    assert f"{int(p):,}".replace(",", " ") in table
    assert "| float32 | 2^−24 | 4 | 4 | 10·(1 + λ_k) | 0 (ω̂_0 = 1) |" in blocks.constants_table()
    assert f"{em.adjacent_separation(512):.6f}" in blocks.uniqueness_table()


def test_rounded_base_threshold_quoted_in_spec() -> None:
    # SPEC §4.2: the power form with base rounded to T_work stays within K_θ(k) when
    # r = 1/((1 − u_w)·ln base) ≤ 2c_f + 1, i.e. base ≥ e^{1/((2c_f + 1)(1 − u_w))}; the
    # largest threshold over the formats (bfloat16, u_w = 2^−8) is the quoted 1.118.
    thresholds = [
        math.exp(1 / ((2 * formats.FUNCTION_ULPS[name] + 1) * (1 - 2.0 ** -SIGNIFICAND_BITS[name])))
        for name in DTYPES
    ]
    assert f"{max(thresholds):.3f}" == "1.118" and max(thresholds) < 1.12


@pytest.mark.parametrize(
    "text", ["float16@float16", "bfloat16@bfloat16", "float32@float16", "float64@float32"]
)
def test_a_claim_cannot_weaken_the_default_level(text: str) -> None:
    # SPEC §4.4: a backend may claim only its output dtype's default level or a stricter one.
    # A less precise working precision makes the bound vacuous: float16 output "computed in
    # float16" is allowed an error of 1 (the whole range) from position 204 on at d = 512,
    # so every bounded output, the float16-angle bug of Annex A.3 included, would pass.
    weak = Level("float16", "float16")
    assert em.meaningful_position_limit(weak, 512, threshold=1.0) == 203.0
    with pytest.raises(ValueError, match=f"level {text!r} claims a working precision"):
        parse_level(text)
    from pespec.conformance import check

    with pytest.raises(ValueError, match="claims a working precision"):
        check(lambda p, d, b: np.zeros((len(p), d)), level=Level(*text.split("@")))


def test_default_and_stricter_levels_can_be_claimed() -> None:
    assert parse_level("float16") == LEVELS["float16"] == parse_level("float16@float32")
    assert parse_level("float16@float64") == Level("float16", "float64")
    assert parse_level("float64@float64") == LEVELS["float64"]


@pytest.mark.parametrize(("name", "dtype"), [("bfloat16", ml_dtypes.bfloat16), ("float16", None)])
def test_double_rounding_through_float32_is_covered(name: str, dtype: Any) -> None:
    # SPEC §4.1 A6: float64 → float32 → T_out. Values just below and above every T_out
    # midpoint in [−1, 1] (where float32 can land on the midpoint and ties-to-even then goes
    # the wrong way) stay within ½ulp*_out + ½ulp*_32; ½ulp*_out alone is exceeded.
    level = Level(name, "float64")
    assert em.intermediate_dtype(level) == "float32"
    assert em.intermediate_dtype(Level(name, "float32")) is None
    assert em.intermediate_dtype(Level("float32", "float64")) is None
    bits = np.arange(2**16, dtype=np.uint16).view(ml_dtypes.bfloat16 if dtype else np.float16)
    with np.errstate(invalid="ignore"):
        grid = np.unique(bits.astype(np.float64))
    grid = grid[np.isfinite(grid) & (np.abs(grid) <= 1.0)]
    midpoints = (grid[1:] + grid[:-1]) / 2
    nudge = np.abs(midpoints) * 2.0**-30  # below ½ulp_32: float32 rounds onto the midpoint
    values = np.concatenate([midpoints - nudge, midpoints + nudge])
    cast = dtype if dtype else np.float16
    error = np.abs(values.astype(np.float32).astype(cast).astype(np.float64) - values)
    assert np.all(error <= em.output_rounding(np.abs(values), level))
    assert np.any(error > formats.rounding_term(np.abs(values), name))


def test_double_rounding_example_with_ml_dtypes() -> None:
    # The element: x = 0.3857421737826907 is 1.37e-8 below the bfloat16 midpoint
    # 0.3857421875 (= 0.385742…·2^0 with 8 bits: 0.38525390625 + 2^-11); ml_dtypes casts
    # float64 through float32, which rounds onto the midpoint; ties-to-even goes up.
    x = 0.3857421737826907
    y = float(np.array([x]).astype(ml_dtypes.bfloat16).astype(np.float64)[0])
    assert abs(y - x) > 2.0**-11 / 2  # more than ½ulp of [1/4, 1/2) in bfloat16
    level = Level("bfloat16", "float64")
    assert abs(y - x) <= float(em.output_rounding(np.array([x]), level)[0])


def test_pair_zero_has_no_angle_term_and_others_keep_it() -> None:
    _, lam = em.frequencies_and_logs(64, 10000.0)
    g = em.angle_gamma(LEVELS["float32"], lam, 10000.0)
    assert g[0] == 0.0 and np.all(g[1:] > 0)
    # Far out the pair-0 bound at a representable position is the sine's error plus rounding.
    parts = em.element_bound_parts(EncodingConfig(np.array([2**40]), 64), LEVELS["float32"])
    assert parts.working[0, 0] == 4 * 2.0**-24
    assert parts.working[0, 2] > 1.0  # pair 1: γ(K_θ(1))·2^40·ω_1 is vacuous


def test_angle_free_part_is_sine_error_and_rounding() -> None:
    # SPEC §5.3: a = c_f·u_w + ρ, independent of the position (the norm's tolerance).
    level = LEVELS["float32"]
    config = EncodingConfig(np.array([0, 10**7, 2**40]), 8)
    parts = em.element_bound_parts(config, level)
    expected = (4 * 2.0**-24 + parts.rounding) * em.EVALUATION_SAFETY
    assert np.array_equal(parts.angle_free, expected)
    assert float(np.max(parts.angle_free)) < 3e-7 < float(np.max(parts.total))


@pytest.mark.parametrize("name", ["float64", "float32"])
def test_rounded_base_log_form_within_k_theta(name: str) -> None:
    # SPEC §4.2: with ln applied to base rounded once, |t̂ − t| ≤ λγ(n_2) + κ·u/(1 − u)·(1 +
    # γ(n_2)), κ = k/(d/2 − s), and 1 + |η| ≤ (1 + γ(n_1))/(1 − |t̂ − t|) after exp and the
    # product; check 1 + γ(K_θ(k)) covers it at 60 digits, for s = 0 and s = 1 (where K_b,
    # not 10(1 + λ), is the larger at the last pair).
    level = LEVELS[name]
    with mpmath.workdps(60):
        u = mpmath.mpf(2) ** -SIGNIFICAND_BITS[name]
        n1, n2 = 9, 10

        def gam(n: Any) -> Any:
            return n * u / (1 - n * u)

        for d, base, convention in [(512, 1e4, TENSOR2TENSOR), (8, 1.5, TENSOR2TENSOR)]:
            den = convention.denominator(d)
            _, lam = em.frequencies_and_logs(d, base, convention)
            k_theta = em.angle_coefficients(level, lam, base)
            for k in range(1, d // 2):
                lam_k = k * mpmath.log(base) / den
                shift = lam_k * gam(n2) + mpmath.mpf(k) / den * u / (1 - u) * (1 + gam(n2))
                worst = (1 + gam(n1)) / (1 - shift)
                assert worst <= 1 + gam(mpmath.mpf(float(k_theta[k]))), (d, k)
                if k == d // 2 - 1:  # κ = 1: the old K_θ = 10(1 + λ) alone falls short
                    assert worst > 1 + gam(n2 * (1 + lam_k))
        _, lam = em.frequencies_and_logs(8192, 1e7)
        plain = (2 * formats.FUNCTION_ULPS[name] + 2) * (1 + lam)
        assert np.array_equal(em.angle_coefficients(level, lam, 1e7), plain)  # s = 0
