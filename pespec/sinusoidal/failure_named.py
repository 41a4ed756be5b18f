"""The sinusoidal diagnosis never says that nothing is wrong beside a failed verdict (issue 27
item 4), and names a wrong base with its measured value (issue 27 item 1).

When the diagnosis sentence names no cause (the output matches the expected convention at the
level's precision, or there is no sentence), what failed and where is added
(:func:`pespec.conformance.failure_named.with_what_failed`). When it names no base and matches
no known convention or names no cause, the measurement of :mod:`pespec.sinusoidal.measure` (one
backend call) adds the measured base when it differs from the requested one beyond its
precision. Every other sentence is kept as it is.
"""

from __future__ import annotations

from typing import Any, Final

from pespec.conformance.failure_named import with_what_failed
from pespec.conformance.report import Report
from pespec.sinusoidal.measure import base_clause, measure

__all__ = ["MEASURE_BASE", "MEASURE_D_MODEL", "NO_CAUSE", "name_failures", "names_no_cause"]

NO_CAUSE: Final = "the failure is neither a different convention nor a lower working precision"
"""The diagnosis' wording when the output matches the convention (pespec.sinusoidal.diagnosis)."""

UNEXPLAINED: Final = "matches no known convention"
"""The diagnosis' wording when no member of the family explains the output."""

MEASURE_D_MODEL: Final = 64
MEASURE_BASE: Final = 10000.0


def names_no_cause(sentence: str | None) -> bool:
    """True when a diagnosis sentence names no cause (empty, or :data:`NO_CAUSE`)."""
    return not sentence or NO_CAUSE in sentence or "no bug found" in sentence


def _measured_clause(report: Report, run: Any) -> str | None:
    """The measured-base clause (None: not measured, or nothing to add); records the
    measurement under ``diagnosis["measured"]`` when it adds one."""
    sentence = report.diagnosis_sentence
    if run is None or getattr(run.guard, "hung", False):
        return None
    if sentence and "base" in sentence:
        return None
    if not (names_no_cause(sentence) or UNEXPLAINED in (sentence or "")):
        return None
    caps = run.backend.capabilities
    d_model = min(MEASURE_D_MODEL, caps.max_d_model or MEASURE_D_MODEL)
    bases = caps.bases
    base = MEASURE_BASE if not bases or MEASURE_BASE in bases else float(bases[0])
    found = measure(run.guard.raw_call, d_model, base, run.convention, caps.max_position)
    clause = base_clause(found, sentence)
    if clause is not None and found is not None:
        report.diagnosis = {**(report.diagnosis or {}), "measured": found.to_dict()}
    return clause


def name_failures(report: Report, run: Any = None) -> None:
    """Add the measured base (``run``: the sinusoidal run, for its guarded backend) and what
    failed and where to a failed report's sentence that names no cause."""
    if not report.failed:
        return
    try:
        clause = _measured_clause(report, run)
    except Exception:  # advice only: it must never hide the verdict
        clause = None
    if clause is not None:
        lead = (report.diagnosis_sentence or "").rstrip().rstrip(".")
        report.diagnosis_sentence = (
            f"{lead}; {clause}." if lead else f"{clause[0].upper()}{clause[1:]}."
        )
    if names_no_cause(report.diagnosis_sentence):
        report.diagnosis_sentence = with_what_failed(report, report.diagnosis_sentence)
