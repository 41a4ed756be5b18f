"""The ratio rule's edge at a zero bound (pespec.numerics.ratio, issue 42): an error against a
zero bound is infinitely bad however small, no error against a zero bound is no failure."""

from __future__ import annotations

import math

import numpy as np

from pespec.numerics.ratio import error_ratio


def test_zero_bound() -> None:
    got = error_ratio(np.array([0.5, 2.0**-1074, 0.0, 3.0]), np.array([0.0, 0.0, 0.0, 2.0]))
    assert got.tolist() == [math.inf, math.inf, 0.0, 1.5]
