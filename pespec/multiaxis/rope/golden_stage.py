"""The multi-axis rotary ``golden`` stage (SPEC R9.14): the backend at the rows of its
preset's certified set, every element within its §8.7 level bound plus the stored value's
own rounding (2^-53·|y|: the values are correctly rounded). Planned only when the
configuration and ids are a preset's (a JSON configuration has no set); the fixture folder
is verified against MANIFEST first.

Shapes: the set's x and y (n, head_dim), positions (n, k) int64, as a backend is called.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.conformance.report import CheckResult
from pespec.multiaxis.combinator import certified_set_check
from pespec.multiaxis.rope.config import MultiAxisRopeConfig
from pespec.multiaxis.rope.golden import MRopeFixture, fixture_for
from pespec.multiaxis.rope.presets import Preset
from pespec.multiaxis.rope.reference import tolerance
from pespec.rope.errormodel import RopeLevel

__all__ = ["GoldenView", "golden_check", "golden_planned", "golden_result", "worst_against"]

_U64 = 2.0**-53


class GoldenView(Protocol):
    """What the stage uses of a run."""

    preset: Preset
    config: MultiAxisRopeConfig
    output_dtype: str | None

    def output(self, x: NDArray[Any], positions: NDArray[Any]) -> NDArray[np.float64]: ...

    def level_object(self) -> RopeLevel: ...


def golden_planned(run: GoldenView) -> list[PlannedCheck]:
    """The golden check of the run's preset, or none when its ids have no certified set."""
    return certified_set_check(fixture_for(run.preset), "ids", "§9.7")


def worst_against(
    y: NDArray[np.float64],
    fixture: MRopeFixture,
    config: MultiAxisRopeConfig,
    level: RopeLevel,
    output_dtype: str,
) -> tuple[float, int, int, NDArray[np.float64], NDArray[np.float64]]:
    """(worst error/bound ratio, its row, its column, errors, bounds) of ``y`` against the
    set's values."""
    bound = tolerance(
        fixture.x, fixture.positions, config, level, output_dtype, _U64 * np.abs(fixture.y)
    )
    error = np.abs(y - fixture.y)
    over = np.where(error > 0, np.inf, 0.0)
    ratio = np.where(bound > 0, error / np.where(bound > 0, bound, 1.0), over)
    r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    return float(ratio[r, c]), int(r), int(c), error, bound


def golden_result(
    planned: PlannedCheck, fixture: MRopeFixture, y: NDArray[np.float64], view: GoldenView
) -> CheckResult:
    """The check's result for the output ``y`` at the set's rows."""
    assert view.output_dtype is not None
    ratio, r, c, error, bound = worst_against(
        y, fixture, view.config, view.level_object(), view.output_dtype
    )
    slot = c // 2 if view.config.pairing == "interleaved" else c % (view.config.head_dim // 2)
    axis = int(view.config.axis_of_slot()[slot])
    fields: dict[str, Any] = {
        "max_error": float(error[r, c]),
        "bound": float(bound[r, c]),
        "worst_column": c,
        "details": {
            "ratio": ratio,
            "ids_row": int(fixture.rows[r]),
            "position": fixture.positions[r].tolist(),
            "axis": axis,
            "rows": int(fixture.rows.size),
            "violations": int(np.count_nonzero(error > bound)),
        },
    }
    where = f"ids row {int(fixture.rows[r])} {fixture.positions[r].tolist()}, column {c}"
    if ratio > 1.0:
        return planned.result("failed", f"error {ratio:.3g}× the bound at {where}", **fields)
    return planned.result("passed", f"worst error {ratio:.3g}× the bound ({where})", **fields)


def golden_check(run: GoldenView, planned: PlannedCheck) -> CheckResult:
    """The backend's output at the set's rows against the stored values."""
    fixture: MRopeFixture = planned.payload
    y = run.output(fixture.x, fixture.positions)
    return golden_result(planned, fixture, y, run)
