"""The comparison engine: the worst element of an output against a reference (SPEC §6.2).

Used by the families' stages and their checks of saved outputs, which compute the reference
and the element bounds (block by block) and hand them to :class:`Worst`. Each element's error
is judged against its bound with the one ratio rule and non-finite rule of
:mod:`pespec.numerics.ratio`; the worst element is found by its one accumulator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.planned import PlannedCheck
from pespec.conformance.report import CheckResult
from pespec.numerics.ratio import WorstRatio, finite_error

__all__ = [
    "BLOCK_ELEMENTS",
    "FIXTURE_ERROR",
    "SECTIONS",
    "NamedLevel",
    "PlannedCheck",
    "Worst",
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


class NamedLevel(Protocol):
    """What a comparison message needs of a level, whichever family's: its name."""

    @property
    def name(self) -> str: ...


FIXTURE_ERROR = 2.0**-54
"""Max abs error of a golden value: half an ulp of a correctly rounded float64 in [−1, 1]."""

BLOCK_ELEMENTS = 1 << 16
"""Elements compared at a time in the large stage: about ten float64 temporaries of 512 KiB,
which stay in the L2 cache and are reused by the allocator (blocks of 2^21 elements, 16 MiB
temporaries, were page-faulted afresh each block: twice as slow). Each element's bound and
error depend on its own position only, so the block size changes no verdict."""


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
        difference = np.subtract(np.asarray(values, dtype=np.float64), reference)
        error = finite_error(np.abs(difference, out=difference))
        # violations: elements not ≤ their bound (NaN bound included)
        within = error <= bound
        self.violations += int(within.size - np.count_nonzero(within))
        if error.size:
            self._update_largest(error, bound, positions, columns)
        flat = self.fold_finite(error, bound)
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


def comparison_message(worst: Worst, level: NamedLevel) -> tuple[bool, str]:
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
    level: NamedLevel,
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
