"""The large stage's fewer-pass helpers give bit-identical results to the formulas they replace
(issue 37): the old expressions are written out here, from the commit before the change."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import MIN_EXPONENT, SIGNIFICAND_BITS, ulp_below_one
from pespec.numerics.ratio import WorstRatio, error_ratio, finite_error

SPECIAL = [0.0, -0.0, 1.0, 2.0, np.inf, -np.inf, np.nan, 5e-324, 1e-310, 2.0**-1022, 0.5, -0.3]


def _old_ulp_below_one(magnitude: NDArray[np.float64], dtype_name: str) -> NDArray[np.float64]:
    p = SIGNIFICAND_BITS[dtype_name]
    a = np.asarray(np.minimum(np.abs(np.asarray(magnitude, dtype=np.float64)), 1.0))
    power = np.asarray((a.view(np.int64) & 0x7FF0000000000000).view(np.float64))
    np.clip(power, 2.0 ** MIN_EXPONENT[dtype_name], 0.5, out=power)
    np.copyto(power, 0.5, where=a == 0.0)
    spacing: NDArray[np.float64] = power * 2.0 ** (1 - p)
    return spacing


def test_ulp_below_one_bit_identical() -> None:
    rng = np.random.default_rng(37)
    values = np.concatenate([rng.random(4096), -rng.random(64) * 3.0, SPECIAL])
    for dtype_name in ("float64", "float32", "float16", "bfloat16"):
        old = _old_ulp_below_one(values, dtype_name)
        new = ulp_below_one(values, dtype_name)
        assert old.tobytes() == new.tobytes(), dtype_name
        scalar = np.float64(0.3)
        assert float(ulp_below_one(scalar, dtype_name)) == float(
            _old_ulp_below_one(scalar, dtype_name)
        )


def test_fold_finite_same_as_fold() -> None:
    rng = np.random.default_rng(38)
    error = rng.random((16, 64)) * 1e-15
    error[3, 5], error[7, 1], error[0, 0] = np.nan, np.inf, 1e-12
    bound = np.full((16, 64), 1e-15)
    bound[2, 2] = 0.0
    old, new = WorstRatio(), WorstRatio()
    assert old.fold(error, bound) == new.fold_finite(finite_error(error), bound)
    assert (old.ratio, old.error, old.bound, old.compared) == (
        new.ratio,
        new.error,
        new.bound,
        new.compared,
    )
    ratio = error_ratio(error, bound)
    assert not np.isnan(ratio).any()
