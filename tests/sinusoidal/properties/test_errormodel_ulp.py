"""ulp_below_one (SPEC §4's ½·ulp* rounding term) against its frexp definition, bit for bit.

The implementation reads the exponent bits instead of calling frexp/ldexp (the conformance
suite's hottest loop); the expected values here come from Python's math.frexp/ldexp.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pespec.numerics.formats import MIN_EXPONENT, ulp_below_one
from pespec.sinusoidal.properties.base import SIGNIFICAND_BITS


def _expected(value: float, dtype_name: str) -> float:
    """2^(clip(floor(log2 min(|v|, 1)), e_min, −1) − p + 1); frexp(0) has exponent 0."""
    a = min(abs(value), 1.0)
    exponent = math.frexp(a)[1] if math.isfinite(a) else 0
    binade = min(max(exponent - 1, MIN_EXPONENT[dtype_name]), -1)
    return math.ldexp(1.0, binade - SIGNIFICAND_BITS[dtype_name] + 1)


@pytest.mark.parametrize("dtype_name", list(SIGNIFICAND_BITS))
def test_ulp_below_one_matches_frexp_definition(dtype_name: str) -> None:
    rng = np.random.default_rng(4)
    edges = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        math.nextafter(1.0, 0.0),
        2.0,
        math.inf,
        -math.inf,
        5e-324,
        2.0**-1022,
        math.nextafter(2.0**-1022, 0.0),
        2.0**-126,
        2.0**-127,
        2.0**-14,
        2.0**-15,
        2.0**-133,
        1e-40,
        0.75,
        3e-300,
    ]
    values = np.array(
        edges + list(rng.uniform(-2, 2, 300)) + list(2.0 ** rng.uniform(-1080, 1, 300))
    )
    got = ulp_below_one(values, dtype_name)
    expected = np.array([_expected(float(v), dtype_name) for v in values])
    assert got.shape == values.shape
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))
