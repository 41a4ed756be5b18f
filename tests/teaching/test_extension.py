"""Position interpolation and choose_base (position interpolation,
Chen et al. 2023, arXiv:2306.15595, and the tutorials' base-adjustment rule).

Expected scaled positions are exact rationals (``fractions.Fraction`` converts to the
correctly rounded float64); expected bases and wavelengths come from mpmath.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from pespec.sinusoidal.reference import encode
from pespec.teaching import (
    InterpolatedPositionalEncoding,
    choose_base,
    interpolated_encoding,
    interpolated_positions,
)
from pespec.teaching.analysis import wavelengths

U = 2.0**-53


# --- interpolation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trained", "new", "offset"), [(2048, 4096, 0), (512, 1536, 100), (1000, 3000, 2990), (7, 7, 0)]
)
def test_interpolated_positions_are_correctly_rounded_quotients(
    trained: int, new: int, offset: int
) -> None:
    n = min(10, new - offset)
    got = interpolated_positions(n, training_max_len=trained, new_max_len=new, offset=offset)
    expected = [float(Fraction((offset + j) * trained, new)) for j in range(n)]
    assert got.dtype == np.float64
    assert got.tolist() == expected


def test_interpolated_positions_stay_inside_the_trained_range() -> None:
    # Chen et al.'s setting: trained on 2048, deployed on 4096 → positions 0, 0.5, 1.0, ...
    got = interpolated_positions(4096, training_max_len=2048, new_max_len=4096)
    assert got[:4].tolist() == [0.0, 0.5, 1.0, 1.5]
    assert got.max() == 2047.5 and got.max() < 2048


def test_interpolated_encoding_is_the_encoding_at_scaled_positions() -> None:
    # Row j is PE at q_j = j·2048/4096 (encode is checked against mpmath at fractional
    # positions in tests/sinusoidal/reference/test_encoding.py); here: row-by-row identity, and one
    # row
    # against mpmath directly (θ = 1.5, bound (B) of test_reference_api: (1.5·39.8 + 8)·u).
    pe = interpolated_encoding(8, 16, training_max_len=2048, new_max_len=4096, offset=0)
    assert pe.shape == (8, 16)
    assert np.array_equal(pe, encode(np.arange(8) * 0.5, 16))
    with mp.workdps(30):
        row3 = [
            float(f(mp.mpf(1.5) * mp.power(10000, mp.mpf(-2 * i) / 16)))
            for i in range(8)
            for f in (mp.sin, mp.cos)
        ]
    np.testing.assert_allclose(pe[3], row3, rtol=0, atol=(1.5 * 39.9 + 8) * U)


def test_interpolated_layer_forward_and_offsets() -> None:
    layer = InterpolatedPositionalEncoding(32, training_max_len=100, new_max_len=400, base=500.0)
    assert layer.scale == 0.25
    x = np.random.default_rng(0).standard_normal((2, 50, 32))
    out = layer.forward(x, offset=300)
    expected = x + encode(np.arange(300, 350) * 0.25, 32, base=500.0)
    assert np.array_equal(out, expected)
    # incremental use with a running offset agrees with one call within 2·(B) of
    # tests/sinusoidal/reference/test_encoding.py (θ ≤ 50·0.25; ranges need not round identically)
    whole = layer.forward(x)
    parts = [layer.forward(x[:, :20]), layer.forward(x[:, 20:], offset=20)]
    tol = 2 * (12.5 * (4 * math.log(500.0) + 3) + 8) * U
    np.testing.assert_allclose(np.concatenate(parts, axis=1), whole, rtol=0, atol=tol)
    with pytest.raises(ValueError, match="new_max_len=400"):
        layer.forward(x, offset=351)


def test_no_interpolation_when_lengths_equal() -> None:
    # scale = 1: positions are the integers themselves
    got = interpolated_encoding(20, 8, training_max_len=64, new_max_len=64, offset=3)
    assert np.array_equal(got, encode(np.arange(3, 23, dtype=np.float64), 8))


# --- choose_base -----------------------------------------------------------------------------


@pytest.mark.parametrize("length", [512, 4096, 100000])
def test_choose_base_rule_formula(length: int) -> None:
    # base = 10·L/(2π). Tutorials quote ≈ 814 for L = 512 (true 814.87) and ≈ 6511 for
    # L = 4096; the true value is 40960/(2π) = 6518.99 (that quoted figure is wrong).
    # Two roundings (2π, the division) and the product 10·L (exact): relative ≤ 3u.
    with mp.workdps(30):
        expected = float(10 * length / (2 * mp.pi))
    assert choose_base(length) == pytest.approx(expected, rel=3 * U)
    if length == 4096:
        assert abs(choose_base(length) - 6518.986) < 1e-3
        assert abs(choose_base(length) - 6511) > 7


@pytest.mark.parametrize(
    ("length", "d_model", "ratio"),
    [(512, 512, 10.0), (4096, 64, 10.0), (2048, 4096, 3.5), (100, 4, 2.0)],
)
def test_choose_base_exact_hits_the_target_wavelength(
    length: int, d_model: int, ratio: float
) -> None:
    # Exact version: 2π·base^((d−2)/d) = ratio·L, base = (ratio·L/(2π))^(d/(d−2)).
    # y = ln(ratio·L/(2π))·d/(d−2) is computed with ≤ 5 roundings (ratio·L, 2π, /, ln, ·d/(d−2)
    # counted twice), relative ≤ 6u, so exp(y) has relative error ≤ 6u·|y| + 2u.
    base = choose_base(length, ratio=ratio, d_model=d_model)
    with mp.workdps(40):
        target = mp.mpf(ratio) * length
        y = mp.log(target / (2 * mp.pi)) * d_model / (d_model - 2)
        exact_base = mp.exp(y)
        longest = 2 * mp.pi * mp.power(mp.mpf(base), mp.mpf(d_model - 2) / d_model)
    rel = (6 * float(y) + 2) * U
    assert base == pytest.approx(float(exact_base), rel=rel)
    # the wavelength the chosen base really gives (mpmath) is ratio·L to the same accuracy
    assert float(longest) == pytest.approx(ratio * length, rel=rel)
    # and pespec's own wavelengths agree, within their error (4·ln b + 4)·u
    lam = wavelengths(d_model, base)[-1]
    assert lam == pytest.approx(ratio * length, rel=rel + (4 * math.log(base) + 4) * U)


def test_rule_formula_undershoots_and_exact_converges_for_large_d() -> None:
    # With the tutorials' base the longest wavelength is 2π·base^((d−2)/d) < 2π·base = 10·L:
    # short by the factor base^(−2/d) (≈ 2.6 % for L = 512, d = 512).
    rule_base = choose_base(512)
    with mp.workdps(30):
        longest = float(2 * mp.pi * mp.power(mp.mpf(rule_base), mp.mpf(510) / 512))
        factor = float(mp.power(mp.mpf(rule_base), mp.mpf(-2) / 512))
    assert longest == pytest.approx(5120 * factor, rel=8 * U)
    assert 0.97 < factor < 0.98
    # exact base → the rule's base r as d → ∞: exact/r − 1 = exp(2·ln(r)/(d − 2)) − 1, equal to
    # 2·ln(r)/(d − 2) up to a relative second-order term ln(r)/(d − 2) ≈ 6.4e-6 < 1e-5
    d = 2**20
    exact = choose_base(512, d_model=d)
    assert exact / rule_base - 1 == pytest.approx(2 * math.log(rule_base) / (d - 2), rel=1e-5)
