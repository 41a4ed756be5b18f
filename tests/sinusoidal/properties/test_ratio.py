"""The one ratio rule and non-finite rule (pespec.numerics.ratio), used by every comparison."""

from __future__ import annotations

import math

import numpy as np

from pespec.conformance.report import CheckResult
from pespec.numerics.ratio import error_ratio, finite_error, reported_ratio, scalar_ratio


def test_non_finite_errors_are_infinite() -> None:
    got = finite_error([0.5, np.nan, np.inf, -np.inf])
    assert got.tolist() == [0.5, math.inf, math.inf, math.inf]


def test_ratio_rule_element_by_element() -> None:
    # error / bound for a positive bound; bound 0: 0 when exact, inf otherwise; NaN is worst
    error = np.array([1.0, 3.0, 0.0, 1e-300, np.nan, 2.0])
    bound = np.array([4.0, 1.0, 0.0, 0.0, 1.0, np.inf])
    assert error_ratio(error, bound).tolist() == [0.25, 3.0, 0.0, math.inf, math.inf, 0.0]


def test_scalar_and_reported_ratio_follow_the_same_rule() -> None:
    assert scalar_ratio(1.0, 4.0) == 0.25
    assert scalar_ratio(float("nan"), 4.0) == math.inf
    assert reported_ratio({"max_ratio": 0.5}, 9.0, 1.0) == 0.5  # the check's own worst ratio
    assert reported_ratio({"max_ratio": True}, 3.0, 2.0) == 1.5  # a bool is no ratio
    assert reported_ratio({}, None, 1.0) is None  # no output: no numbers


def test_check_result_ratio_uses_the_rule() -> None:
    exact = CheckResult("x", "golden", "t", "§7", "passed", max_error=0.0, bound=0.0)
    wrong = CheckResult("x", "golden", "t", "§7", "failed", max_error=1e-3, bound=0.0)
    assert exact.ratio == 0.0 and wrong.ratio == math.inf
