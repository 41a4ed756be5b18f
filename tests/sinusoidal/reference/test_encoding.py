"""The float64 reference functions against mpmath: the usual shape, value, uniqueness,
boundedness, determinism, norm, frequency-structure and numerical-stability tests.

Expected values come from mpmath at 40 significant digits (:func:`mp_encoding`), never from
the function under test.

Element tolerance (used throughout; holds for the naive float64 path and a fortiori for
an exact one). With u = 2^-53 and θ = p·ω_i, the naive path computes
ω̂ = exp(−fl(k·fl(fl(ln b)/den))): ln, /, · add relative error ≤ 2u + u + u = 4u to the
exponent x ≤ ln b, and exp (≤ 1 ulp, i.e. relative 2u) turns that into
|ω̂/ω − 1| ≤ (4·ln b + 2)·u. The product p·ω̂ adds u, so |θ̂ − θ| ≤ θ·(4·ln b + 3)·u; sin
and cos are 1-Lipschitz and numpy's are within 4 ulp (≤ 8u absolute for values in
[−1, 1]), so

    |PE_hat − PE| ≤ (θ_max·(4·ln b + 3) + 8)·u.                       (B)

For L = 5000, d = 512 that is 2.2e-11; the measured naive error is 7.5e-13 (full table
against MPFR at 160 bits), so (B) is sound but not tight.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import pespec
import pespec.teaching
from pespec.sinusoidal.reference import encode, frequencies, sinusoidal_positional_encoding
from pespec.sinusoidal.reference.naive import naive_frequencies

U = 2.0**-53


def element_bound(theta_max: float, base: float = 10000.0) -> float:
    """Bound (B) of the module docstring on |PE_hat − PE| for angles up to theta_max."""
    return (theta_max * (4.0 * math.log(base) + 3.0) + 8.0) * U


def mp_omega(i: int, d: int, base: float = 10000.0) -> mp.mpf:
    """ω_i = base^(−2i/d) in mpmath at the current precision."""
    return mp.power(mp.mpf(base), mp.mpf(-2 * i) / d)


def mp_encoding(positions: list[float], d: int, base: float = 10000.0) -> np.ndarray:
    """Correctly rounded (to 40 digits, then float64) PE rows for the given positions."""
    out = np.empty((len(positions), d))
    with mp.workdps(40):
        omegas = [mp_omega(i, d, base) for i in range(d // 2)]
        for r, p in enumerate(positions):
            for i, w in enumerate(omegas):
                theta = mp.mpf(p) * w
                out[r, 2 * i] = float(mp.sin(theta))
                out[r, 2 * i + 1] = float(mp.cos(theta))
    return out


# --- shape verification -------------------------------------------------------------


@pytest.mark.parametrize("seq_len", [0, 1, 3, 32, 128])
@pytest.mark.parametrize("d_model", [2, 4, 64, 768])
def test_output_shape(seq_len: int, d_model: int) -> None:
    pe = sinusoidal_positional_encoding(seq_len, d_model)
    assert pe.shape == (seq_len, d_model)
    assert pe.dtype == np.float64


def test_odd_d_model_raises_value_error() -> None:
    with pytest.raises(ValueError, match=r"d_model must be a positive even int; got 7"):
        sinusoidal_positional_encoding(10, 7)


def test_public_names_reexported_from_top_level() -> None:
    for name, source in (
        ("SinusoidalPositionalEncoding", pespec.teaching),
        ("LearnedPositionalEncoding", pespec.teaching),
        ("choose_base", pespec.teaching),
        ("interpolated_positions", pespec.teaching),
        ("encode", pespec.sinusoidal.reference),
    ):
        assert getattr(pespec, name) is getattr(source, name)
        assert name in pespec.__all__


# --- known reference values -----------------------------------------------------------


@pytest.mark.parametrize("d_model", [4, 64, 512])
def test_position_zero_is_exactly_sin0_cos0(d_model: int) -> None:
    # sin(0) = 0 and cos(0) = 1 exactly, and 0·ω = 0 exactly in floating point.
    pe = sinusoidal_positional_encoding(1, d_model)
    assert pe[0].tolist() == [0.0, 1.0] * (d_model // 2)


def test_tiny_example_against_mpmath() -> None:
    # d = 4, L = 3: ω = (1, 1/100); θ ≤ 2, so (B) gives ≈ 1.8e-14.
    pe = sinusoidal_positional_encoding(3, 4)
    expected = mp_encoding([0, 1, 2], 4)
    np.testing.assert_allclose(pe, expected, rtol=0, atol=element_bound(2.0))


def test_tiny_example_matches_the_printed_rounded_values() -> None:
    # Teaching material prints 4-5 decimals; each printed value must be within half a unit of its
    # last printed place of the true value (checked here against mpmath, not the function).
    printed_rows = [
        ([0.0, 1.0, 0.0, 1.0], 0.0),
        ([0.8415, 0.5403, 0.01, 0.99995], 5e-5),
        ([0.9093, -0.4161, 0.02, 0.9998], 5e-5),
    ]
    expected = mp_encoding([0, 1, 2], 4)
    for (printed, half_unit), row in zip(printed_rows, expected, strict=True):
        assert np.all(np.abs(np.array(printed) - row) <= half_unit)


def test_arbitrary_positions_fractional_negative_and_shaped() -> None:
    positions = np.array([[0.5, -3.0, 1e-3], [2.25, -0.75, 100.0]])
    pe = encode(positions, 16)
    assert pe.shape == (2, 3, 16)
    expected = mp_encoding(positions.ravel().tolist(), 16).reshape(2, 3, 16)
    np.testing.assert_allclose(pe, expected, rtol=0, atol=element_bound(100.0))


def test_large_table_last_rows_against_mpmath() -> None:
    # L = 5000, d = 512 (the original Transformer): the last rows carry the largest θ.
    pe = sinusoidal_positional_encoding(5000, 512)
    rows = [4096, 4999]
    np.testing.assert_allclose(pe[rows], mp_encoding(rows, 512), rtol=0, atol=element_bound(4999))


# --- uniqueness, boundedness, determinism, norms --------------------------------------


@pytest.mark.slow
def test_rows_are_unique_for_l_1000() -> None:
    # ‖PE_i − PE_j‖² = 2·Σ_k (1 − cos(ω_k·(i − j))) depends on Δ = i − j only, so the
    # minimum over all pairs is the minimum over Δ = 1..999, computed here in mpmath.
    length, d = 1000, 64
    pe = sinusoidal_positional_encoding(length, d)
    gram = pe @ pe.T
    sq = np.diag(gram)
    dist2 = sq[:, None] + sq[None, :] - 2.0 * gram
    np.fill_diagonal(dist2, np.inf)
    with mp.workdps(30):
        omegas = [mp_omega(i, d) for i in range(d // 2)]
        true_min = min(
            2 * mp.fsum(1 - mp.cos(w * delta) for w in omegas) for delta in range(1, length)
        )
    # Each entry of dist2 is within 4·d·(element_bound + d·u) of its true value (three terms
    # each a sum of d products of values ≤ 1 carrying errors ≤ element_bound).
    tol = 4 * d * (element_bound(length) + d * U)
    assert float(true_min) > 100 * tol  # so "> 0" below is a real margin, not noise
    assert abs(dist2.min() - float(true_min)) <= tol
    assert dist2.min() > 0.0


def test_values_bounded_in_minus_one_one() -> None:
    pe = sinusoidal_positional_encoding(1000, 512)
    assert np.all(np.abs(pe) <= 1.0)


def test_deterministic_bit_identical() -> None:
    first = sinusoidal_positional_encoding(300, 128, offset=17)
    second = sinusoidal_positional_encoding(300, 128, offset=17)
    assert first.tobytes() == second.tobytes()
    positions = np.array([0.25, 7.5, -3.0])
    assert encode(positions, 32).tobytes() == encode(positions, 32).tobytes()


@pytest.mark.parametrize(("length", "d_model"), [(128, 64), (1024, 768), (5000, 512)])
def test_row_norms_are_sqrt_half_d(length: int, d_model: int) -> None:
    # |‖x̂‖ − √(d/2)| ≤ ‖x̂ − x‖ ≤ √d·element_bound (triangle inequality), plus the rounding
    # of the norm itself, ≤ (d + 2)·u·√(d/2).
    pe = sinusoidal_positional_encoding(length, d_model)
    norms = np.linalg.norm(pe, axis=1)
    target = math.sqrt(d_model / 2)
    tol = math.sqrt(d_model) * element_bound(length - 1) + (d_model + 2) * U * target
    assert np.max(np.abs(norms - target)) <= tol


# --- offset and extension consistency ---------------------------------------------------


@pytest.mark.parametrize("offset", [0, 1, 37, 4999])
def test_offset_rows_equal_the_rows_of_a_longer_table(offset: int) -> None:
    # Row j of the offset table is position offset + j. Bit-identity with a longer table
    # is not promised (a range may be evaluated by block rotation, SPEC Annex C); each is
    # within (B) of the exact value, so they agree within 2·(B).
    longer = sinusoidal_positional_encoding(offset + 20, 64)
    shifted = sinusoidal_positional_encoding(20, 64, offset=offset)
    tol = 2 * element_bound(offset + 20)
    np.testing.assert_allclose(shifted, longer[offset:], rtol=0, atol=tol)
    expected = mp_encoding([offset, offset + 19], 64)
    np.testing.assert_allclose(shifted[[0, -1]], expected, rtol=0, atol=tol / 2)


def test_encode_at_integer_positions_matches_the_table() -> None:
    positions = np.arange(50, 90)
    table = sinusoidal_positional_encoding(40, 32, offset=50)
    np.testing.assert_allclose(encode(positions, 32), table, rtol=0, atol=2 * element_bound(90))


# --- frequency structure ----------------------------------------------------------------


@pytest.mark.parametrize("d_model", [4, 64, 512, 4096])
def test_log_space_frequencies_match_inverse_power(d_model: int) -> None:
    # The log-space form ω_i = exp(−2i·ln(10000)/d) equals 1/10000^(2i/d) to machine precision.
    # (Neither form overflows: 10000^(2i/d) ≤ 10000; log space is the tutorials' choice.)
    # Relative error ≤ (4·ln b + 2)·u, derived in the module docstring.
    omega = frequencies(d_model)
    with mp.workdps(40):
        expected = np.array(
            [float(1 / mp.power(10000, mp.mpf(2 * i) / d_model)) for i in range(d_model // 2)]
        )
    assert omega[0] == 1.0
    assert np.all(np.isfinite(omega)) and np.all(np.diff(omega) < 0)
    rel = np.abs(omega / expected - 1.0)
    assert rel.max() <= (4 * math.log(10000.0) + 2) * U
    # the naive path specifically (the tutorials' log-space formula) obeys the same bound
    naive_rel = np.abs(naive_frequencies(d_model) / expected - 1.0)
    assert naive_rel.max() <= (4 * math.log(10000.0) + 2) * U


def test_low_dimension_varies_fast_high_dimension_slow() -> None:
    # Variances over positions 0..127 of column 0 (sin p) and column d − 2 (sin(p·ω_31),
    # ω_31 = 10000^(−62/64)), in mpmath. A perturbation ≤ e of each value moves a
    # population variance by ≤ 4e (|x − mean| ≤ 2) + e², plus summation rounding ≤ L·u.
    length, d = 128, 64
    pe = sinusoidal_positional_encoding(length, d)
    with mp.workdps(30):
        expected = []
        for i in (0, d // 2 - 1):
            w = mp_omega(i, d)
            values = [mp.sin(p * w) for p in range(length)]
            mean = mp.fsum(values) / length
            expected.append(float(mp.fsum((v - mean) ** 2 for v in values) / length))
    tol = 4 * element_bound(length) + length * U
    fast, slow = np.var(pe[:, 0]), np.var(pe[:, d - 2])
    assert abs(fast - expected[0]) <= tol and abs(slow - expected[1]) <= tol
    assert expected[0] > 0.4 and expected[1] < 1e-4  # high vs near-constant
    assert fast > 1000 * slow


def test_dimension_zero_wavelength_from_zero_crossings() -> None:
    # Column 0 is sin(p): its upward zero crossings are 2π apart. Crossings are located
    # to within one position each, so n crossings over [0, L) give the period to within
    # 2/(n − 1).
    pe = sinusoidal_positional_encoding(10000, 2)
    s = pe[:, 0]
    up = np.flatnonzero((s[:-1] < 0) & (s[1:] >= 0))
    period = (up[-1] - up[0]) / (len(up) - 1)
    assert abs(period - 2 * math.pi) <= 2 / (len(up) - 1)


# --- numerical stability ------------------------------------------------------------------


def test_large_sequence_length_no_nan_or_inf() -> None:
    pe = sinusoidal_positional_encoding(10000, 512)
    assert np.all(np.isfinite(pe))
    np.testing.assert_allclose(pe[-1:], mp_encoding([9999], 512), rtol=0, atol=element_bound(9999))


def test_large_d_model_no_nan_or_inf() -> None:
    pe = sinusoidal_positional_encoding(64, 4096)
    assert np.all(np.isfinite(pe))
    np.testing.assert_allclose(pe[-1:], mp_encoding([63], 4096), rtol=0, atol=element_bound(63))
