"""The public float64 reference against every golden fixture set (SPEC Annex B, §7).

Records, per set, the max absolute error and the max error in ulps of the certified value,
and asserts the documented bound of a float64 evaluation of the formula in log space (the
naive path, :mod:`pespec.sinusoidal.reference.naive`); an exact reference satisfies it too.

Derivation of the bound (u = 2^-53; c_f: the accuracy in ulps assumed for log, exp,
sin and cos in float64, SPEC §4.1 A2; an error of c_f ulps is a relative error ≤ 2·c_f·u):

* ln(base): relative error ≤ 2·c_f·u; ÷ (d/2 − s) and × k: one rounding each (≤ u), so the
  exponent a = t·(1 + η), t = k·ln(base)/(d/2 − s), |η| ≤ (2·c_f + 2)·u;
* exp(−a) = ω·exp(−t·η) rounded with ≤ 2·c_f·u: ω̂ = ω·(1 + μ), |μ| ≤ t·(2c_f + 2)·u + 2c_f·u;
* p + o, c·(p + o) and the product with ω̂: ≤ 3 roundings of ≤ u each, so
  θ̂ = θ·(1 + ε), |ε| ≤ ((2c_f + 2)·t + 2c_f + 3)·u (first order; the factor 1 + 2^-20
  covers the second-order terms for every fixture, where ε ≤ 2^-40);
* sin/cos are 1-Lipschitz and are evaluated with ≤ c_f ulps ≤ 2·c_f·u·|value|:

    |x̂ − x| ≤ |θ|·((2c_f + 2)·t + 2c_f + 3)·u·(1 + 2^-20) + 2·c_f·u·|x|.

The bound grows with |θ| = |c·(p + o)·ω_k|: it is about 1e-14 at θ = 10 and 1e-6 at
θ = 2^31.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.numerics.formats import FUNCTION_ULPS
from pespec.sinusoidal.golden import FixtureSet, load_fixture_sets
from pespec.sinusoidal.reference.encoding import encode
from pespec.sinusoidal.reference.naive import naive_encode

U = 2.0**-53
C_F = FUNCTION_ULPS["float64"]  # SPEC §4.1 A2: float64 sin/cos/exp/log within c_f ulps

FIXTURES = load_fixture_sets()


def naive_bound(fixture: FixtureSet) -> NDArray[np.float64]:
    """The bound above for every stored element; shape (n_positions, n_columns)."""
    convention = fixture.convention
    pair, _ = convention.column_roles(fixture.d_model)
    k = pair[fixture.columns].astype(np.float64)
    t = k * math.log(fixture.base) / convention.denominator(fixture.d_model)
    omega = np.exp(-t)  # within 4u of ω_k; the 1 + 2^-20 factor below absorbs it
    scaled = convention.argument_scale * (
        fixture.positions.astype(np.float64) + convention.position_offset
    )
    theta = np.abs(scaled)[:, None] * omega[None, :]
    angle_term = theta * ((2 * C_F + 2) * t + 2 * C_F + 3)[None, :] * U * (1 + 2.0**-20)
    bound: NDArray[np.float64] = angle_term + 2 * C_F * U * np.abs(fixture.values)
    return bound * (1 + 2.0**-40)  # evaluating the bound in float64


IMPLEMENTATIONS = {"reference": encode, "naive": naive_encode}


@pytest.mark.parametrize("implementation", sorted(IMPLEMENTATIONS))
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_reference_within_documented_bound(
    fixture: FixtureSet, implementation: str, record_property: pytest.RecordProperty
) -> None:
    """The public reference (and the naive path the bound is derived for) on every set."""
    reference = IMPLEMENTATIONS[implementation](
        fixture.positions, fixture.d_model, base=fixture.base, convention=fixture.convention
    )[:, fixture.columns]
    error = np.abs(reference - fixture.values)
    ulps = error / np.spacing(np.abs(fixture.values))
    bound = naive_bound(fixture)
    max_abs, max_ulp = float(error.max()), float(ulps.max())
    record_property("max_abs_error", max_abs)
    record_property("max_ulp_error", max_ulp)
    print(f"{implementation} vs {fixture.name}: max abs {max_abs:.3g}, max ulp {max_ulp:.3g}")
    worst = np.unravel_index(int(np.argmax(error - bound)), error.shape)
    assert np.all(error <= bound), (
        f"{fixture.name}: position {fixture.positions[worst[0]]!r}, column "
        f"{fixture.columns[worst[1]]}: error {error[worst]:.3g} > bound {bound[worst]:.3g}"
    )


def test_bound_is_not_vacuous() -> None:
    """The bound is tight enough to catch a real mistake: a reference that skips one
    rounding-level detail (here: ω_k computed with base^(−2k/d) rounded to float32) fails."""
    fixture = next(f for f in FIXTURES if f.name == "transformer-d512-L5000")
    exponents = np.arange(fixture.d_model // 2) * 2.0 / fixture.d_model
    omega32 = (fixture.base ** (-exponents)).astype(np.float32).astype(np.float64)
    theta = fixture.positions.astype(np.float64)[:, None] * omega32[None, :]
    sloppy = np.empty((fixture.positions.size, fixture.d_model))
    sloppy[:, 0::2] = np.sin(theta)
    sloppy[:, 1::2] = np.cos(theta)
    error = np.abs(sloppy[:, fixture.columns] - fixture.values)
    assert np.any(error > naive_bound(fixture))
