"""The toy family's report fields and diagnosis (the run's ``hooks``), and its report hooks
(:mod:`pespec.families`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pespec.conformance.contract import BackendFailure
from pespec.conformance.report import Report
from toyfamily.reference import slope

__all__ = ["SLIPS", "diagnose", "rebuilt", "refresh", "report_fields"]

COMMAND = "pespec check --family toy"


def _judged(heads: list[int]) -> str:
    return f"heads {', '.join(str(h) for h in heads)}"


def report_fields(run: Any) -> dict[str, Any]:
    """The :class:`Report` keywords of a toy report: the JSON field ``heads``, what the
    verdict is relative to, the command."""
    heads = run.heads
    return {
        "output_dtype": run.output_dtype,
        "level": run.level,
        "working_dtype": None,
        "command": COMMAND,
        "family_data": {"heads": list(heads)},
        "judged": _judged(list(heads)),
        "markdown_extra": [f"- {_judged(list(heads))} (ALiBi slopes 2^(-8h/H))"],
        "diagnosis_in_summary": True,
    }


def rebuilt(report: Report, data: dict[str, Any]) -> None:
    """A toy report read back from its JSON (the supervised run's parent): derive the text."""
    report.command = COMMAND
    report.diagnosis_in_summary = True
    refresh(report)


def refresh(report: Report) -> None:
    """Derive the report's text again from its data."""
    report.judged = _judged(list(report.family_data.get("heads", [])))
    report.markdown_extra = [f"- {report.judged} (ALiBi slopes 2^(-8h/H))"]


SLIPS: dict[str, Any] = {
    "heads counted from 0 (h = 0..H-1)": lambda h, n: 2.0 ** (-8.0 * (h - 1) / n),
    "slopes in reverse order": lambda h, n: slope(n + 1 - h, n),
    "exponent -h/H, the factor 8 left out": lambda h, n: 2.0 ** (-h / n),
}
"""Known slips: the slope each gives head h of n heads (h = 1..n)."""


def diagnose(run: Any, report: Report) -> None:
    """Name the slip whose slopes the backend returns for the largest failed H, if any (a
    slip that changes nothing there, such as reversing one slope, is not named)."""
    failed = [c for c in report.checks if c.status == "failed" and c.stage == "reference"]
    if not failed:
        return
    heads = int(failed[-1].id.rpartition("-")[2])
    try:
        out = run.guard.raw_call(heads).astype(np.float64)
    except BackendFailure:
        return
    for name, slip in SLIPS.items():
        want = np.array([slip(h, heads) for h in range(1, heads + 1)])
        exact = np.array([slope(h, heads) for h in range(1, heads + 1)])
        if np.allclose(want, exact, rtol=1e-12, atol=0):
            continue
        if out.shape == want.shape and np.allclose(out, want, rtol=1e-12, atol=0):
            report.diagnosis = {"slip": name, "heads": heads}
            report.diagnosis_sentence = f"the slopes are those of a known slip: {name}"
            return
    report.diagnosis_sentence = "no known slip reproduces the slopes"
