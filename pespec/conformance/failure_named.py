"""What failed, in words, for a diagnosis that found nothing to name (issue 27 item 4).

A failed verdict never stands beside a diagnosis sentence saying that nothing is wrong: when
the family's diagnosis names no cause, its sentence ends with the first failed check, where
(position, column) and by how much, and how many other checks failed. The families decide
when their sentence names no cause; this module only words the failure (SPEC Annex D.6).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pespec.conformance.report import CheckResult, Report

__all__ = ["MAX_NAMED", "what_failed", "with_what_failed"]

MAX_NAMED: Final = 3
"""Other failed checks named by id after the first (the rest are counted)."""


def _number(value: float | None) -> str:
    if value is None:
        return "?"
    number = float(value)
    return f"{int(number)}" if number.is_integer() else f"{number!r}"


def _first_clause(message: str, limit: int = 160) -> str:
    """The message up to its first sentence end, its "; " clauses until one repeats the
    first (a message listing the same problem per call), at most ``limit`` characters."""
    parts = message.strip().split(". ")[0].rstrip(".").split("; ")
    kept = [parts[0]]
    for part in parts[1:]:
        if part[:24] == parts[0][:24] or len("; ".join([*kept, part])) > limit:
            break
        kept.append(part)
    text = "; ".join(kept)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _one(check: CheckResult) -> str:
    where = ""
    if check.worst_position is not None:
        where = f" at position {_number(check.worst_position)}"
        if check.worst_column is not None:
            where += f", column {check.worst_column}"
    size = ""
    if check.max_error is not None and check.bound is not None:
        size = f" (|error| {check.max_error:.3g} > bound {check.bound:.3g})"
    if where or size:
        return f"check {check.id} failed{where}{size}"
    return f"check {check.id} failed: {_first_clause(check.message)}"


def what_failed(failed: Sequence[CheckResult]) -> str:
    """``check X failed at position P, column C (|error| e > bound b)``, then the ids of up
    to :data:`MAX_NAMED` other failed checks and the count of the rest; "" when none failed."""
    if not failed:
        return ""
    text = _one(failed[0])
    others = [c.id for c in failed[1:]]
    if others:
        shown = ", ".join(others[:MAX_NAMED])
        more = f" and {len(others) - MAX_NAMED} more" if len(others) > MAX_NAMED else ""
        text += f"; also failed: {shown}{more}"
    return text


def with_what_failed(report: Report, sentence: str | None) -> str:
    """``sentence`` (a diagnosis that names no cause) followed by what failed and where."""
    failed = [c for c in report.checks if c.status == "failed"]
    named = what_failed(failed)
    if not named:
        return sentence or ""
    lead = (sentence or "").rstrip().rstrip(".")
    return f"{lead}; what failed: {named}." if lead else f"What failed: {named}."
