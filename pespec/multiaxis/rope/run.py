"""The multi-axis rotary family's run for the engine: contract, inputs, dispatch (SPEC §9.7).

A backend is ``backend(x, positions, config) -> (n, head_dim)``: x float64 (n, head_dim)
(values k/128, |k| ≤ 256: exact in every float format, so a backend may cast them), positions
int64 (n, k), ``config`` the :class:`~pespec.multiaxis.rope.config.MultiAxisRopeConfig`. The rows
checked are the preset's position ids (up to :data:`ROW_LIMIT`, else an evenly strided
subset). Stages (:mod:`pespec.multiaxis.rope.stages`): ``contract``, ``golden`` (the preset's
certified set, :mod:`pespec.multiaxis.rope.golden_stage`), ``reference`` (each section
against the 1-D rotary reference within the 1-D level bound, SPEC §8.7), ``separability``,
``relative`` (per-axis relative position of q·k scores).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.chores import Levels
from pespec.conformance.contract import BackendFailure
from pespec.conformance.guard import CallingConvention
from pespec.conformance.stage import ContractStage
from pespec.multiaxis.rope.config import MultiAxisRopeConfig
from pespec.multiaxis.rope.presets import Preset, resolve_config
from pespec.multiaxis.rope.reference import check_inputs
from pespec.multiaxis.section_run import SectionCapabilities, SectionRun
from pespec.numerics.formats import DTYPES
from pespec.rope.errormodel import (
    check_rope_claim,
    parse_rope_level,
    rope_level_for_dtype,
)
from pespec.rope.inputs import drawn_x

__all__ = ["FAMILY", "STAGES", "MRopeRun", "MRopeSuite", "check", "load_mrope_backend"]

FAMILY = "multiaxis-rope"
STAGES = ("contract", "golden", "reference", "separability", "relative")
ENTRY_POINT_GROUP = "pespec.mrope_backends"
ROW_LIMIT = 1 << 15
BLOCK_ROWS = 4096
"""Rows asked of the backend per call."""

MROPE_CALL = CallingConvention(
    "backend(x, positions, config) -> array",
    (np.zeros((1, 2)), np.zeros((1, 3), dtype=np.int64), None),
    "wrap it in a function (x (n, head_dim), positions (n, k), config) -> (n, head_dim) array",
)


@dataclass(frozen=True)
class MRopeCapabilities(SectionCapabilities):
    """What a multi-axis rotary backend declares: the shared fields (a level)."""

    calling_convention: ClassVar[CallingConvention] = MROPE_CALL
    parse_level = staticmethod(parse_rope_level)


class MRopeRun(SectionRun):
    """The multi-axis rotary family's run: the engine's chores and the preset
    (:class:`~pespec.multiaxis.section_run.SectionRun`), and the position ids."""

    family = FAMILY
    all_stages = STAGES
    capabilities_type = MRopeCapabilities
    entry_point_group = ENTRY_POINT_GROUP
    levels = Levels(parse_rope_level, rope_level_for_dtype)
    output_dtypes = tuple(DTYPES)
    stages_module = "pespec.multiaxis.rope.stages"
    report_module = "pespec.multiaxis.rope.report"
    diagnosis_module = "pespec.multiaxis.rope.diagnosis"
    positions_argument = 1
    preset: Preset
    config: MultiAxisRopeConfig

    def resolve(self, config: Any) -> Preset:
        return resolve_config(config)

    def take_rows(self, grid: NDArray[Any]) -> None:
        """Up to :data:`ROW_LIMIT` evenly spaced ids rows, their inputs x, and the contract
        stage on 16 of them."""
        rows = np.unique(
            np.linspace(0, grid.shape[0] - 1, min(grid.shape[0], ROW_LIMIT)).astype(int)
        )
        self.positions: NDArray[Any] = grid[rows]
        self.x = drawn_x(self.positions.shape[0], self.config.head_dim)
        self.contract = ContractStage(self.guard, self.output, self.x[:16], self.positions[:16])
        self._cache: dict[str, Any] = {}

    def output(self, x: NDArray[Any], positions: NDArray[Any]) -> NDArray[np.float64]:
        """The backend's output as float64 (n, head_dim), validated: shape, a pespec dtype,
        the same dtype every call, finite (BackendFailure otherwise)."""
        x64, p = check_inputs(x, positions, self.config)
        out = self.guard.raw_call(x64.copy(), p.copy(), self.config)
        self.validated(out, x64.shape, where=self.describe_call(x64, p))
        return out.astype(np.float64)

    def check_claim(self, name: str) -> None:
        """The claim may only tighten the output dtype's default level (BackendFailure)."""
        if self.claimed is not None:
            try:
                check_rope_claim(self.claimed, name)
            except ValueError as exc:
                raise BackendFailure("dtype", str(exc)) from None

    def output_all(self, x: NDArray[Any], positions: NDArray[Any]) -> NDArray[np.float64]:
        """:meth:`output` in blocks of :data:`BLOCK_ROWS` rows."""
        parts = [
            self.output(x[i : i + BLOCK_ROWS], positions[i : i + BLOCK_ROWS])
            for i in range(0, x.shape[0], BLOCK_ROWS)
        ]
        return np.concatenate(parts)

    def judged(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """(backend output, exact reference, bound) at the checked rows, computed once."""
        if "judged" not in self._cache:
            from pespec.multiaxis.rope.reference import apply, tolerance

            y = self.output_all(self.x, self.positions)
            assert self.output_dtype is not None
            level = self.level_object()
            bound = tolerance(self.x, self.positions, self.config, level, self.output_dtype)
            self._cache["judged"] = (y, apply(self.x, self.positions, self.config), bound)
        result: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
        result = self._cache["judged"]
        return result


MRopeSuite, check, load_mrope_backend = MRopeRun.suite, MRopeRun.check, MRopeRun.load
"""The family's suite factory, check function and backend loader: the engine's, on an
:class:`MRopeRun`."""
