"""The sinusoidal family's part of a report (SPEC §6.4): the convention judged against.

Every report carries, right after ``level``, the JSON field ``convention``
(``Convention.to_dict()`` plus ``declared``: whether the backend or the caller declared it;
schema 1.3's key order), and its verdict line names it: ``level float32, convention whisper
(declared)``. This module gives the engine's :class:`~pespec.conformance.report.Report` those
as data: :func:`report_fields` when the suite or the from-file check builds a report,
:func:`rebuilt` and :func:`refresh` when :mod:`pespec.supervised.report_load` reads one back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pespec.conformance.report import Report

__all__ = [
    "FAMILY",
    "judged_texts",
    "level_fields",
    "not_declared",
    "rebuilt",
    "refresh",
    "report_fields",
]

FAMILY = "sinusoidal"
"""The family's name in the registry and in the report's ``family`` field."""


def not_declared() -> dict[str, Any]:
    """The ``convention`` of a report that judged against no declared convention: canonical.

    A function, so that reading a report back (the supervising process) imports no reference
    (``pespec.sinusoidal.reference`` loads the encodings: 0.1 s, issue 37)."""
    from pespec.sinusoidal.reference.conventions import CANONICAL

    return {**CANONICAL.to_dict(), "declared": False}


def judged_texts(convention: Mapping[str, Any] | None) -> tuple[str, str]:
    """(``convention NAME (declared)``, the same in Markdown) of a ``convention`` field."""
    name = "canonical" if convention is None else str(convention.get("name", "custom"))
    declared = " (declared)" if convention and convention.get("declared") else ""
    return f"convention {name}{declared}", f"convention `{name}`{declared}"


def report_fields(convention: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The :class:`Report` keywords of a sinusoidal report judged against ``convention``
    (``Convention.to_dict()`` plus ``declared``; None: canonical, not declared)."""
    block = not_declared() if convention is None else dict(convention)
    judged, judged_markdown = judged_texts(block)
    return {
        "family": FAMILY,
        "family_head": {"convention": block},
        "judged": judged,
        "judged_markdown": judged_markdown,
    }


def level_fields(level: Any) -> dict[str, Any]:
    """The :class:`Report` keywords of the level a file or table was judged at (a
    :class:`~pespec.sinusoidal.properties.base.Level`; None: unknown, its dtype is not one
    pespec knows): its output dtype, name and working dtype."""
    if level is None:
        return {"output_dtype": None, "level": None, "working_dtype": None}
    return {
        "output_dtype": level.output_dtype,
        "level": level.name,
        "working_dtype": level.working_dtype,
    }


def refresh(report: Report) -> None:
    """Derive the report's verdict-line text again from its ``convention`` field."""
    report.judged, report.judged_markdown = judged_texts(report.family_head.get("convention"))


def rebuilt(report: Report, data: Mapping[str, Any]) -> None:
    """Make ``report``, read back from the JSON document ``data``, name its convention again
    (the field itself is already in ``report.family_head``)."""
    refresh(report)
