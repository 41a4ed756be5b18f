"""A saved multi-axis output seen as a run (:class:`~pespec.multiaxis.view.RunView`), so the
report fields and the diagnosis of a backend apply to a file unchanged (SPEC §9.6).

``output(positions)`` answers from the file's rows; ``positions`` and ``rows`` are the file's
rows that lie on the preset's grid (the diagnosis's neighbours are grid positions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import BackendFailure
from pespec.multiaxis.config import MultiAxisConfig
from pespec.multiaxis.presets import Preset
from pespec.properties.base import Level

__all__ = ["FileView"]


class FileView:
    """The file's output (n, D) at ``positions`` (n, k), judged at ``level``."""

    stages: tuple[str, ...] = ("contract", "golden", "reference")
    declared_out = 0

    def __init__(
        self,
        preset: Preset,
        output: NDArray[Any],
        positions: NDArray[Any],
        level: Level | None,
        output_dtype: str | None,
    ) -> None:
        self.preset = preset
        self.config: MultiAxisConfig = preset.config
        grid = preset.positions()
        self.grid_rows = int(grid.shape[0])
        index = {tuple(row): r for r, row in enumerate(np.asarray(grid, np.float64).tolist())}
        found = [
            (r, index.get(tuple(p)))
            for r, p in enumerate(np.asarray(positions, np.float64).tolist())
        ]
        on_grid = [(r, g) for r, g in found if g is not None]
        file_rows = np.array([r for r, _ in on_grid], dtype=np.intp)
        self.rows: NDArray[Any] = np.array([g for _, g in on_grid], dtype=np.intp)
        self.positions: NDArray[Any] = grid[self.rows]
        self._answers = np.asarray(output)[file_rows] if file_rows.size else output[:0]
        self._where = {tuple(p): i for i, p in enumerate(self.positions.tolist())}
        self._level = level
        self.level = None if level is None else level.name
        self.output_dtype = output_dtype

    def output(self, positions: NDArray[Any]) -> NDArray[Any]:
        """The file's rows at ``positions`` (BackendFailure for one the file lacks)."""
        rows = [self._where.get(tuple(p)) for p in np.asarray(positions).tolist()]
        if any(r is None for r in rows):
            raise BackendFailure("rows", "a position the file does not hold")
        return self._answers[np.asarray(rows, dtype=np.intp)]

    def blocks(self, positions: NDArray[Any]) -> list[NDArray[Any]]:
        return [positions]

    def level_object(self) -> Level:
        if self._level is None:
            raise ValueError("the file's level is unknown (its dtype is not one pespec knows)")
        return self._level

    def admits(self, positions: NDArray[Any]) -> NDArray[np.bool_]:
        return np.ones(np.asarray(positions).shape[0], dtype=bool)

    def as_sent(self, positions: NDArray[Any]) -> NDArray[Any]:
        return positions
