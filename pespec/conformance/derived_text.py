"""A report's text derived from its family data, for the families that derive it the same way.

A family whose report text (the ``judged`` line, the Markdown lines) is a function of its
``family_data`` alone builds a :class:`DerivedText` once and uses it for the three moments
of a report: built from a run (:meth:`DerivedText.fields`), read back from its JSON
(:meth:`DerivedText.rebuilt`) and refreshed after its data changed
(:meth:`DerivedText.refresh`). It names no family.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pespec.conformance.report import Report

__all__ = ["DerivedText"]


@dataclass(frozen=True)
class DerivedText:
    """The command that checks a family, and its judged line and Markdown lines of the data."""

    command: str
    judged: Callable[[dict[str, Any]], str]
    markdown: Callable[[dict[str, Any]], list[str]]

    def fields(
        self,
        data: dict[str, Any],
        output_dtype: str | None,
        level: str | None,
        working_dtype: str | None,
    ) -> dict[str, Any]:
        """The :class:`Report` keywords of a run with family data ``data``."""
        return {
            "output_dtype": output_dtype,
            "level": level,
            "working_dtype": working_dtype,
            "command": self.command,
            "family_data": data,
            "judged": self.judged(data),
            "markdown_extra": self.markdown(data),
            "diagnosis_in_summary": True,
        }

    def rebuilt(self, report: Report, data: dict[str, Any]) -> None:
        """A report read back from its JSON: derive its text again."""
        report.command = self.command
        report.diagnosis_in_summary = True
        self.refresh(report)

    def refresh(self, report: Report) -> None:
        """Derive the report's text again from its data."""
        report.judged = self.judged(report.family_data)
        report.markdown_extra = self.markdown(report.family_data)
