"""A multi-axis report's text, the same for both section kinds (SPEC §9.6, §9.7).

A kind's report (:mod:`pespec.multiaxis.sinusoidal.report`, :mod:`pespec.multiaxis.rope.report`)
holds its configuration's ``to_dict()`` under ``family_data["config"]`` (its ``name`` and its
``sections``, each with its ``axis``) and its rows; :class:`SectionText` says what the kind
writes of them, and gives the judged line ``<family> <name> (<head>: <section>, ...)`` and the
Markdown lines (the judged line, the rows line, one line per section ``section i: axis a,
...``) as the engine's :class:`~pespec.conformance.derived_text.DerivedText`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pespec.conformance.derived_text import DerivedText
from pespec.conformance.report import Report

__all__ = ["SectionText"]

Words = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class SectionText:
    """What a kind writes of its report data: ``head`` (of the configuration, before its
    sections in the judged line), ``part`` (of a section, in the judged line), ``rows`` (of
    the data: the rows checked) and ``section`` (of a section, its Markdown line after its
    axis); what a run gives of its data besides the configuration (``data(run)``) and its
    level's working dtype (``working(level)``, in the kind's terms)."""

    family: str
    head: Words
    part: Words
    rows: Words
    section: Words
    data: Callable[[Any], dict[str, Any]]
    working: Callable[[Any], str | None]

    def judged(self, data: dict[str, Any]) -> str:
        """What the verdict is relative to, in words."""
        config = data.get("config", {})
        parts = ", ".join(self.part(s) for s in config.get("sections", []))
        return f"{self.family} {config.get('name', 'custom')} ({self.head(config)}: {parts})"

    def markdown(self, data: dict[str, Any]) -> list[str]:
        """The report's Markdown lines of the data."""
        lines = [f"- {self.judged(data)}", f"- {self.rows(data)}"]
        for index, section in enumerate(data.get("config", {}).get("sections", [])):
            lines.append(f"- section {index}: axis {section.get('axis')}, {self.section(section)}")
        return lines

    @property
    def text(self) -> DerivedText:
        """The report text of the kind: built, read back and refreshed from the data."""
        return DerivedText(f"pespec check --family {self.family}", self.judged, self.markdown)

    @property
    def command(self) -> str:
        """The command that checks the kind."""
        return self.text.command

    def fields(self, run: Any) -> dict[str, Any]:
        """The :class:`~pespec.conformance.report.Report` keywords of the kind's ``run`` (a
        run or a file seen as one): the family data ``{"config": ..., **data(run)}``."""
        data = {"config": run.config.to_dict(), **self.data(run)}
        working = None if run.level is None else self.working(run.level_object())
        return self.text.fields(data, run.output_dtype, run.level, working)

    def rebuilt(self, report: Report, data: dict[str, Any]) -> None:
        """A report read back from its JSON: derive its text again."""
        self.text.rebuilt(report, data)

    def refresh(self, report: Report) -> None:
        """Derive the report's text again from its data."""
        self.text.refresh(report)
