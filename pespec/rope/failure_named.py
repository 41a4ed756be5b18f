"""The rotary diagnosis never says "no bug found" beside a failed verdict (issue 27 item 4).

After the probes' diagnosis (:mod:`pespec.rope.diagnosis`), :func:`name_failures`:

1. when a failed check's worst position is fractional or beyond the probes' range, probes
   those positions (:func:`pespec.rope.diagnosis.positions.probe_positions`; the finding goes
   to ``diagnosis["failed_positions"]``) and adds what it found to the sentence when the
   probes' sentence names no cause;
2. when the sentence still names no cause ("no bug found", or none at all), rewrites it to
   say what failed and where (:func:`pespec.conformance.failure_named.with_what_failed`).
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from pespec.conformance.failure_named import with_what_failed
from pespec.conformance.report import Report

__all__ = ["NO_CAUSE", "name_failures", "names_no_cause"]

NO_CAUSE: Final = ": no bug found"
"""The probes' wording when they find the configured rotation (pespec.rope.diagnosis.report)."""


class _Run(Protocol):
    guard: Any
    config: Any
    domain: Any
    rope_level: Any
    output_dtype: str | None


def names_no_cause(sentence: str | None) -> bool:
    """True when a diagnosis sentence names no cause (empty, or "no bug found")."""
    return not sentence or "no bug found" in sentence


def _failing_positions(report: Report) -> list[float]:
    return [
        float(c.worst_position)
        for c in report.checks
        if c.status == "failed" and isinstance(c.worst_position, (int, float))
    ]


def _probe(run: _Run, report: Report) -> Any:
    """The finding at the failing fractional/large positions, or None."""
    from pespec.rope.diagnosis.positions import probe_positions
    from pespec.rope.guard import rope_call

    if run.rope_level is None or run.output_dtype is None or run.guard.hung:
        return None

    def call(x: Any, positions: Any) -> Any:
        return rope_call(run.guard, x, positions, run.config)

    return probe_positions(
        call,
        run.config,
        _failing_positions(report),
        run.rope_level,
        run.output_dtype,
        float(run.domain.max_position),
    )


def name_failures(run: _Run, report: Report) -> None:
    """Probe the failing unusual positions, then make the sentence name what failed when
    it names no cause (see the module docstring). Never raises for a backend."""
    if not report.failed:
        return
    try:
        finding = _probe(run, report)
    except Exception:  # advice only: it must never hide the verdict
        finding = None
    sentence = report.diagnosis_sentence
    if finding is not None:
        report.diagnosis = {**(report.diagnosis or {}), "failed_positions": finding.to_dict()}
        if names_no_cause(sentence) and finding.ratio > 1.0:
            lead = (sentence or "").replace(NO_CAUSE, ": the integer probes name no slip")
            lead = lead.rstrip().rstrip(".")
            sentence = f"{lead}; {finding.sentence()}." if lead else f"{finding.sentence()}."
            report.diagnosis_sentence = with_what_failed(report, sentence)
            return
    if names_no_cause(sentence):
        lead = (sentence or "").replace(NO_CAUSE, ": the probes name no slip")
        report.diagnosis_sentence = with_what_failed(report, lead)
