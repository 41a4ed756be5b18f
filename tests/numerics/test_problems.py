"""pespec.numerics.problems.first_non_finite: the contract's finite item, in every dtype."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.numerics.problems import first_non_finite


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, ml_dtypes.bfloat16])
def test_the_first_nan_or_inf_is_found_in_each_dtype(dtype: type) -> None:
    a: NDArray[Any] = np.zeros((5, 3), dtype=dtype)
    assert first_non_finite(a) is None
    a[3, 1] = np.inf
    a[4, 0] = np.nan
    assert first_non_finite(a) == (3, 1)


def test_a_finite_float64_beyond_float32_is_finite() -> None:
    # 1e300 overflows float32 (max 3.4e38) but is a finite float64: a cast to float32 first
    # made it inf and named it non-finite
    a = np.zeros((3, 3))
    a[1, 2] = 1e300
    a[2, 0] = -np.finfo(np.float64).max
    assert first_non_finite(a) is None


def test_integers_are_finite() -> None:
    assert first_non_finite(np.full((2, 2), np.iinfo(np.int64).max)) is None
