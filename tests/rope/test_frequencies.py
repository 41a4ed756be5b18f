"""frequencies(): each schedule against an independent mpmath transcription of SPEC §8.3.

The exact values are computed here, at 200 bits, from the formulas transcribed in the
comments (not from pespec). The float64 evaluation is then allowed the rounding error its
operations can make, derived in ``_pow_bound`` and next to each use; u = 2^-53, one libm
``pow``/``log`` call is taken to be within 1 ulp (<= 2u relative), every +, −, ×, ÷ within
half an ulp (u relative), and products of (1 + δ) factors are bounded to first order with a
1.01 margin for the second-order terms.
"""

from __future__ import annotations

import math

import mpmath
import pytest

from pespec.rope import PRESETS, RopeConfig, frequencies, yarn_correction_dims

U = 2.0**-53
mp = mpmath.mp


@pytest.fixture(autouse=True)
def _precision() -> None:
    mp.prec = 200  # restored by the conftest fixture


def _omega(theta: float, j: int, d_r: int) -> mpmath.mpf:
    # default schedule: ω_j = θ^(−2j/d_r)
    return mpmath.power(mpmath.mpf(theta), mpmath.mpf(-2 * j) / d_r)


def _pow_bound(base: float, exponent: float) -> float:
    """Relative error of float64 ``base ** exponent`` with the exponent rounded once.

    base^(e(1+δ)) = base^e · exp(e·δ·ln base): the exponent's rounding (|δ| <= u) is
    magnified by |e·ln base|; pow itself adds <= 2u.
    """
    return 1.01 * (abs(exponent * math.log(base)) * U + 2 * U)


def _assert_close(got: float, exact: mpmath.mpf, relative: float, what: str) -> None:
    error = abs(mpmath.mpf(got) - exact) / abs(exact)
    assert error <= relative, f"{what}: relative error {float(error):.3g} > bound {relative:.3g}"


@pytest.mark.parametrize(
    "theta, d_r", [(10000.0, 128), (1e6, 128), (500000.0, 64), (150000.0, 64), (10000.0, 96)]
)
def test_default_schedule(theta: float, d_r: int) -> None:
    omegas, attention = frequencies(RopeConfig(head_dim=d_r, theta=theta))
    assert omegas.shape == (d_r // 2,) and omegas.dtype.name == "float64" and attention == 1.0
    for j, got in enumerate(omegas):
        _assert_close(got, _omega(theta, j, d_r), _pow_bound(theta, 2 * j / d_r), f"j={j}")


def test_linear_schedule_divides_by_the_factor() -> None:
    # linear: ω_j / s; one more division (u).
    config = PRESETS["Gemma-3-4B global layers"]
    omegas, attention = frequencies(config)
    assert attention == 1.0
    for j, got in enumerate(omegas):
        exact = _omega(1e6, j, 256) / 8
        _assert_close(got, exact, _pow_bound(1e6, 2 * j / 256) + 1.01 * U, f"j={j}")


@pytest.mark.parametrize("length", [6144, 2048, 100])
def test_dynamic_base_formula(length: int) -> None:
    # dynamic: base = θ·(s·ℓ/L − (s − 1))^(d_r/(d_r − 2)) when ℓ > L, else θ.
    s, big_l, d_r, theta = 2.0, 2048, 64, 10000.0
    config = RopeConfig(
        head_dim=d_r,
        theta=theta,
        rope_type="dynamic",
        factor=s,
        max_position_embeddings=big_l,
        seq_len=length,
    )
    omegas, attention = frequencies(config)
    assert attention == 1.0
    if length > big_l:
        q = mpmath.mpf(s) * length / big_l - (s - 1)  # = 5 exactly: s·ℓ = 12288 = 6·2048
        p = mpmath.mpf(d_r) / (d_r - 2)
        base = theta * mpmath.power(q, p)
        # base's error: q exact in float64 (5), p rounded (u) and pow (2u): _pow_bound;
        # × θ (u). ω = base^(−e) magnifies it by e = 2j/d_r <= 1 and adds _pow_bound.
        base_error = _pow_bound(5.0, d_r / (d_r - 2)) + 1.01 * U
    else:
        base, base_error = mpmath.mpf(theta), 0.0
    for j, got in enumerate(omegas):
        e = 2 * j / d_r
        exact = mpmath.power(base, -mpmath.mpf(2 * j) / d_r)
        _assert_close(got, exact, e * base_error + _pow_bound(float(base), e), f"j={j}")


def _llama3_exact(omega: mpmath.mpf, s: float, low: float, high: float, l0: int) -> mpmath.mpf:
    # llama3 (Meta's apply_scaling, transformers _compute_llama3_parameters):
    # λ = 2π/ω; λ < L0/high: ω; λ > L0/low: ω/s;
    # else with σ = (L0/λ − low)/(high − low): (1 − σ)·ω/s + σ·ω.
    wavelength = 2 * mpmath.pi / omega
    if wavelength < mpmath.mpf(l0) / high:
        return omega
    if wavelength > mpmath.mpf(l0) / low:
        return omega / s
    sigma = (l0 / wavelength - low) / (mpmath.mpf(high) - low)
    return (1 - sigma) * omega / s + sigma * omega


def test_llama3_interpolation_is_continuous_at_both_thresholds() -> None:
    # The exact formula: at λ = L0/high, σ = 1 and the middle branch gives ω (the
    # unchanged branch); at λ = L0/low, σ = 0 and it gives ω/s (the divided branch).
    s, low, high, l0 = 8.0, 1.0, 4.0, 8192
    for wavelength, outside in ((mpmath.mpf(l0) / high, 1), (mpmath.mpf(l0) / low, 1 / s)):
        omega = 2 * mpmath.pi / wavelength
        for side in (-1, 0, 1):
            nearby = 2 * mpmath.pi / (wavelength * (1 + side * mpmath.mpf(10) ** -30))
            ratio = _llama3_exact(nearby, s, low, high, l0) / nearby
            assert abs(ratio - outside) < mpmath.mpf(10) ** -29
        assert _llama3_exact(omega, s, low, high, l0) / omega == outside


@pytest.mark.parametrize("threshold", ["high", "low"])
def test_llama3_implementation_is_continuous_at_the_thresholds(threshold: str) -> None:
    # Put pair j = 1 of d_r = 4 (ω_1 = θ^(−1/2), λ_1 = 2π·√θ) just below and just above a
    # threshold λ* by choosing θ = (λ*(1 ± ε)/(2π))². Near λ* = L0/high the ratio ω'/ω is
    # 1 − (1 − 1/s)·ε·high/(high − low) + O(ε²); near L0/low it is 1/s + (1 − 1/s)·ε·low/
    # (high − low) + O(ε²): both sides agree with the limit to 2ε plus rounding (~100u).
    s, low, high, l0, eps = 8.0, 1.0, 4.0, 8192, 1e-9
    wavelength = l0 / (high if threshold == "high" else low)
    limit = 1.0 if threshold == "high" else 1 / s
    for side in (-1.0, 1.0):
        theta = (wavelength * (1 + side * eps) / (2 * math.pi)) ** 2
        config = RopeConfig(
            head_dim=4,
            theta=theta,
            rope_type="llama3",
            factor=s,
            low_freq_factor=low,
            high_freq_factor=high,
            original_max_position_embeddings=l0,
        )
        omegas, _ = frequencies(config)
        ratio = omegas[1] / theta**-0.5
        assert abs(ratio - limit) <= 2 * eps + 100 * U, (side, ratio)


def test_llama3_schedule_of_llama_3_1() -> None:
    config = PRESETS["Llama-3.1-8B"]
    omegas, attention = frequencies(config)
    assert attention == 1.0
    bands = {"kept": 0, "divided": 0, "smoothed": 0}
    for j, got in enumerate(omegas):
        omega = _omega(5e5, j, 128)
        wavelength = 2 * mpmath.pi / omega
        bands["kept" if wavelength < 2048 else "divided" if wavelength > 8192 else "smoothed"] += 1
        base = _pow_bound(5e5, 2 * j / 128)
        # middle band: λ (2π and ÷: 2u more), L0/λ (u), − low, ÷ (high − low) (2u): σ's
        # absolute error <= high/(high − low)·(base + 5u); it enters ω' with weight
        # (1 − 1/s)·ω <= (s − 1)·ω', plus 4u for the final products and sum.
        bound = base + (8 - 1) * (4 / 3) * (base + 5 * U) + 4 * U
        _assert_close(got, _llama3_exact(omega, 8.0, 1.0, 4.0, 8192), 1.01 * bound, f"j={j}")
    # The bands from the thresholds: λ_j = 2π·θ^(j/64) < 2048 iff j < 64·ln(2048/2π)/ln θ
    # = 28.2, and > 8192 iff j > 64·ln(8192/2π)/ln θ = 34.98: pairs 0-28 kept (29), 35-63
    # divided by 8 (29), 29-34 interpolated (6).
    assert bands == {"kept": 29, "divided": 29, "smoothed": 6}


def _correction_dim(beta: float, d_r: int, theta: float, l0: int) -> mpmath.mpf:
    # YaRN: c(β) = d_r·ln(L0/(2π·β)) / (2·ln θ)
    return d_r * mpmath.log(l0 / (2 * mpmath.pi * beta)) / (2 * mpmath.log(theta))


def _yarn_exact(config: RopeConfig) -> list[mpmath.mpf]:
    # low = c(β_fast), high = c(β_slow), floored/ceiled when truncate; clamped to [0, d_r − 1];
    # high += 0.001 when low == high; ramp_j = clamp((j − low)/(high − low), 0, 1);
    # ω'_j = ω_j/s·ramp_j + ω_j·(1 − ramp_j).
    assert config.beta_fast and config.beta_slow and config.factor
    assert config.original_max_position_embeddings
    d_r, theta, l0 = config.d_r, config.theta, config.original_max_position_embeddings
    low = _correction_dim(config.beta_fast, d_r, theta, l0)
    high = _correction_dim(config.beta_slow, d_r, theta, l0)
    if config.truncate:
        low, high = mpmath.floor(low), mpmath.ceil(high)
    low, high = max(low, mpmath.mpf(0)), min(high, mpmath.mpf(d_r - 1))
    if low == high:
        high += mpmath.mpf("0.001")
    out = []
    for j in range(d_r // 2):
        ramp = min(max((j - low) / (high - low), mpmath.mpf(0)), mpmath.mpf(1))
        omega = _omega(theta, j, d_r)
        out.append(omega / config.factor * ramp + omega * (1 - ramp))
    return out


def _tau(beta: float, config: RopeConfig) -> float:
    # SPEC §8.4's float64 window for c(β): 8u·(|c| + d_r/(2 ln θ)).
    assert config.original_max_position_embeddings
    c = float(
        _correction_dim(beta, config.d_r, config.theta, config.original_max_position_embeddings)
    )
    return 8 * U * (abs(c) + config.d_r / (2 * math.log(config.theta)))


@pytest.mark.parametrize("name", ["gpt-oss-20b", "DeepSeek-V3"])
def test_yarn_ramp(name: str) -> None:
    config = PRESETS[name]
    assert config.factor and config.beta_fast and config.beta_slow
    omegas, _ = frequencies(config)
    exact = _yarn_exact(config)
    s = config.factor
    # ramp error: truncated ends are exact integers, so ramp is one rounded quotient (u);
    # unrounded ends carry c's float64 error τ each, moving ramp by <= 2τ/(high − low).
    dims = yarn_correction_dims(config)
    width = dims[1] - dims[0]
    ramp_error = (
        U
        if config.truncate
        else 2 * max(_tau(config.beta_fast, config), _tau(config.beta_slow, config)) / width + U
    )
    for j, got in enumerate(omegas):
        # ω'_j = ω(ramp/s + 1 − ramp) >= ω/s: ω's error, 6 roundings, and the ramp's error
        # entering with weight (1 − 1/s)·ω <= (s − 1)·ω'.
        bound = 1.01 * (_pow_bound(config.theta, 2 * j / config.d_r) + 6 * U + (s - 1) * ramp_error)
        _assert_close(got, exact[j], bound, f"{name} j={j}")


@pytest.mark.parametrize("name", ["gpt-oss-20b", "DeepSeek-V3"])
def test_yarn_correction_dims_of_presets_are_unambiguous(name: str) -> None:
    # SPEC §8.4: floor/ceil are judged on either side only within τ of an integer; the
    # presets' correction dimensions are far from any integer, so float64 decides them.
    config = PRESETS[name]
    assert config.beta_fast and config.beta_slow and config.original_max_position_embeddings
    betas = (config.beta_fast, config.beta_slow)
    for beta, got in zip(betas, yarn_correction_dims(config), strict=True):
        exact = _correction_dim(
            beta, config.d_r, config.theta, config.original_max_position_embeddings
        )
        assert abs(mpmath.mpf(got) - exact) <= _tau(beta, config)
        assert abs(exact - mpmath.nint(exact)) > 1000 * _tau(beta, config)


def test_yarn_attention_factor() -> None:
    # gpt-oss: no attention_factor, no mscale: A = 0.1·ln 32 + 1 (log 2u, ×, + : 4u).
    _, attention = frequencies(PRESETS["gpt-oss-20b"])
    _assert_close(attention, 0.1 * mpmath.log(32) + 1, 4 * U, "gpt-oss A")
    # DeepSeek-V3: mscale = mscale_all_dim = 1, so A = (0.1 ln 40 + 1)/(0.1 ln 40 + 1) = 1.
    assert frequencies(PRESETS["DeepSeek-V3"])[1] == 1.0
    base = {
        "head_dim": 64,
        "rope_type": "yarn",
        "factor": 40.0,
        "original_max_position_embeddings": 4096,
    }
    # DeepSeek-V2's published mscale 0.707, mscale_all_dim 0.707 also give 1; unequal ones:
    ratio = (0.1 * 1.0 * mpmath.log(40) + 1) / (0.1 * 0.5 * mpmath.log(40) + 1)
    got = frequencies(RopeConfig(**base, mscale=1.0, mscale_all_dim=0.5))[1]
    _assert_close(got, ratio, 10 * U, "mscale ratio")
    assert frequencies(RopeConfig(**base, attention_factor=0.75, mscale=1.0))[1] == 0.75


def test_yarn_low_equals_high_guard() -> None:
    # θ = 5, d_r = 8, L0 = 4096: c(32) = 8·ln(4096/(64π))/(2 ln 5) = 7.49, floored to 7, and
    # c(1) = 8·ln(4096/(2π))/(2 ln 5) = 16.1, ceiled to 17 and clamped to d_r − 1 = 7: a ramp
    # of zero width, widened to [7, 7.001] as in transformers. Every pair (j <= 3) lies below
    # it, so every pair keeps ω.
    config = RopeConfig(
        head_dim=8, theta=5.0, rope_type="yarn", factor=4.0, original_max_position_embeddings=4096
    )
    low, high = yarn_correction_dims(config)
    assert (math.floor(low), min(math.ceil(high), 7)) == (7, 7)
    exact = _yarn_exact(config)
    omegas, _ = frequencies(config)
    for j, got in enumerate(omegas):
        assert exact[j] == _omega(5.0, j, 8)
        _assert_close(got, exact[j], 1.01 * (_pow_bound(5.0, j / 4) + 8 * U), f"j={j}")


@pytest.mark.parametrize("length, which", [(4096, "short"), (4097, "long"), (131072, "long")])
def test_longrope_factors_and_attention(length: int, which: str) -> None:
    # longrope: ω'_j = 1/(f_j·θ^(2j/d_r)) with f = long_factor when ℓ > L0 else short_factor;
    # A = √(1 + ln s / ln L0), s = L/L0 = 32 for Phi-3.5-mini: √(1 + 5/12) = √(17/12).
    base = PRESETS["Phi-3.5-mini-instruct-seq-len-4096"].to_dict()
    config = RopeConfig.from_dict({**base, "seq_len": length})
    factors = config.long_factor if which == "long" else config.short_factor
    assert factors is not None
    omegas, attention = frequencies(config)
    for j, got in enumerate(omegas):
        exact = 1 / (factors[j] * mpmath.power(10000, mpmath.mpf(2 * j) / 96))
        _assert_close(got, exact, _pow_bound(1e4, 2 * j / 96) + 2.02 * U, f"j={j}")
    _assert_close(attention, mpmath.sqrt(mpmath.mpf(17) / 12), 8 * U, "A")
    assert round(attention, 5) == 1.19024  # the value published for Phi-3.5-mini


def test_longrope_attention_factor_rules() -> None:
    base = {
        "head_dim": 8,
        "rope_type": "longrope",
        "original_max_position_embeddings": 4096,
        "seq_len": 10,
        "short_factor": (1.0,) * 4,
        "long_factor": (2.0,) * 4,
    }
    # s = factor when given (here 4: √(1 + ln 4/ln 4096) = √(1 + 1/6)), explicit A wins,
    # s <= 1 gives A = 1.
    _assert_close(
        frequencies(RopeConfig(**base, factor=4.0))[1],
        mpmath.sqrt(mpmath.mpf(7) / 6),
        8 * U,
        "A(s=4)",
    )
    assert frequencies(RopeConfig(**base, factor=4.0, attention_factor=1.5))[1] == 1.5
    assert frequencies(RopeConfig(**base))[1] == 1.0
    assert frequencies(RopeConfig(**base, max_position_embeddings=4096))[1] == 1.0


def test_pairing_does_not_change_frequencies() -> None:
    halves = RopeConfig(head_dim=64, theta=1e4)
    for pairing in ("interleaved", "interleaved_in_halves_out"):
        other = RopeConfig(head_dim=64, theta=1e4, pairing=pairing)
        assert frequencies(other)[0].tolist() == frequencies(halves)[0].tolist()


def test_frequencies_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="RopeConfig"):
        frequencies({"head_dim": 64})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rope_type must be 'yarn'"):
        yarn_correction_dims(PRESETS["Llama-2-7B"])
