"""pespec.teaching.analysis against mpmath: the relative-position rotation M_k, the
dot-product structure, encoding statistics and wavelengths.

Tolerances build on the element bound e(θ) = (θ·(4·ln b + 3) + 8)·u on |PE_hat − PE| for
angles up to θ, derived in tests/sinusoidal/reference/test_encoding.py; u = 2^-53.
"""

from __future__ import annotations

import math
import re

import mpmath as mp
import numpy as np
import pytest

from pespec.sinusoidal.reference import sinusoidal_positional_encoding
from pespec.teaching import choose_base
from pespec.teaching.analysis import (
    dot_product_distance,
    encoding_statistics,
    relative_position_matrix,
    wavelengths,
)

U = 2.0**-53
D_MODEL, LENGTH = 64, 128  # the usual small teaching configuration


def element_bound(theta_max: float, base: float = 10000.0) -> float:
    """e(θ) of tests/sinusoidal/reference/test_encoding.py."""
    return (theta_max * (4.0 * math.log(base) + 3.0) + 8.0) * U


def entry_bound(theta_max: float) -> float:
    """Bound on each entry of M_k read from rows with angles ≤ θ_max.

    cos φ = s'·s + c'·c: each of four values carries ≤ e, multiplied by values whose
    absolute sum is ≤ √2 per product pair, so ≤ 2√2·e + e², plus two roundings (2u);
    4e + 3u covers it.
    """
    return 4.0 * element_bound(theta_max) + 3.0 * U


def rotation_tolerance(d: int, theta_max: float) -> float:
    """Bound on ‖M̂·PE_hat[p] − PE_hat[p + k]‖₂ for rows with angles ≤ θ_max.

    Per pair: ‖R·δv‖ + ‖δw‖ ≤ 2√2·e, ‖E·v̂‖ ≤ ‖E‖_F ≤ 2·entry_bound, and the matrix
    product rounds each entry at most 3 times (two non-zero products, one add; the zeros
    of M add exactly): ≤ √2·3u. Over d/2 pairs the norm grows by √(d/2).
    """
    e = element_bound(theta_max)
    per_pair = 2 * math.sqrt(2) * e + 2 * entry_bound(theta_max) + 3 * math.sqrt(2) * U
    return math.sqrt(d / 2) * per_pair


def mp_rotation_blocks(d: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(cos(ω_i·k), sin(ω_i·k)) for i = 0 .. d/2 − 1, correctly rounded via mpmath."""
    with mp.workdps(40):
        angles = [k * mp.power(10000, mp.mpf(-2 * i) / d) for i in range(d // 2)]
        return (
            np.array([float(mp.cos(a)) for a in angles]),
            np.array([float(mp.sin(a)) for a in angles]),
        )


# --- relative position property ----------------------------------------------------------


def test_linear_transformation_exists_for_offset_one_within_the_usual_tolerance() -> None:
    # The usual teaching claim: ‖M_1·PE_pos − PE_pos+1‖₂ < 1e-10 for all valid positions.
    # Derivation for d = 64, L = 128: angles ≤ 127, e ≈ 5.6e-13,
    # rotation_tolerance ≈ 3.5e-11 < 1e-10, so float64 values satisfy that tolerance with margin.
    pe = sinusoidal_positional_encoding(LENGTH, D_MODEL)
    assert rotation_tolerance(D_MODEL, LENGTH - 1) < 1e-10
    matrix, error = relative_position_matrix(pe, 1)
    assert matrix.shape == (D_MODEL, D_MODEL)
    assert error < 1e-10
    # the reported error is the one an independent residual computation gives
    worst = max(np.linalg.norm(matrix @ pe[p] - pe[p + 1]) for p in range(LENGTH - 1))
    assert error == pytest.approx(worst, abs=D_MODEL * U)


@pytest.mark.parametrize("k", [1, 5, 10, 50])
def test_multiple_offsets_blocks_match_mpmath_rotations(k: int) -> None:
    pe = sinusoidal_positional_encoding(LENGTH, D_MODEL)
    matrix, error = relative_position_matrix(pe, k)
    assert error <= rotation_tolerance(D_MODEL, LENGTH - 1)
    cos_k, sin_k = mp_rotation_blocks(D_MODEL, k)
    even = np.arange(0, D_MODEL, 2)
    tol = entry_bound(k)
    np.testing.assert_allclose(matrix[even, even], cos_k, rtol=0, atol=tol)
    np.testing.assert_allclose(matrix[even, even + 1], sin_k, rtol=0, atol=tol)
    np.testing.assert_allclose(matrix[even + 1, even], -sin_k, rtol=0, atol=tol)
    np.testing.assert_allclose(matrix[even + 1, even + 1], cos_k, rtol=0, atol=tol)
    # block-diagonal: nothing outside the 2×2 blocks
    mask = np.ones_like(matrix, dtype=bool)
    mask[even, even] = mask[even, even + 1] = mask[even + 1, even] = mask[even + 1, even + 1] = 0
    assert np.all(matrix[mask] == 0.0)
    # a rotation: MᵀM = I within 2·entry_bound·(2 entries) + rounding
    np.testing.assert_allclose(matrix.T @ matrix, np.eye(D_MODEL), rtol=0, atol=5 * tol)


@pytest.mark.parametrize("k", [1, 10, 50])
def test_rotation_depends_only_on_offset(k: int) -> None:
    # M_k read from pairs (0, k), (37, 37 + k), (70, 70 + k) agree: each is within
    # entry_bound(70 + k) of the exact rotation.
    pe = sinusoidal_positional_encoding(LENGTH, D_MODEL)
    first, _ = relative_position_matrix(pe, k)
    for r in (37, 70):
        other, _ = relative_position_matrix(pe, k, reference_position=r)
        np.testing.assert_allclose(other, first, rtol=0, atol=2 * entry_bound(r + k))


def test_reconstruction_error_detects_a_corrupted_row() -> None:
    pe = sinusoidal_positional_encoding(LENGTH, D_MODEL).copy()
    pe[60, 10] += 1e-6
    _, error = relative_position_matrix(pe, 5)
    assert error >= 1e-6 - rotation_tolerance(D_MODEL, LENGTH - 1)


def test_offset_zero_is_identity() -> None:
    pe = sinusoidal_positional_encoding(LENGTH, D_MODEL)
    matrix, error = relative_position_matrix(pe, 0)
    # cos 0 = 1 from s² + c² with s = 0, c = 1 at row 0: exact
    assert np.array_equal(matrix, np.eye(D_MODEL))
    assert error == 0.0


# --- dot product distance ------------------------------------------------------------------


def _dot_tolerance(d: int, theta_max: float) -> float:
    # |â·b̂ − a·b| ≤ ‖a‖‖δb‖ + ‖b‖‖δa‖ + ‖δa‖‖δb‖ ≤ 2·√(d/2)·√d·e (+ e²·d), plus the dot
    # product's rounding ≤ d·u·‖a‖‖b‖ = d·u·d/2 and the symmetrisation's one rounding.
    e = element_bound(theta_max)
    return 2 * math.sqrt(d / 2) * math.sqrt(d) * e + d * e * e + (d + 1) * U * d / 2


def test_dot_product_symmetric_with_self_dot_half_d() -> None:
    pe = sinusoidal_positional_encoding(LENGTH, D_MODEL)
    dots = dot_product_distance(pe)
    assert dots.shape == (LENGTH, LENGTH)
    assert np.array_equal(dots, dots.T)  # exactly symmetric
    # sin² + cos² = 1 for each of the d/2 pairs
    assert np.max(np.abs(np.diag(dots) - D_MODEL / 2)) <= _dot_tolerance(D_MODEL, LENGTH - 1)


def test_dot_product_depends_on_distance_only() -> None:
    # PE_i·PE_j = Σ_k cos(ω_k·(i − j)) (product-to-sum): compare D[0, k], D[10, 10 + k]
    # and D[k, 0] with the mpmath sum, for k = 0 .. 100.
    pe = sinusoidal_positional_encoding(LENGTH, D_MODEL)
    dots = dot_product_distance(pe)
    with mp.workdps(30):
        omegas = [mp.power(10000, mp.mpf(-2 * i) / D_MODEL) for i in range(D_MODEL // 2)]
        expected = np.array([float(mp.fsum(mp.cos(w * k) for w in omegas)) for k in range(101)])
    tol = _dot_tolerance(D_MODEL, LENGTH - 1)
    ks = np.arange(101)
    for row in (dots[0, ks], dots[10, 10 + ks], dots[ks, 0], dots[27, 27 + ks]):
        np.testing.assert_allclose(row, expected, rtol=0, atol=tol)
    assert expected.max() - expected.min() > 1.0  # the structure is not trivially flat


# --- statistics --------------------------------------------------------------------------


def test_encoding_statistics_against_mpmath() -> None:
    length, d = 32, 16
    pe = sinusoidal_positional_encoding(length, d)
    stats = encoding_statistics(pe)
    with mp.workdps(30):
        values = [
            f(p * mp.power(10000, mp.mpf(-2 * i) / d))
            for p in range(length)
            for i in range(d // 2)
            for f in (mp.sin, mp.cos)
        ]
        n = len(values)
        mean = mp.fsum(values) / n
        variance = mp.fsum((v - mean) ** 2 for v in values) / n
    e = element_bound(length - 1)
    assert abs(stats.mean - float(mean)) <= e + n * U  # sum of n values ≤ 1 in magnitude
    assert abs(stats.variance - float(variance)) <= 4 * e + 2 * n * U  # |x − mean| ≤ 2
    target = math.sqrt(d / 2)
    norm_tol = math.sqrt(d) * e + (d + 2) * U * target
    assert stats.norms.shape == (length,)
    assert np.max(np.abs(stats.norms - target)) <= norm_tol
    assert stats.bounded and -1.0 <= stats.minimum and stats.maximum <= 1.0
    assert stats.minimum == pe.min() and stats.maximum == pe.max()


def test_encoding_statistics_flags_out_of_range_values() -> None:
    pe = sinusoidal_positional_encoding(8, 4).copy()
    pe[3, 1] = 1.5
    stats = encoding_statistics(pe)
    assert not stats.bounded and stats.maximum == 1.5


# --- wavelengths ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d_model", "base"), [(4, 10000.0), (64, 10000.0), (512, 10000.0), (768, 500.0)]
)
def test_wavelengths_against_mpmath(d_model: int, base: float) -> None:
    # λ_i = 2π·base^(2i/d); relative error ≤ |ω̂/ω − 1| + 2u (2π and the division)
    # = (4·ln b + 4)·u.
    lam = wavelengths(d_model, base)
    with mp.workdps(40):
        expected = np.array(
            [
                float(2 * mp.pi * mp.power(mp.mpf(base), mp.mpf(2 * i) / d_model))
                for i in range(d_model // 2)
            ]
        )
    assert np.max(np.abs(lam / expected - 1)) <= (4 * math.log(base) + 4) * U


def test_first_and_last_wavelengths_for_d_512() -> None:
    # First pair: 2π (the often quoted "≈ 6.28"). Last pair: 2π·10000^((d−2)/d) ≈ 60 611.48 for
    # d = 512, not the often quoted "2π × 10000 ≈ 62 832" (that is the d → ∞ limit; the lowest
    # frequency is 10000^(−510/512), not 1/10000).
    lam = wavelengths(512)
    with mp.workdps(30):
        last = float(2 * mp.pi * mp.power(10000, mp.mpf(510) / 512))
    assert lam[0] == pytest.approx(2 * math.pi, rel=4 * U)
    assert lam[-1] == pytest.approx(last, rel=(4 * math.log(10000) + 4) * U)
    assert 60611 < lam[-1] < 60612
    assert abs(lam[-1] - 2 * math.pi * 10000) > 2000  # the quoted value is 3.5% off


def test_wavelengths_read_from_the_encoding_itself() -> None:
    # The phase advance of pair i over k positions is φ = ω_i·k (mod 2π), read from M_k:
    # λ_i = 2π·k/φ. Pair 0 with k = 1 (φ = 1), the last pair with k = 1000 (φ ≈ 0.104).
    # |Δφ| ≤ 2·entry_bound (atan2 of a vector perturbed by that much, |vector| ≈ 1), so
    # the relative error of λ is ≤ 2·entry_bound/φ.
    d = 512
    pe = sinusoidal_positional_encoding(1001, d)
    m1, _ = relative_position_matrix(pe, 1)
    phi0 = math.atan2(m1[0, 1], m1[0, 0])
    assert 2 * math.pi / phi0 == pytest.approx(2 * math.pi, rel=2 * entry_bound(1))
    m1000, _ = relative_position_matrix(pe, 1000)
    phi = math.atan2(m1000[d - 2, d - 1], m1000[d - 2, d - 2])
    with mp.workdps(30):
        last = float(2 * mp.pi * mp.power(10000, mp.mpf(d - 2) / d))
    assert 2 * math.pi * 1000 / phi == pytest.approx(last, rel=2 * entry_bound(1000) / phi)


def test_numbers_in_docstrings_are_right() -> None:
    # Docstrings quote the last wavelength for d = 512 and choose_base values; check them.
    lam_last = wavelengths(512)[-1]
    for doc in (wavelengths.__doc__ or "", choose_base.__doc__ or ""):
        quoted = re.search(r"(\d+) (\d{3}) for d = 512|about (\d+) (\d{3}), not", doc)
        assert quoted is not None
        digits = "".join(g for g in quoted.groups() if g)
        assert int(digits) == round(lam_last)
    both = re.search(r"about (\d+) and (\d+)", choose_base.__doc__ or "")
    assert both is not None
    assert int(both.group(1)) == round(choose_base(512))
    assert int(both.group(2)) == round(choose_base(512, d_model=512))
