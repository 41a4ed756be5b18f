"""One planned check of a suite (its id, stage, title and SPEC section), in a module that
imports no NumPy.

Why: the supervising ``pespec check`` process rebuilds the child's plan from these and needs
nothing else of the comparison engine (:mod:`pespec.conformance.compare`, which re-exports
the class); NumPy alone cost that process 0.13 s (issue 37).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pespec.conformance.report import CheckResult

__all__ = ["PlannedCheck"]


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
