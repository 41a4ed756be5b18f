"""The comparison engine: an output against a reference, block by block (SPEC §6.2).

Used by the suite (:mod:`pespec.conformance.runner`: golden, timesteps and large stages) and
by the checks of saved outputs (:mod:`pespec.conformance.fromfile`). Each element's error is
judged against its SPEC §4 bound with the one ratio rule and non-finite rule of
:mod:`pespec.numerics.ratio`; the worst element is found by its one accumulator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.report import CheckResult
from pespec.numerics.ratio import WorstRatio, finite_error
from pespec.properties.base import EncodingConfig, Level
from pespec.properties.errormodel import element_bound_parts
from pespec.reference import oracle
from pespec.reference.conventions import CANONICAL, Convention
from pespec.reference.encoding import encode

__all__ = [
    "BLOCK_ELEMENTS",
    "EXACT_REFERENCE_LIMIT",
    "FIXTURE_ERROR",
    "REFERENCE_ERROR",
    "SECTIONS",
    "PlannedCheck",
    "Worst",
    "compare_blocks",
    "compare_fixture",
    "comparison_bound",
    "comparison_message",
    "comparison_result",
]

SECTIONS: dict[str, str] = {
    "contract": "§6.2",
    "golden": "§7",
    "property": "§5",
    "large": "§6.2",
    "reference": "§6.2",
}


REFERENCE_ERROR = 2.0**-52
"""Max abs error of the exact float64 reference against the exact value (SPEC Annex C), valid for
|position| < :data:`EXACT_REFERENCE_LIMIT`; beyond it the comparison uses the oracle."""

EXACT_REFERENCE_LIMIT = 2.0**31
"""|position| below which the exact reference's error is at most REFERENCE_ERROR (SPEC Annex C)."""

FIXTURE_ERROR = 2.0**-54
"""Max abs error of a golden value: half an ulp of a correctly rounded float64 in [−1, 1]."""

BLOCK_ELEMENTS = 1 << 16
"""Elements compared at a time in the large stage: about ten float64 temporaries of 512 KiB,
which stay in the L2 cache and are reused by the allocator (blocks of 2^21 elements, 16 MiB
temporaries, were page-faulted afresh each block: twice as slow). Each element's bound and
error depend on its own position only, so the block size changes no verdict."""


@dataclass(frozen=True)
class PlannedCheck:
    """One check the suite will run: a stable id, its stage, a title and its SPEC section."""

    id: str
    stage: str
    title: str
    section: str
    payload: Any = None

    def result(self, status: str, message: str, **kw: Any) -> CheckResult:
        """This check's :class:`CheckResult` (``kw``: the optional fields)."""
        return CheckResult(
            id=self.id,
            stage=self.stage,
            title=self.title,
            section=self.section,
            status=status,
            message=message,
            **kw,
        )


@dataclass
class Worst(WorstRatio):
    """Running statistics of |y − x| against a per-element bound, block by block: the worst
    ratio (:class:`~pespec.numerics.ratio.WorstRatio`), where it is, the largest |error|."""

    max_abs_error: float = 0.0
    max_abs_bound: float | None = None
    max_abs_position: int | float | None = None
    max_abs_column: int | None = None
    """Where the largest |error| is (its bound, position, column): often not the worst
    element, whose |error| is the largest fraction of its bound."""
    position: int | float | None = None
    column: int | None = None
    violations: int = 0

    def update(
        self,
        values: NDArray[Any],
        reference: NDArray[np.float64],
        bound: NDArray[np.float64],
        positions: NDArray[Any],
        columns: NDArray[np.intp],
    ) -> None:
        """Fold one block (rows = ``positions``, columns = ``columns``) into the statistics."""
        error = finite_error(np.abs(values.astype(np.float64) - reference))
        bad = ~(error <= bound)
        self.violations += int(np.count_nonzero(bad))
        if error.size:
            self._update_largest(error, bound, positions, columns)
        flat = self.fold(error, bound)
        if flat is not None:
            row, col = np.unravel_index(flat, error.shape)
            self.position = positions[row].item()
            self.column = int(columns[col])

    def _update_largest(
        self,
        error: NDArray[np.float64],
        bound: NDArray[np.float64],
        positions: NDArray[Any],
        columns: NDArray[np.intp],
    ) -> None:
        """Fold one block's largest |error| (and where it is) into the statistics."""
        row, col = np.unravel_index(int(np.argmax(error)), error.shape)
        if self.max_abs_position is None or float(error[row, col]) > self.max_abs_error:
            self.max_abs_error = max(self.max_abs_error, float(error[row, col]))
            self.max_abs_bound = float(bound[row, col])
            self.max_abs_position = positions[row].item()
            self.max_abs_column = int(columns[col])

    def largest_elsewhere(self) -> str:
        """`` (the largest fraction of its bound); the largest |error| is 1.2 (bound 3e-07) at
        position 7, column 1`` when the largest |error| is not at the worst element (else
        empty): a message naming only the worst element would hide a larger error."""
        where = (self.max_abs_position, self.max_abs_column)
        if where == (self.position, self.column) or self.error is None:
            return ""
        if not self.max_abs_error > self.error:
            return ""
        return (
            f" (the largest fraction of its bound); the largest |error| is "
            f"{_fmt(self.max_abs_error)} (bound "
            f"{_fmt(self.max_abs_bound)}) at position {self.max_abs_position!r}, column "
            f"{self.max_abs_column}"
        )


def comparison_bound(
    reference: NDArray[np.float64], config: EncodingConfig, level: Level, reference_error: float
) -> NDArray[np.float64]:
    """Tolerance for |y − reference| at ``level``, shape (n, d_model).

    The element bound of SPEC §4 with |x| ≤ |reference| + ``reference_error`` in its rounding
    term, plus ``reference_error`` itself (triangle inequality: the reference is not exact).
    """
    magnitude = np.minimum(np.abs(reference) + reference_error, 1.0)
    bound = element_bound_parts(config, level, magnitude).total
    return np.asarray(bound, dtype=np.float64) + reference_error


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
        config = EncodingConfig(chunk, d_model, base, convention)
        bound = comparison_bound(reference, config, level, error) + slack
        worst.update(np.asarray(output[start : start + rows]), reference, bound, chunk, columns)
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


def comparison_message(worst: Worst, level: Level) -> tuple[bool, str]:
    """(passed, one-line message) of a comparison against a reference."""
    if worst.violations == 0 and worst.compared > 0:
        return True, (
            f"{worst.compared} values within the {level.name} bound "
            f"(worst at {worst.ratio:.3g} of its bound)"
        )
    if worst.compared == 0:
        return False, "nothing was compared"
    return False, (
        f"{worst.violations} of {worst.compared} values exceed the {level.name} bound; "
        f"worst |error| {_fmt(worst.error)} > bound {_fmt(worst.bound)} at position "
        f"{worst.position!r}, column {worst.column}{worst.largest_elsewhere()}"
    )


def comparison_result(
    planned: PlannedCheck,
    worst: Worst,
    level: Level,
    reproduction: Callable[[], str] | None = None,
) -> CheckResult:
    """The CheckResult of a comparison; ``reproduction()`` is called only for a failure."""
    passed, message = comparison_message(worst, level)
    line = None
    if not passed and worst.position is not None and reproduction is not None:
        line = reproduction()
    return CheckResult(
        id=planned.id,
        stage=planned.stage,
        title=planned.title,
        section=planned.section,
        status="passed" if passed else "failed",
        message=message,
        max_error=worst.error,
        bound=worst.bound,
        worst_position=worst.position,
        worst_column=worst.column,
        reproduction=line,
        details={
            "max_abs_error": worst.max_abs_error,
            "values_compared": worst.compared,
            "values_over_bound": worst.violations,
        },
    )


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"
