"""The multi-axis ``golden`` stage: the backend at the rows of its preset's certified set
(SPEC §9.4), each section within the 1-D comparison bound with the fixture's own error
(2^-54: the values are correctly rounded). Planned only when the configuration and grid are
a preset's (a JSON config has no set); the fixture folder is verified against MANIFEST first.
"""

from __future__ import annotations

import numpy as np

from pespec.conformance.compare import FIXTURE_ERROR, PlannedCheck, Worst, comparison_result
from pespec.conformance.report import CheckResult
from pespec.multiaxis.combinator import certified_set_check
from pespec.multiaxis.sinusoidal.compare import fold_sections
from pespec.multiaxis.sinusoidal.golden import MultiAxisFixture, fixture_for
from pespec.multiaxis.sinusoidal.view import RunView

__all__ = ["golden_check", "golden_planned"]


def golden_planned(run: RunView) -> list[PlannedCheck]:
    """The golden check of the run's preset, or none when its grid has no certified set."""
    return certified_set_check(fixture_for(run.preset), "grid", "§9.4")


def golden_check(run: RunView, planned: PlannedCheck) -> CheckResult:
    """The backend's output at the set's rows (those its capabilities admit) against it."""
    fixture: MultiAxisFixture = planned.payload
    grid = run.preset.positions()[fixture.rows]  # int64 on an integer grid, as the run sends
    admitted = run.admits(grid)
    if not admitted.any():
        return planned.result("skipped", "the backend's capabilities admit no row of the set")
    positions = run.as_sent(grid[admitted])
    worst = Worst()
    y = run.output(positions)
    fold_sections(
        worst,
        y,
        positions,
        fixture.values[admitted],
        run.config,
        run.level_object(),
        FIXTURE_ERROR,
    )
    result = comparison_result(planned, worst, run.level_object())
    result.details["rows"] = int(np.count_nonzero(admitted))
    return result
