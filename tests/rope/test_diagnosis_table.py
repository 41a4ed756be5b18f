"""The measured-vs-declared table (issue 27, SPEC Annex D.9): JSON all pairs, Markdown, terminal.

The backend computes θ = 10^6 where the configuration says 10^4 (d_r = 128), so the measured
ω̂_j over the declared ω_j is (10^6/10^4)^(−2j/128) = 100^(−j/64) by the slip's definition;
pair 0 (ω = 1 either way) does not deviate, every other pair does.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest

from pespec.conformance.measured_table import TERMINAL_ROWS, terminal_lines
from pespec.rope import PRESETS, check
from pespec.rope.diagnosis import diagnose
from pespec.rope.diagnosis.examples import numpy_backend, table_backend
from pespec.rope.schedules import frequencies

LLAMA2 = PRESETS["Llama-2-7B"]


def _theta_slip() -> Any:
    return table_backend(*frequencies(dataclasses.replace(LLAMA2, theta=1e6)))


@pytest.fixture(scope="module")
def report() -> Any:
    return check(_theta_slip(), LLAMA2, profile="ci", stages=("contract", "golden", "reference"))


def test_every_pair_measured_against_its_definition() -> None:
    table = diagnose(_theta_slip(), LLAMA2).to_dict()["measured_vs_declared"]
    columns, rows = table["columns"], table["rows"]
    assert len(rows) == 64
    for row in rows:
        record = dict(zip(columns, row, strict=True))
        j = record["pair"]
        # float32 ω stored (2^-24) and the measurement's own precision: 1e-6 relative
        assert math.isclose(record["ratio"], 100.0 ** (-j / 64), rel_tol=1e-6), record
        assert record["deviates"] is (j > 0)
        assert math.isclose(record["attention_measured"], 1.0, rel_tol=1e-6)
        assert record["precision"] <= 1e-6 * record["omega_measured"]


def test_json_keeps_all_pairs(report: Any) -> None:
    assert not report.conformant
    doc = json.loads(json.dumps(report.to_dict()))
    assert doc["schema_version"] == "1.5"
    assert len(doc["diagnosis"]["measured_vs_declared"]["rows"]) == 64
    assert "θ measured 1.00000e6" in doc["diagnosis_sentence"]


def test_markdown_shows_the_table(report: Any) -> None:
    text = report.to_markdown()
    assert "### Measured vs declared" in text
    body = text.split("### Measured vs declared", 1)[1]
    assert sum(line.startswith("| 6") for line in body.splitlines()) >= 5  # pairs 6, 60–63


def test_terminal_shows_the_first_deviating_pairs(report: Any) -> None:
    lines = terminal_lines(report.diagnosis)
    assert lines[0].startswith("measured vs declared (63 of 64 deviate")
    assert len(lines) == 2 + TERMINAL_ROWS
    assert lines[2].split()[0] == "1"  # pair 0 does not deviate


def test_a_correct_backend_shows_no_deviating_pair() -> None:
    result = diagnose(numpy_backend(float), LLAMA2).to_dict()
    assert terminal_lines(result) == []
    assert not any(row[-1] for row in result["measured_vs_declared"]["rows"])


@pytest.mark.parametrize("verbose", [False, True])
def test_the_cli_prints_the_deviating_pairs(
    report: Any, verbose: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    from pespec.cli.verdict import _print_report

    _print_report(report, quiet=False, verbose=verbose)
    out = capsys.readouterr().out
    assert "measured vs declared (63 of 64 deviate" in out
