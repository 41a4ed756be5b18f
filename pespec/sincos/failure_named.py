"""The sinusoidal diagnosis never says that nothing is wrong beside a failed verdict (issue 27
item 4): when its sentence names no cause (the output matches the expected convention at the
level's precision, or there is no sentence), what failed and where is added
(:func:`pespec.conformance.failure_named.with_what_failed`). Every other sentence is kept.
"""

from __future__ import annotations

from typing import Final

from pespec.conformance.failure_named import with_what_failed
from pespec.conformance.report import Report

__all__ = ["NO_CAUSE", "name_failures", "names_no_cause"]

NO_CAUSE: Final = "the failure is neither a different convention nor a lower working precision"
"""The diagnosis' wording when the output matches the convention (pespec.sincos.diagnosis)."""


def names_no_cause(sentence: str | None) -> bool:
    """True when a diagnosis sentence names no cause (empty, or :data:`NO_CAUSE`)."""
    return not sentence or NO_CAUSE in sentence or "no bug found" in sentence


def name_failures(report: Report) -> None:
    """Add what failed and where to a failed report's sentence that names no cause."""
    if report.failed and names_no_cause(report.diagnosis_sentence):
        report.diagnosis_sentence = with_what_failed(report, report.diagnosis_sentence)
