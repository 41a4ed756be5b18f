"""A failed verdict never stands beside a diagnosis sentence that names no cause (issue 27
item 4): the engine's wording of what failed (pespec.conformance.failure_named), the sinusoidal
family's use of it, and a walk over the committed sinusoidal snapshot's failed verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pespec.conformance.failure_named import what_failed, with_what_failed
from pespec.conformance.report import CheckResult
from pespec.sinusoidal.failure_named import NO_CAUSE, name_failures

SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots" / "verdicts.json"


def _check(cid: str, status: str = "failed", **kw: Any) -> CheckResult:
    return CheckResult(cid, cid.partition(":")[0], "t", "6", status, **kw)


def test_what_failed_names_the_first_check_where_and_by_how_much() -> None:
    failed = [
        _check(
            "golden:x", message="m", max_error=0.5, bound=0.001, worst_position=2.5, worst_column=3
        ),
        *[_check(f"property:p{i}", message="violated. details") for i in range(5)],
    ]
    text = what_failed(failed)
    assert text == (
        "check golden:x failed at position 2.5, column 3 (|error| 0.5 > bound 0.001); also "
        "failed: property:p0, property:p1, property:p2 and 2 more"
    )
    assert what_failed([_check("contract:shape", message="wrong shape (3,). More")]) == (
        "check contract:shape failed: wrong shape (3,)"
    )
    assert what_failed([]) == ""


def test_sinusoidal_sentence_naming_no_cause_gets_what_failed() -> None:
    quiet = f"Output matches the canonical convention computed in float64; {NO_CAUSE}."
    checks = [_check("contract:ok", "passed"), _check("contract:input-unchanged", message="x")]
    report = SimpleNamespace(checks=checks, failed=checks[1:], diagnosis_sentence=quiet)
    name_failures(report)  # type: ignore[arg-type]
    assert report.diagnosis_sentence == (
        f"{quiet[:-1]}; what failed: check contract:input-unchanged failed: x."
    )
    named = "Output matches the tensor2tensor convention."
    report = SimpleNamespace(checks=checks, failed=checks[1:], diagnosis_sentence=named)
    name_failures(report)  # type: ignore[arg-type]
    assert report.diagnosis_sentence == named  # a sentence naming a cause is kept as it is
    report = SimpleNamespace(checks=checks, failed=checks[1:], diagnosis_sentence=None)
    name_failures(report)  # type: ignore[arg-type]
    assert report.diagnosis_sentence == "What failed: check contract:input-unchanged failed: x."
    assert with_what_failed(report, "") == report.diagnosis_sentence  # type: ignore[arg-type]


def test_the_committed_sinusoidal_snapshot_names_what_failed() -> None:
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    bad = [
        name
        for name, entry in data.items()
        if entry["verdict"] != "conformant"
        and (
            not entry["diagnosis_sentence"]
            or "no bug found" in entry["diagnosis_sentence"]
            or (
                NO_CAUSE in entry["diagnosis_sentence"]
                and "what failed" not in entry["diagnosis_sentence"]
            )
        )
    ]
    assert not bad


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mutates_input", "float64_claiming_float32", "raises"])
def test_misbehaving_catalog_backends_say_what_failed(name: str) -> None:
    from catalog import misbehaving

    from pespec.conformance import check

    report = check(getattr(misbehaving, name), examples=2, shrink=False)
    assert not report.conformant
    sentence = report.diagnosis_sentence or ""
    assert "what failed: check contract:" in sentence.lower(), sentence
