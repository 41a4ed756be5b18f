"""The multi-axis family's run for the engine: contract, plan, dispatch (SPEC §9.5).

A backend is ``backend(positions (n, k), config) -> (n, D)``: ``positions`` int64 or float64
rows of k coordinates, ``config`` the :class:`~pespec.multiaxis.sinusoidal.config.MultiAxisConfig`.
The positions checked are those of the preset's grid (all of them up to the profile's row
limit, else an evenly strided subset that still meets every coordinate of every axis).
Stages (:mod:`pespec.multiaxis.sinusoidal.stages`): ``contract``, ``golden`` (the preset's certified
set, :mod:`pespec.multiaxis.sinusoidal.golden_stage`), ``reference`` (each section's columns
against the 1-D exact reference within the 1-D error bound), ``separability`` and
``property`` (the 1-D properties of each section).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.chores import Levels
from pespec.conformance.contract import BackendFailure
from pespec.conformance.guard import CallingConvention
from pespec.conformance.stage import ContractStage
from pespec.multiaxis.section_run import SectionCapabilities, SectionRun, describe_positions
from pespec.multiaxis.sinusoidal.config import MultiAxisConfig, check_positions_nd
from pespec.multiaxis.sinusoidal.presets import Preset, resolve_config
from pespec.numerics.formats import DTYPES
from pespec.sinusoidal.properties.base import level_for_dtype, parse_level

__all__ = [
    "ENTRY_POINT_GROUP",
    "FAMILY",
    "MULTIAXIS_CALL",
    "STAGES",
    "MultiAxisCapabilities",
    "MultiAxisRun",
    "MultiAxisSuite",
    "check",
    "load_multiaxis_backend",
    "sample_rows",
]

FAMILY = "multiaxis"
STAGES = ("contract", "golden", "reference", "separability", "property")
ENTRY_POINT_GROUP = "pespec.multiaxis_backends"
ROW_LIMITS = {"ci": 4096, "dev": 4096, "thorough": 1 << 16}
"""Grid rows checked per profile; a larger grid is checked on a strided subset."""
BLOCK_ELEMENTS = 1 << 22
"""Output elements asked of the backend per call (4M: 32 MiB of float64)."""

MULTIAXIS_CALL = CallingConvention(
    "backend(positions, config) -> array",
    (np.zeros((1, 2), dtype=np.int64), None),
    "wrap it in a function (positions (n, k), config) -> (n, D) array",
)


@dataclass(frozen=True)
class MultiAxisCapabilities(SectionCapabilities):
    """What a multi-axis backend declares: the shared fields (a level such as ``float32``)."""

    calling_convention: ClassVar[CallingConvention] = MULTIAXIS_CALL
    parse_level = staticmethod(parse_level)


def sample_rows(sizes: Sequence[int], limit: int) -> NDArray[np.intp]:
    """Row indices of a grid checked under a limit: all rows, or every s-th row with s the
    smallest stride ≥ n/limit prime to the last axis's size (so every coordinate of the last
    axis occurs), plus one row for each coordinate of another axis the stride skipped."""
    n = int(np.prod(sizes))
    if n <= limit:
        return np.arange(n, dtype=np.intp)
    stride = -(-n // limit)
    while np.gcd(stride, int(sizes[-1])) != 1:
        stride += 1
    rows = np.arange(0, n, stride, dtype=np.intp)
    coordinates = np.unravel_index(rows, tuple(sizes))
    extra = []
    for axis, size in enumerate(sizes):
        for missing in sorted(set(range(int(size))) - set(coordinates[axis].tolist())):
            index = [0] * len(sizes)
            index[axis] = missing
            extra.append(int(np.ravel_multi_index(tuple(index), tuple(sizes))))
    return np.unique(np.concatenate([rows, np.asarray(extra, dtype=np.intp)]))


class MultiAxisRun(SectionRun):
    """The multi-axis family's run: the engine's chores and the preset
    (:class:`~pespec.multiaxis.section_run.SectionRun`), and the grid's rows."""

    family = FAMILY
    all_stages = STAGES
    capabilities_type = MultiAxisCapabilities
    entry_point_group = ENTRY_POINT_GROUP
    levels = Levels(parse_level, lambda name: level_for_dtype(DTYPES[name]))
    output_dtypes = tuple(DTYPES)
    stages_module = "pespec.multiaxis.sinusoidal.stages"
    report_module = diagnosis_module = "pespec.multiaxis.sinusoidal.report"
    preset: Preset
    config: MultiAxisConfig

    def resolve(self, config: Any) -> Preset:
        return resolve_config(config)

    def take_rows(self, grid: NDArray[Any]) -> None:
        """The rows checked (:meth:`_admitted`) and the contract stage on 16 of them."""
        self.rows, self.positions = self._admitted(grid)
        self.contract = ContractStage(self.guard, self.output, self.positions[:16])

    def _admitted(self, grid: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[Any]]:
        """The checked rows (profile's limit) the backend's declared capabilities admit
        (every coordinate: integer, sign, magnitude; SPEC §6.1), and their positions."""
        rows = sample_rows(self.preset.sizes, ROW_LIMITS.get(self.profile, 4096))
        admitted = self.admits(grid[rows])
        self.declared_out = int(np.count_nonzero(~admitted))
        if not admitted.any():
            raise ValueError(
                f"the backend's declared capabilities {self.backend.capabilities.to_dict()} "
                f"admit no position of the grid of {self.preset.name}"
            )
        return rows[admitted], self.as_sent(grid[rows[admitted]])

    def admits(self, positions: NDArray[Any]) -> NDArray[np.bool_]:
        """Which rows (n, k) the backend's declared capabilities admit, every coordinate."""
        return np.asarray(self.backend.capabilities.admits(positions).all(axis=1))

    def as_sent(self, positions: NDArray[Any]) -> NDArray[Any]:
        """Admitted rows as the backend gets them (int64 for ``integer_positions_only``)."""
        if self.backend.capabilities.integer_positions_only and positions.dtype.kind == "f":
            return positions.astype(np.int64)
        return positions

    def output(self, positions: NDArray[Any]) -> NDArray[Any]:
        """The backend's output for ``positions`` (n, k), validated: shape (n, D), a pespec
        dtype, the same dtype every call, finite (BackendFailure otherwise)."""
        given = check_positions_nd(positions, self.config.axes)
        out = self.guard.raw_call(given.copy(), self.config)
        expected = (given.shape[0], self.config.d_model)
        self.validated(
            out,
            expected,
            where=describe_positions(given),
            row=lambda r: f"position {tuple(np.asarray(given)[r].tolist())}",
        )
        return out

    def check_claim(self, name: str) -> None:
        """The claimed level's output dtype must be ``name`` (BackendFailure otherwise)."""
        if self.claimed is not None and name != self.claimed.output_dtype:
            raise BackendFailure(
                "dtype",
                f"returned {name}; the level {self.claimed.name} claims "
                f"{self.claimed.output_dtype} output",
            )

    def blocks(self, positions: NDArray[Any]) -> list[NDArray[Any]]:
        """``positions`` cut into row blocks of at most :data:`BLOCK_ELEMENTS` outputs."""
        rows = max(1, BLOCK_ELEMENTS // self.config.d_model)
        return [positions[i : i + rows] for i in range(0, positions.shape[0], rows)]


MultiAxisSuite, check, load_multiaxis_backend = (
    MultiAxisRun.suite,
    MultiAxisRun.check,
    MultiAxisRun.load,
)
"""The family's suite factory, check function (``diagnose``: explain a non-conformant
report, SPEC §9.6) and backend loader: the engine's, on a :class:`MultiAxisRun`."""
