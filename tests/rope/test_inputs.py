"""The one rotary input generator (pespec/rope/inputs.py): the stated formula, by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pespec.rope.inputs import GOLDEN_HALF, SUITE_HALF, drawn_x, rotary_x

PACKAGE = Path(__file__).resolve().parents[2] / "pespec"


def test_suite_inputs_follow_the_formula_by_hand() -> None:
    # x[r][k] = ((37(k+1) + 101r + 7919·seed) mod 255 − 127)/64 at seed 1:
    # r=0: 7956 mod 255 = 51 → −76; 7993 mod 255 = 88 → −39; r=1: 8057 mod 255 = 152 → 25,
    # 8094 mod 255 = 189 → 62
    x = rotary_x(2, 2, seed=1, half=SUITE_HALF)
    assert x.tolist() == [[-76 / 64, -39 / 64], [25 / 64, 62 / 64]]


def test_rows_by_index_are_the_slices_of_the_first_rows() -> None:
    whole = rotary_x(np.int64(40), 6)
    assert whole.shape == (40, 6)
    np.testing.assert_array_equal(rotary_x(np.arange(17, 40), 6), whole[17:])
    np.testing.assert_array_equal(rotary_x([3, 0], 6), whole[[3, 0]])


@pytest.mark.parametrize("half", [GOLDEN_HALF, SUITE_HALF])
def test_values_span_the_stated_range_and_are_exact_in_bfloat16(half: int) -> None:
    x = rotary_x(300, 64, seed=2, half=half)
    assert x.min() == -half / 64 and x.max() == half / 64
    k = x * 64  # integers of at most 8 bits: exact in float16 and bfloat16
    np.testing.assert_array_equal(k, np.round(k))
    assert np.abs(k).max() <= 256


def test_drawn_x_is_deterministic_multiples_of_1_128() -> None:
    x = drawn_x(50, 8, seed=3)
    np.testing.assert_array_equal(x, drawn_x(50, 8, seed=3))
    assert np.abs(x).max() <= 2.0
    np.testing.assert_array_equal(x * 128, np.round(x * 128))


def test_the_formula_is_written_once() -> None:
    holders = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "37 * (k + 1)" in path.read_text(encoding="utf-8")
    )
    assert holders == ["rope/inputs.py"]
