"""One way to judge a backend's output (pespec.sinusoidal.properties.output), used by the contract,
the
guard and the properties, and one dtype-name rule (pespec.sinusoidal.properties.base.dtype_name)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pespec.conformance.contract import BackendFailure
from pespec.sinusoidal.call import validate_output
from pespec.sinusoidal.properties.base import LEVELS, dtype_name, level_for_dtype
from pespec.sinusoidal.properties.output import output_problems

POSITIONS = np.arange(3, dtype=np.int64)


def test_a_good_output_has_no_problem() -> None:
    assert list(output_problems(np.zeros((3, 4)), POSITIONS, 4)) == []


def test_problems_in_contract_order_with_the_contract_wording() -> None:
    output = np.zeros((3, 5), dtype=np.float32)
    output[2, 1] = np.nan
    problems = list(output_problems(output, POSITIONS, 4, expected_dtype="float64"))
    assert [p.kind for p in problems] == ["shape", "dtype", "finite"]
    assert [p.message for p in problems] == [
        "output shape must be (3, 4); got (3, 5)",
        "output dtype must be float64 (the level tested); got float32",
        "output must be finite; got nan at position 2, column 1",
    ]


def test_an_unknown_dtype_ends_the_list() -> None:
    problems = list(output_problems(np.zeros((3, 4), dtype=np.int64), POSITIONS, 4))
    assert [(p.kind, p.found) for p in problems] == [("dtype", "int64")]


def test_validate_output_raises_the_first_problem_naming_the_call() -> None:
    with pytest.raises(BackendFailure) as info:
        validate_output(np.zeros((4, 3)), POSITIONS, 4, 10000.0)
    assert info.value.kind == "shape"
    assert info.value.message == (
        "output shape must be (3, 4); got (4, 3), transposed? (one row per position, d_model "
        "columns) (positions [0, 1, 2], d_model=4, base=10000.0)"
    )


def test_dtype_name_is_the_one_rule() -> None:
    assert dtype_name(np.dtype(ml_dtypes.bfloat16)) == "bfloat16"
    assert dtype_name(np.dtype(np.float16)) == "float16"
    assert dtype_name(np.dtype(np.int32)) is None
    assert level_for_dtype(np.float32) == LEVELS["float32"]
    with pytest.raises(ValueError, match="dtype must be one of"):
        level_for_dtype(np.int32)
