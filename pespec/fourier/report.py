"""The Fourier family's report fields and report hooks (:mod:`pespec.families`)."""

from __future__ import annotations

from typing import Any

from pespec.conformance.report import Report
from pespec.fourier.convention import FourierConvention

__all__ = ["judged", "rebuilt", "refresh", "report_fields"]

COMMAND = "pespec check --family fourier"


def judged(config: dict[str, Any]) -> str:
    """What the verdict is relative to, in words."""
    return (
        f"convention {config.get('name')} (π factor {config.get('pi')}, law {config.get('law')}, "
        f"blocks {config.get('blocks')}, raw input {config.get('raw')}, domain "
        f"{config.get('domain')})"
    )


def report_fields(
    conv: FourierConvention, output_dtype: str | None, level: str | None
) -> dict[str, Any]:
    """The :class:`Report` keywords of a Fourier report: the JSON field ``config``, what the
    verdict is relative to, the command."""
    config = conv.to_dict()
    return {
        "output_dtype": output_dtype,
        "level": level,
        "working_dtype": None,
        "command": COMMAND,
        "family_data": {"config": config},
        "judged": judged(config),
        "markdown_extra": [f"- {judged(config)}"],
        "diagnosis_in_summary": True,
    }


def rebuilt(report: Report, data: dict[str, Any]) -> None:
    """A Fourier report read back from its JSON (the supervised run's parent)."""
    report.command = COMMAND
    report.diagnosis_in_summary = True
    refresh(report)


def refresh(report: Report) -> None:
    """Derive the report's text again from its data."""
    report.judged = judged(dict(report.family_data.get("config", {})))
    report.markdown_extra = [f"- {report.judged}"]
