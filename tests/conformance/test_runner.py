"""The suite's runner (pespec.sinusoidal.run): its arguments are validated, and a check
that raises inside the suite becomes a failed check.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.conformance import check


def test_suite_arguments_are_validated() -> None:
    with pytest.raises(ValueError, match=r"large_sizes\[\]\[1\] must be a positive even int"):
        check("numpy", large_sizes=((16, 7),))
    with pytest.raises(ValueError, match="profile must be one of"):
        check("numpy", profile="fast")
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        check("numpy", timeout=0)
    with pytest.raises(ValueError, match="examples must be a positive int"):
        check("numpy", examples=0)


def test_a_check_that_raises_inside_the_suite_becomes_a_failed_check() -> None:
    # A shape-(n, d) object array passes to_host but breaks arithmetic in the comparison.
    def objects(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        return np.full((positions.shape[0], d_model), None, dtype=object)

    report = check(objects, level="float64", stages=("contract", "large"), large_sizes=((8, 4),))
    assert report.get("large:8x4").status == "failed"
    assert report.get("contract:dtype").status == "failed"
