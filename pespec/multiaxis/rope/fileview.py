"""A saved multi-axis rotary output seen as a run (SPEC R9.15): what the report fields, the
reference checks and the diagnosis read of a backend, served from the file.

The file's rows are all compared in chunks (:func:`reference_checks`); the diagnosis and the
report's row counts use at most :data:`pespec.multiaxis.rope.run.ROW_LIMIT` evenly spaced rows
(``positions``, ``x``), as a backend's run does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.conformance.report import CheckResult
from pespec.multiaxis.rope.presets import Preset
from pespec.multiaxis.rope.reference import apply, tolerance
from pespec.rope.errormodel import RopeLevel
from pespec.rope.inputs import rotary_x

__all__ = ["FileView", "reference_checks"]

CHUNK_ROWS = 4096
ROW_LIMIT = 1 << 15


class FileView:
    """The file's output (n, head_dim) at ``rows`` (n, k) positions, judged at ``level``."""

    def __init__(
        self,
        preset: Preset,
        output: NDArray[Any],
        rows: NDArray[Any],
        level: RopeLevel | None,
        output_dtype: str | None,
    ) -> None:
        self.preset, self.config = preset, preset.config
        self.file_output, self.all_positions = output, rows
        self.claimed, self.output_dtype = level, output_dtype
        n = int(rows.shape[0])
        self.grid_rows = n
        self.indices = np.unique(np.linspace(0, max(n - 1, 0), min(n, ROW_LIMIT)).astype(int))
        self.positions: NDArray[Any] = rows[self.indices] if n else rows
        self.x = rotary_x(self.indices, self.config.head_dim) if n else np.zeros((0, 0))
        self.stages = ("contract", "golden", "reference")
        self._judged: tuple[NDArray[np.float64], ...] | None = None

    @property
    def level(self) -> str | None:
        return None if self.claimed is None else self.claimed.name

    def level_object(self) -> RopeLevel:
        assert self.claimed is not None
        return self.claimed

    def output(self, x: NDArray[Any], positions: NDArray[Any]) -> NDArray[np.float64]:
        """The stored rows for the view's first rows (the only inputs a file answers)."""
        n = x.shape[0]
        if not (np.array_equal(x, self.x[:n]) and np.array_equal(positions, self.positions[:n])):
            from pespec.conformance.contract import BackendFailure

            raise BackendFailure("inputs", "a saved file answers only the inputs it holds")
        return np.asarray(self.file_output[self.indices[:n]], dtype=np.float64)

    def judged(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """(stored output, exact reference, bound) at the view's rows."""
        if self._judged is None:
            assert self.output_dtype is not None
            x, p = self.x, self.positions
            bound = tolerance(x, p, self.config, self.level_object(), self.output_dtype)
            y = np.asarray(self.file_output[self.indices], dtype=np.float64)
            self._judged = (y, apply(x, p, self.config), bound)
        y, exact, bound = self._judged
        return y, exact, bound


def reference_checks(view: FileView) -> list[CheckResult]:
    """Each section's columns of every row of the file against the exact reference within
    the level bound plus the reference's proved error, in chunks of :data:`CHUNK_ROWS`."""
    config, level = view.config, view.level_object()
    assert view.output_dtype is not None
    sections = [config.section_columns(i) for i in range(len(config.sections))]
    worst: list[tuple[float, int, int, float, float, int]] = [(-1.0, 0, 0, 0.0, 0.0, 0)] * len(
        sections
    )
    n = view.all_positions.shape[0]
    for r0 in range(0, n, CHUNK_ROWS):
        p = view.all_positions[r0 : r0 + CHUNK_ROWS]
        x = rotary_x(np.arange(r0, r0 + p.shape[0]), config.head_dim)
        y = np.asarray(view.file_output[r0 : r0 + CHUNK_ROWS], dtype=np.float64)
        bound = tolerance(x, p, config, level, view.output_dtype)
        error = np.abs(y - apply(x, p, config))
        for index, columns in enumerate(sections):
            e, b = error[:, columns], bound[:, columns]
            ratio = np.where(b > 0, e / np.where(b > 0, b, 1.0), np.where(e > 0, np.inf, 0.0))
            r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            bad = worst[index][5] + int(np.count_nonzero(e > b))
            if ratio[r, c] > worst[index][0]:
                worst[index] = (
                    float(ratio[r, c]),
                    r0 + int(r),
                    int(columns[c]),
                    e[r, c],
                    b[r, c],
                    bad,
                )
            else:
                worst[index] = (*worst[index][:5], bad)
    return [_result(view, i, w) for i, w in enumerate(worst)]


def _result(
    view: FileView, index: int, worst: tuple[float, int, int, float, float, int]
) -> CheckResult:
    ratio, row, column, error, bound, violations = worst
    planned = PlannedCheck(
        f"reference:section-{index}", "reference", view.config.describe(index), "§9.7"
    )
    where = f"row {row} {view.all_positions[row].tolist()}, column {column}"
    fields: dict[str, Any] = {
        "max_error": float(error),
        "bound": float(bound),
        "worst_column": column,
        "details": {"section": index, "ratio": ratio, "row": row, "violations": violations},
    }
    if ratio > 1.0:
        return planned.result("failed", f"error {ratio:.3g}× the bound at {where}", **fields)
    return planned.result("passed", f"worst error {ratio:.3g}× the bound ({where})", **fields)
