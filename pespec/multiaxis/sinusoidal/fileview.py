"""A saved multi-axis output seen as a run (:class:`~pespec.multiaxis.sinusoidal.view.RunView`), so
the
report fields and the diagnosis of a backend apply to a file unchanged (SPEC §9.6).

``output(positions)`` answers from the file's rows; ``positions`` and ``rows`` are the file's
first rows (at most :data:`VIEW_ROWS` of its first :data:`SCANNED_ROWS`) that lie on the
preset's grid (the diagnosis's neighbours are grid positions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import BackendFailure
from pespec.multiaxis.sinusoidal.config import MultiAxisConfig
from pespec.multiaxis.sinusoidal.grid import axis_values, per_axis
from pespec.multiaxis.sinusoidal.presets import Preset
from pespec.sinusoidal.properties.base import Level

__all__ = ["SCANNED_ROWS", "VIEW_ROWS", "FileView"]

SCANNED_ROWS = 4096
"""The file's first rows searched for grid positions (memory bounded for any file)."""
VIEW_ROWS = 256
"""Grid rows the view keeps: the diagnosis compares the first 256."""


def _grid_index(preset: Preset, positions: NDArray[np.float64]) -> NDArray[np.intp]:
    """Each row's index in the preset's grid (row-major), −1 for a row off the grid."""
    scales = per_axis(preset.interpolation_scale, len(preset.sizes))
    index = np.zeros(positions.shape[0], dtype=np.intp)
    inside = np.ones(positions.shape[0], dtype=bool)
    for axis, (size, scale) in enumerate(zip(preset.sizes, scales, strict=True)):
        values = axis_values(size, base_size=preset.base_size, interpolation_scale=scale)
        values = values.astype(np.float64)
        k = np.clip(np.searchsorted(values, positions[:, axis]), 0, size - 1)
        inside &= values[k] == positions[:, axis]
        index = index * size + k
    return np.where(inside, index, -1)


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
        self.grid_rows = int(np.prod(preset.sizes))
        head = np.asarray(positions[:SCANNED_ROWS], dtype=np.float64)
        grid_index = _grid_index(preset, head)
        on_grid = np.nonzero(grid_index >= 0)[0][:VIEW_ROWS]
        self.rows: NDArray[Any] = grid_index[on_grid]
        self.positions: NDArray[Any] = np.asarray(positions)[on_grid]
        self._answers = np.asarray(output[:SCANNED_ROWS])[on_grid]
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
