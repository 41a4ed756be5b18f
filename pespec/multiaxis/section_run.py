"""The run of a multi-axis section kind: what the two kinds' runs share (SPEC §9.5, §9.7).

A kind's run (:class:`pespec.multiaxis.sinusoidal.run.MultiAxisRun`,
:class:`pespec.multiaxis.rope.run.MRopeRun`) is a :class:`SectionRun` given its content: the
kind's preset of ``--config`` (:meth:`SectionRun.resolve`), the rows it checks of the preset's
positions and its contract sample (:meth:`SectionRun.take_rows`), its validated call and level
claim, and the modules of its stages, report fields and diagnosis, imported when first used.
The engine's chores (stage selection, timeout, level resolution, the validated call, the
contract stage) are :class:`~pespec.conformance.chores.EngineRun`'s.
Shapes: positions (n, k), one column per axis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend, BackendCapabilities
from pespec.conformance.chores import EngineRun
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.report import CheckResult, Report
from pespec.multiaxis.combinator import require_config

__all__ = ["SectionCapabilities", "SectionRun", "describe_positions"]


def describe_positions(positions: Any) -> str:
    """Positions (n, k) in words for messages: ``n positions of k axes`` (``?`` for what an
    array of another shape lacks)."""
    p = np.asarray(positions) if positions is not None else np.zeros((0, 0))
    return f"{p.shape[0] if p.ndim else '?'} positions of {p.shape[1] if p.ndim == 2 else '?'} axes"


@dataclass(frozen=True)
class SectionCapabilities(BackendCapabilities):
    """What a multi-axis backend declares: the shared fields, its level read by the kind's
    :meth:`parse_level` (a kind's subclass names it and its calling convention)."""

    def check_level(self) -> None:
        if self.level is not None:
            self.parse_level(self.level)

    @staticmethod
    def parse_level(text: str) -> Any:
        """The kind's level named ``text`` (ValueError naming what is allowed)."""
        raise NotImplementedError


class SectionRun(EngineRun):
    """A multi-axis run: ``config`` resolved to the kind's preset, the engine's chores, then
    the kind's rows of the preset's positions (see the module docstring)."""

    stages_module: ClassVar[str]
    """The kind's module of ``plan(run)`` and ``dispatch(run, planned)``."""
    report_module: ClassVar[str]
    """The kind's module of ``report_fields(run)``."""
    diagnosis_module: ClassVar[str]
    """The kind's module of ``diagnose(run, report)``."""
    positions_argument: ClassVar[int] = 0
    """Which argument of the backend's call holds the positions (for messages)."""

    def __init__(
        self, backend: str | Backend | Callable[..., Any], *, config: Any = None, **options: Any
    ) -> None:
        """``config``: a preset name, a preset, a mapping or a ``.json`` path (None is
        refused, naming the family); ``options``: the engine's (level, profile, timeout,
        stages; :class:`~pespec.conformance.chores.EngineRun`)."""
        self.preset: Any = self.resolve(require_config(config, self.family))
        self.config: Any = self.preset.config
        super().__init__(backend, describe=self.describe_call, **options)
        grid = self.preset.positions()
        self.grid_rows = int(grid.shape[0])
        self.take_rows(grid)

    def resolve(self, config: Any) -> Any:
        """The kind's preset of ``config`` (its ``resolve_config``)."""
        raise NotImplementedError

    def take_rows(self, grid: NDArray[Any]) -> None:
        """Keep the rows checked of the preset's positions ``grid`` (n, k), their inputs and
        the contract stage on a few of them (the kind's content)."""
        raise NotImplementedError

    def describe_call(self, *args: Any) -> str:
        """A backend call's arguments in words: its positions (:func:`describe_positions`)."""
        index = self.positions_argument
        return describe_positions(args[index] if len(args) > index else None)

    def plan(self) -> list[PlannedCheck]:
        planned: list[PlannedCheck] = import_module(self.stages_module).plan(self)
        return planned

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        result: CheckResult = import_module(self.stages_module).dispatch(self, planned)
        return result

    def report_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = import_module(self.report_module).report_fields(self)
        return fields

    def diagnose(self, report: Report) -> None:
        import_module(self.diagnosis_module).diagnose(self, report)
