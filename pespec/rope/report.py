"""The rotary family's part of a report (SPEC R8.15): the rotary configuration, the level as a
stage tuple, the position domain checked and the configuration reader's notes.

A rotary report is a :class:`~pespec.conformance.report.Report` (family ``rope``) whose
family fields this module fills: :func:`report_fields` when the suite or the from-file check
builds it, :func:`refresh` after its data changed (the domain advice, the reader's notes, the
level found late), :func:`rebuilt` when :mod:`pespec.supervised.report_load` reads it back
from its JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pespec.conformance.report import Report

__all__ = ["COMMAND", "FAMILY", "rebuilt", "refresh", "report_fields", "set_notes"]

FAMILY: Final = "rope"
COMMAND: Final = "pespec rope check"

SHARED_CONVENTION: Final[dict[str, Any]] = {
    "name": "canonical",
    "layout": "interleaved",
    "frequency_shift": 0.0,
    "position_offset": 0,
    "argument_scale": 1.0,
    "declared": False,
}
"""The report schema 1.3's ``convention`` field (after ``level``), which every report has
carried since the sinusoidal family's reports defined it: a rotary report writes the canonical
one, not declared, as it always has (the value has no rotary meaning)."""

SCORE_MODE_CLAIM: Final = (
    ", mode scores: the verdict is on q·k scores (CONFORMANT: q·k scores conform; the element "
    "layout was not judged)"
)
"""What a score-mode verdict claims, on its verdict line (SPEC R8.14, Annex A.9)."""

SHARED_CONVENTION_MARKDOWN: Final = "convention `canonical`"
"""The end of a rotary report's Markdown verdict line, as it has always read."""


def report_fields(
    *,
    config: dict[str, Any] | None,
    level_stages: Mapping[str, str] | None,
    domain: Mapping[str, Any] | None = None,
    config_notes: Sequence[str] | None = None,
    advice: str | None = None,
    mode: str = "elements",
) -> dict[str, Any]:
    """The :class:`Report` keywords of a rotary report: ``config`` (``RopeConfig.to_dict()``),
    the level's stages (phase, cache, rotation; None while unknown), the position domain
    (``PositionDomain.to_dict()``), the reader's notes, the domain advice and the check mode
    (``elements`` or ``scores``, :mod:`pespec.rope.scores`; schema 1.4)."""
    data: dict[str, Any] = {
        "config": config,
        "config_notes": list(config_notes or ()),
        "domain": None if domain is None else dict(domain),
        "mode": mode,
    }
    fields: dict[str, Any] = {
        "family": FAMILY,
        "command": COMMAND,
        "family_head": {"convention": dict(SHARED_CONVENTION)},
        "judged_markdown": SHARED_CONVENTION_MARKDOWN,
        "family_data": data,
        "level_stages": dict(level_stages or {}),
        "advice": advice,
        "diagnosis_in_summary": True,
    }
    fields["judged"], fields["markdown_extra"] = _texts(data, fields["level_stages"], advice)
    if data["domain"] is not None:
        data["domain"]["advice"] = advice
    return fields


def refresh(report: Report) -> None:
    """Derive the report's rotary text again from its data (after the advice, the notes or
    the level stages changed); the JSON ``domain`` carries the advice."""
    data = report.family_data
    domain = data.get("domain")
    if domain is not None:
        data["domain"] = {**{k: v for k, v in domain.items() if k != "advice"}}
        data["domain"]["advice"] = report.advice
    report.judged, report.markdown_extra = _texts(data, report.level_stages or {}, report.advice)


def set_notes(report: Report, notes: Sequence[str]) -> None:
    """Set what the configuration reader filled in (shown with the verdict, JSON
    ``config_notes``)."""
    report.family_data["config_notes"] = list(notes)
    refresh(report)


def rebuilt(report: Report, data: Mapping[str, Any]) -> None:
    """Make ``report``, read back from the JSON document ``data``, rotary again: the level's
    stages and the advice come from ``data`` (its family fields already are in
    ``report.family_data``)."""
    domain = data.get("domain")
    report.command = COMMAND
    report.judged_markdown = SHARED_CONVENTION_MARKDOWN
    report.diagnosis_in_summary = True
    report.level_stages = dict(data["level"].get("stages") or {})
    report.advice = None if not domain else domain.get("advice")
    report.family_data["config_notes"] = list(data.get("config_notes") or ())
    refresh(report)


def _texts(
    data: Mapping[str, Any], stages: Mapping[str, str], advice: str | None
) -> tuple[str, list[str]]:
    """(what the verdict is judged against besides the level, the Markdown header lines)."""
    config = data.get("config") or {}
    domain = data.get("domain")
    where = f" on {domain['description']}" if domain else ""
    notes = "".join(f" ({note})" for note in data.get("config_notes") or ())
    judged = (
        f"rope {config.get('rope_type', 'unknown')} θ = {config.get('theta', 'unknown')!s}"
        f"{notes}{where}{SCORE_MODE_CLAIM if data.get('mode') == 'scores' else ''}"
    )
    shown = ", ".join(f"{k} {v}" for k, v in stages.items())
    extra = [
        f"- rotary configuration: `{json.dumps(data.get('config'))}`",
        f"- level stages: {shown or 'unknown'}",
        f"- positions checked: {(domain or {}).get('description', 'unknown')}",
    ]
    if data.get("mode") == "scores":
        extra.append(f"- mode scores{SCORE_MODE_CLAIM.partition(',')[2]}")
    if advice:
        extra.append(f"- {advice}")
    return judged, extra
