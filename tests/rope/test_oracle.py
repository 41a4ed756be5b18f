"""The certified rotary oracle against plain mpmath at 400 bits, on every preset.

The expected values are an independent transcription of SPEC §8.1/§8.3 in mpmath's
high-level context at 400 bits (``_mp_schedule`` below: ``mpmath.power``, ``mpmath.log``,
Python's floor/ceil on the 400-bit values), rounded to float64 exactly through a Fraction.
At 400 bits a wrong rounding needs the exact value within about 2^-350 of a rounding
boundary, so equality is required.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from rope_mpmath import mp_schedule

from pespec.rope import PRESETS, RopeConfig, oracle
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

BITS = 400
NAMES = list(PRESETS)
POSITIONS: list[int | float] = [
    1,
    2,
    3,
    7,
    100,
    4095,
    4096,
    65537,
    131071,
    999_983,
    2**20 + 3,
    2**24 - 1,
    2**24,
    -5,
    0.5,
    1234.75,
    3.0e-3,
    16777215.5,
]


@pytest.fixture(autouse=True)
def _precision() -> None:
    mpmath.mp.prec = BITS  # restored by the conftest fixture


@pytest.mark.parametrize("name", NAMES)
def test_frequencies_and_attention_agree_with_mpmath(name: str) -> None:
    config = PRESETS[name]
    expected, attention = mp_schedule(config)
    omega, a_value = oracle.frequencies(config)
    assert omega.tolist() == [mpf_to_float(w) for w in expected]
    assert a_value == mpf_to_float(attention)
    hi, lo = oracle.frequencies_dd(config)
    assert lo.tolist() == [
        mpf_to_float(w - mpmath.mpf(h)) for w, h in zip(expected, hi.tolist(), strict=True)
    ]


@pytest.mark.parametrize("name", NAMES)
def test_cos_sin_agree_with_mpmath(name: str) -> None:
    config = PRESETS[name]
    expected, _ = mp_schedule(config)
    cos, sin = oracle.cos_sin(POSITIONS, config)
    for row, p in enumerate(POSITIONS):
        phases = [mpmath.mpf(p) * w for w in expected]
        assert cos[row].tolist() == [mpf_to_float(mpmath.cos(t)) for t in phases], p
        assert sin[row].tolist() == [mpf_to_float(mpmath.sin(t)) for t in phases], p


def _dyadic_vector(n: int, seed: int) -> np.ndarray:
    """Small dyadic rationals: ((k·(2·seed + 1)·37 + 11) mod 257 − 128)/64 (exact)."""
    k = np.arange(n)
    return ((k * (2 * seed + 1) * 37 + 11) % 257 - 128) / 64.0


@pytest.mark.parametrize("name", NAMES)
def test_rotate_agrees_with_mpmath(name: str) -> None:
    config = PRESETS[name]
    expected, attention = mp_schedule(config)
    positions = [0, 1, 4096, 2**24, 1234.75]
    x = np.stack([_dyadic_vector(config.head_dim, s) for s in range(len(positions))])
    got = oracle.rotate(x, positions, config)
    read_a, read_b, write_a, write_b = oracle.pair_indices(config)
    for row, p in enumerate(positions):
        want = x[row].tolist()  # components k >= d_r pass through
        for j, w in enumerate(expected):
            a, b = mpmath.mpf(x[row, read_a[j]]), mpmath.mpf(x[row, read_b[j]])
            c, s = mpmath.cos(p * w), mpmath.sin(p * w)
            want[write_a[j]] = mpf_to_float(attention * (a * c - b * s))
            want[write_b[j]] = mpf_to_float(attention * (a * s + b * c))
        assert got[row].tolist() == want, p


def test_rotate_batched_shape_and_zero_position() -> None:
    config = PRESETS["Phi-3.5-mini-instruct-seq-len-131072"]
    x = np.stack([_dyadic_vector(96, s) for s in range(6)]).reshape(2, 3, 96)
    got = oracle.rotate(x, [0, 3, 9], config)
    assert got.shape == (2, 3, 96)
    assert np.array_equal(got[1], oracle.rotate(x[1], [0, 3, 9], config))
    attention = Fraction(oracle.attention_factor(config))
    # position 0: y = A·x exactly rounded (A as its float64 here, the exact A differs, so
    # compare with the certified value of A·x through mpmath)
    _, exact_attention = mp_schedule(config)
    assert got[0, 0].tolist() == [
        mpf_to_float(exact_attention * mpmath.mpf(v)) for v in x[0, 0].tolist()
    ]
    assert attention > 1


def test_exact_attention_factor_product_is_rounded_once() -> None:
    # A given explicitly is exact: y = A·a at p = 0 rounded once from the exact product
    config = RopeConfig(
        head_dim=4,
        theta=10000.0,
        rope_type="yarn",
        factor=4.0,
        original_max_position_embeddings=4096,
        attention_factor=1.1,
    )
    x = np.array([[3.0, 5.0, 7.0, 1.0 + 2.0**-52]])
    got = oracle.rotate(x, [0], config)
    want = [float(Fraction(1.1) * Fraction(v)) for v in x[0].tolist()]
    assert got[0].tolist() == want


def test_bad_arguments_are_named() -> None:
    config = PRESETS["Llama-2-7B"]
    with pytest.raises(TypeError, match="config"):
        oracle.frequencies("llama")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="head_dim=128"):
        oracle.rotate(np.zeros((2, 64)), [0, 1], config)
    with pytest.raises(ValueError, match="positions"):
        oracle.rotate(np.zeros((2, 128)), [0, 1, 2], config)


def test_a_frequency_on_a_float64_midpoint_is_rounded_to_even() -> None:
    # θ = 2^32, d_r = 64: ω_j = 2^-j exactly. c(β) = log2(L0/(2πβ)): with L0 = 2^30,
    # c(1) = 27.35 and c(32768) = 12.35, so low = 12, high = 28 and r_13 = 1/16. With
    # s = 2^50, ω'_13 = 2^-13·(r/s + 1 − r) = 2^-13·(15/16 + 2^-54): exactly halfway between
    # 2^-13·15/16 (even last bit) and the next float64 up. The interval ends never agree on
    # such a value; the exact rational evaluation rounds it to even, with remainder 2^-67.
    config = RopeConfig(
        head_dim=64,
        theta=2.0**32,
        rope_type="yarn",
        factor=2.0**50,
        original_max_position_embeddings=2**30,
        beta_fast=32768.0,
        beta_slow=1.0,
        attention_factor=1.0,
    )
    hi, lo = oracle.frequencies_dd(config)
    assert hi[13] == 2.0**-13 * 15 / 16
    assert lo[13] == 2.0**-67
    assert hi[12] == 2.0**-12 and hi[29] == 2.0**-29 / 2**50  # outside the ramp
    mpmath.mp.prec = BITS
    expected, _ = mp_schedule(config)
    assert expected[13] == mpmath.mpf(2) ** -13 * (mpmath.mpf(15) / 16 + mpmath.mpf(2) ** -54)
