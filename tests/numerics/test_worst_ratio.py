"""The one worst-ratio accumulator (pespec.numerics.ratio.WorstRatio) and its policy.

Expected values are worked by hand from the rules in the module docstring: the ratio rule
(error / bound; 0 / 0 = 0; x / 0 = inf), the non-finite rule (NaN and ±Inf errors are inf),
the first of equal ratios in C order within a block, and a later block replacing the worst
only when strictly worse.
"""

from __future__ import annotations

import math

import numpy as np

from pespec.numerics.ratio import WorstRatio, is_worse, worst_index


def test_first_block_sets_the_worst_and_ties_keep_the_first() -> None:
    worst = WorstRatio()
    # ratios [[0.5, 2.0], [2.0, 1.0]]: the first 2.0 in C order is (0, 1), flat index 1
    flat = worst.fold(np.array([[1.0, 4.0], [2.0, 3.0]]), np.array([[2.0, 2.0], [1.0, 3.0]]))
    assert flat == 1
    assert (worst.ratio, worst.error, worst.bound, worst.compared) == (2.0, 4.0, 2.0, 4)
    # a later block at the same ratio does not replace it; a larger one does
    assert worst.fold(np.array([6.0]), np.array([3.0])) is None
    assert worst.fold(np.array([0.0, 9.0]), np.array([1.0, 3.0])) == 1
    assert (worst.ratio, worst.error, worst.bound, worst.compared) == (3.0, 9.0, 3.0, 7)


def test_non_finite_errors_and_zero_bounds() -> None:
    worst = WorstRatio()
    assert worst.fold(np.array([0.0, 0.0]), np.array([0.0, 0.0])) == 0  # 0/0 = 0, taken
    assert worst.ratio == 0.0
    assert worst.fold(np.array([1.0, math.nan]), np.array([1.0, 1.0])) == 1  # NaN is inf
    assert worst.ratio == math.inf and worst.error == math.inf
    assert worst.fold(np.array([1.0]), np.array([0.0])) is None  # inf again: not strictly worse


def test_empty_block_counts_nothing() -> None:
    worst = WorstRatio()
    assert worst.fold(np.zeros((0, 3)), np.zeros((0, 3))) is None
    assert (worst.ratio, worst.error, worst.compared) == (-1.0, None, 0)


def test_worst_index_and_is_worse() -> None:
    assert worst_index(np.array([[1.0, math.nan], [5.0, 5.0]])) == (0, 1)  # NaN counts worst
    assert worst_index(np.array([3.0, 7.0, 7.0])) == (1,)
    assert is_worse(0.0, None) and is_worse(2.0, 1.0)
    assert not is_worse(1.0, 1.0) and not is_worse(math.nan, 1.0)
