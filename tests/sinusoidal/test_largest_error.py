"""A failed comparison names the largest |error| too, when it is not the worst element
(issue 24, item 14f).

Before: "worst |error| 0.84 > bound ..." named only the element whose |error| is the largest
fraction of its bound, while a larger |error| elsewhere went unmentioned.
"""

from __future__ import annotations

import numpy as np

from pespec.conformance.compare import comparison_message
from pespec.sinusoidal.compare import compare_blocks
from pespec.sinusoidal.properties.base import parse_level
from pespec.sinusoidal.reference.encoding import encode

D_MODEL = 64


def test_the_message_names_the_worst_ratio_and_the_largest_error() -> None:
    positions = np.arange(5000, dtype=np.int64)
    output = encode(positions, D_MODEL)
    # At position 0, column 0 (sin 0 = 0, pair 0: no angle term) the float64 bound is a few
    # units of 2^-53 (~1e-15): an error of 1e-11 is ~1e4 times its bound. At position 4999,
    # column 2 (pair 1: angle 4999·10000^(-2/64) ≈ 3745, whose rounding bound is ~3745·2^-53
    # ≈ 4e-13 times a small constant) an error of 1e-9 is at most a few thousand times its
    # bound: the larger |error|, the smaller ratio.
    output[0, 0] += 1e-11
    output[4999, 2] += 1e-9
    worst = compare_blocks(output, positions, D_MODEL, 10000.0, parse_level("float64"))
    assert (worst.position, worst.column) == (0, 0)
    passed, message = comparison_message(worst, parse_level("float64"))
    assert not passed
    assert "at position 0, column 0 (the largest fraction of its bound)" in message
    assert "the largest |error| is 1e-09" in message
    assert "at position 4999, column 2" in message


def test_one_element_is_named_once() -> None:
    positions = np.arange(16, dtype=np.int64)
    output = encode(positions, D_MODEL)
    output[3, 5] += 1e-3
    worst = compare_blocks(output, positions, D_MODEL, 10000.0, parse_level("float64"))
    _, message = comparison_message(worst, parse_level("float64"))
    assert "at position 3, column 5" in message and "largest |error|" not in message
