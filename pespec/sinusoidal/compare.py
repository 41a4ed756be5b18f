"""The sinusoidal family's comparisons: an output against the exact reference or the golden
values, block by block (SPEC §6.2).

Used by the suite's stages (:mod:`pespec.sinusoidal.comparison_stages`) and by the checks of
saved outputs (:mod:`pespec.sinusoidal.fromfile`, :mod:`pespec.sinusoidal.checkfile`). Each
element's
tolerance is its SPEC §4 bound plus the reference's own error; the engine's
:class:`~pespec.conformance.compare.Worst` keeps the worst element.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import BLOCK_ELEMENTS, FIXTURE_ERROR, Worst
from pespec.sinusoidal.properties.base import EncodingConfig, Level
from pespec.sinusoidal.properties.errormodel import element_bound_parts
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.conventions import CANONICAL, Convention
from pespec.sinusoidal.reference.encoding import encode

__all__ = [
    "EXACT_REFERENCE_LIMIT",
    "REFERENCE_ERROR",
    "compare_blocks",
    "compare_fixture",
    "comparison_bound",
]

REFERENCE_ERROR = 2.0**-52
"""Max abs error of the exact float64 reference against the exact value (SPEC Annex C), valid for
|position| < :data:`EXACT_REFERENCE_LIMIT`; beyond it the comparison uses the oracle."""

EXACT_REFERENCE_LIMIT = 2.0**31
"""|position| below which the exact reference's error is at most REFERENCE_ERROR (SPEC Annex C)."""


def comparison_bound(
    reference: NDArray[np.float64], config: EncodingConfig, level: Level, reference_error: float
) -> NDArray[np.float64]:
    """Tolerance for |y − reference| at ``level``, shape (n, d_model).

    The element bound of SPEC §4 with |x| ≤ |reference| + ``reference_error`` in its rounding
    term, plus ``reference_error`` itself (triangle inequality: the reference is not exact).
    """
    magnitude = np.abs(reference)  # a new array, changed in place (the same values, fewer
    magnitude += reference_error  # allocations in the comparison loop)
    np.minimum(magnitude, 1.0, out=magnitude)
    bound = np.asarray(element_bound_parts(config, level, magnitude).total, dtype=np.float64)
    bound += reference_error
    return bound


def compare_blocks(
    output: NDArray[Any],
    positions: NDArray[Any],
    d_model: int,
    base: float,
    level: Level,
    *,
    block_elements: int = BLOCK_ELEMENTS,
    convention: Convention = CANONICAL,
    slack: float = 0.0,
    reference_error: float = REFERENCE_ERROR,
) -> Worst:
    """Compare a (n, d_model) output with the exact float64 reference, row block by row block.

    Each block's tolerance is :func:`comparison_bound` with the reference's own error
    (``reference_error``, never below :data:`REFERENCE_ERROR`: the caller passes the family's
    value for its convention, e.g. one scaled by an output scale), plus ``slack`` (0 except
    for a text file's truncation recheck). Memory: a few float64 arrays of ``block_elements``.

    A block after the first whose values equal the reference (every error 0) is only counted:
    its bounds are positive and never NaN (non-finite working errors are +inf), so none of
    its elements is a violation, none has a ratio above the worst so far (≥ 0 once a block is
    folded) and none a larger error: folding it would change nothing (the exact float64
    backend's large stage, 2^25 elements, was bounded element by element for nothing).
    """
    exact_error = max(REFERENCE_ERROR, reference_error)
    worst = Worst()
    columns = np.arange(d_model, dtype=np.intp)
    rows = max(1, block_elements // d_model)
    for start in range(0, positions.shape[0], rows):
        chunk = positions[start : start + rows]
        if chunk.size and float(np.max(np.abs(chunk))) >= EXACT_REFERENCE_LIMIT:
            reference = oracle.encode(chunk, d_model, base=base, convention=convention)
            error = FIXTURE_ERROR  # beyond the exact domain: correctly rounded
        else:
            reference = encode(chunk, d_model, base=base, convention=convention)
            error = exact_error
        values = np.asarray(output[start : start + rows])
        if worst.compared and np.array_equal(values, reference):
            worst.compared += reference.size  # nothing to bound: see the docstring
            continue
        config = EncodingConfig(chunk, d_model, base, convention)
        bound = comparison_bound(reference, config, level, error)
        if slack:  # bound + 0.0 is bound (the bound is positive): no pass when no slack
            bound = bound + slack
        worst.update(values, reference, bound, chunk, columns)
    return worst


def compare_fixture(
    output: NDArray[Any],
    fixture: Any,
    rows: NDArray[np.intp],
    positions: NDArray[Any],
    level: Level,
) -> Worst:
    """Compare ``output`` (n, d_model), the backend's rows for ``positions``, with the golden
    values of ``fixture`` at ``rows``, at the fixture's columns; tolerance with FIXTURE_ERROR."""
    d_model = int(fixture.d_model)
    columns = np.asarray(fixture.columns, dtype=np.intp)
    reference = np.asarray(fixture.values, dtype=np.float64)[rows]
    full = np.zeros((positions.shape[0], d_model), dtype=np.float64)
    full[:, columns] = reference
    config = EncodingConfig(positions, d_model, float(fixture.base), fixture.convention)
    bound = comparison_bound(full, config, level, FIXTURE_ERROR)[:, columns]
    worst = Worst()
    worst.update(np.asarray(output)[:, columns], reference, bound, positions, columns)
    return worst
