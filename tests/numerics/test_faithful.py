"""The fractional path (SPEC Annex C.8, pespec.numerics.faithful): its proof table closes below
2^-52, and its values are within 2^-52 of the oracle (MPFR, correctly rounded) over the
whole domain, at its far end |θ| ≈ 2^40 included, where every term of the low word counts.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from pespec.numerics.faithful import error_terms, sincos_faithful
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.conventions import PRESETS
from pespec.sinusoidal.reference.exact import make_rotator


def test_the_proof_table_closes_below_2_pow_minus_52() -> None:
    *terms, (_, total) = error_terms()
    assert len(terms) >= 10 and all(value > 0 for _, value in terms)
    with mpmath.workdps(40):
        assert total == mpmath.mpf(2) ** -53 + 2 * mpmath.fsum(value for _, value in terms)
        assert total < mpmath.mpf(2) ** -52


def _rows(positions: np.ndarray, d_model: int, base: float) -> np.ndarray:
    """sin | cos halves of sincos_faithful at positions ≥ 0 (canonical convention)."""
    rotator = make_rotator(d_model, base, PRESETS["canonical"])
    sin, cos = sincos_faithful(positions.astype(np.float64), rotator.pieces)
    out = np.empty((positions.shape[0], d_model))
    out[:, 0::2], out[:, 1::2] = sin, cos
    return out


@pytest.mark.parametrize(
    ("positions", "d_model", "base"),
    [
        (np.random.default_rng(37).uniform(0.0, 1000.0, 64), 64, 10000.0),
        (np.random.default_rng(38).uniform(0.0, 2.0**31, 32), 32, 10000.0),
        # |θ| = x·ω_0 = x just below 2^40: x_lo·w_1 and x_hi·w_2 are ~2^-14 turns here,
        # so a low word that dropped either would be off by far more than 2^-52
        (2.0**40 - np.array([0.5, 0.75, 1.25, 1234.375, 2.0**20 + 0.125]), 16, 10000.0),
        (np.array([1e-300, 2.0**-1074, 0.5, 3.0 + 2.0**-40]), 16, 2.0),
    ],
)
def test_values_within_2_pow_minus_52_of_the_oracle(
    positions: np.ndarray, d_model: int, base: float
) -> None:
    got = _rows(positions, d_model, base)
    expected = oracle.encode(positions, d_model, base=base)
    assert np.max(np.abs(got - expected)) <= 2.0**-52


def test_positions_beyond_the_proof_take_the_exact_path() -> None:
    # |θ| = x·ω_0 = x > 2^40 (d = 2: ω_0 = 1): outside C.8's proof (its low word would hold
    # whole turns), so these rows take the exact path, within 2^-52 + |θ|·2^-105 (C.2); the
    # first position is the one the property stage drew when this branch was missing
    from pespec.numerics.faithful import faithful_limit
    from pespec.sinusoidal.reference.encoding import encode

    positions = np.array([689164343401355.5, 1e15 + 0.5, 2.0**41 + 0.25, 2.0**38 + 0.5])
    assert faithful_limit(make_rotator(2, 10000.0, PRESETS["canonical"]).pieces) < 2.0**40
    got = encode(positions, 2)
    expected = oracle.encode(positions, 2)
    assert np.max(np.abs(got - expected)) <= 2.0**-52 + float(np.max(positions)) * 2.0**-105
