"""Reports (pespec.conformance.report): the versioned JSON schema, null for non-finite
numbers, the Markdown verdict, the SPEC's schema table, and rows of a raising backend.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from catalog import misbehaving

from pespec.conformance import check
from pespec.conformance.report import REPORT_SCHEMA, REPORT_SCHEMA_VERSION, SUITE_VERSION

FAST = {"stages": ("contract",), "diagnose": False}


def test_json_report_has_the_versioned_schema(tmp_path: Path) -> None:
    report = check(misbehaving.raises, **FAST)  # type: ignore[arg-type]
    path = tmp_path / "sub" / "report.json"
    report.write_json(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == REPORT_SCHEMA and data["schema_version"] == REPORT_SCHEMA_VERSION
    assert data["suite_version"] == SUITE_VERSION and data["spec_version"]
    assert data["verdict"] == "non-conformant" and data["conformant"] is False
    assert data["backend"]["name"] == "raises"
    assert {"device", "libraries", "python", "platform"} <= set(data["execution"])
    assert [c["id"] for c in data["checks"]] == [
        "contract:shape",
        "contract:dtype",
        "contract:finite",
        "contract:deterministic",
        "contract:input-unchanged",
    ]
    assert all(c["status"] == "failed" for c in data["checks"])
    assert data["timestamp"].endswith("+00:00")
    assert not list(path.parent.glob(".*.tmp"))  # atomic write left no temporary file


def test_non_finite_numbers_become_null_in_json() -> None:
    report = check(misbehaving.raises, **FAST)  # type: ignore[arg-type]
    report.checks[0].max_error = math.nan
    report.checks[0].bound = math.inf
    text = report.to_json()  # allow_nan=False: would raise on NaN
    assert json.loads(text)["checks"][0]["max_error"] is None


def test_markdown_report_states_verdict_and_reproductions(tmp_path: Path) -> None:
    report = check(misbehaving.raises, **FAST)  # type: ignore[arg-type]
    path = tmp_path / "report.md"
    report.write_markdown(path)
    text = path.read_text(encoding="utf-8")
    assert "**Verdict: non-conformant**" in text
    assert "| `contract:shape` | failed |" in text
    assert "## Reproductions" in text


def test_spec_schema_table_names_exactly_the_report_fields() -> None:
    from pespec.specblocks.conformance import REPORT_FIELDS

    report = check(misbehaving.raises, **FAST)  # type: ignore[arg-type]
    documented = {name.strip() for row, _ in REPORT_FIELDS for name in row.split(",")}
    documented = {name.removesuffix("[]") for name in documented}
    assert documented == set(report.to_dict())
    check_fields = next(text for row, text in REPORT_FIELDS if row == "checks[]")
    assert {f.strip() for f in check_fields.split(",")} == set(report.checks[0].to_dict())


@pytest.mark.slow
def test_a_raising_backend_shows_no_error_numbers_in_property_rows(tmp_path: Path) -> None:
    # No output means no |error| and no bound: the rows said inf and 0 (a ratio of inf).
    report = check(
        misbehaving.raises,  # type: ignore[arg-type]
        level="float64",
        stages=("property",),
        examples=2,
        shrink=False,
        diagnose=False,
    )
    rows = [c for c in report.checks if c.status == "failed"]
    assert len(rows) >= 8  # every property but low_precision (not applicable at float64)
    for row in rows:
        assert (row.max_error, row.bound, row.ratio) == (None, None, None), row.id
        assert "the backend raised RuntimeError: kernel launch failed" in row.message
        assert "BackendFailure" not in row.message
    for entry in json.loads(report.to_json())["checks"]:
        if entry["status"] == "failed":
            assert (entry["max_error"], entry["bound"], entry["ratio"]) == (None, None, None)
    path = tmp_path / "report.md"
    report.write_markdown(path)
    text = path.read_text(encoding="utf-8")
    for row in rows:
        assert f"| `{row.id}` | failed |  |  |" in text
    assert "| inf |" not in text


def test_a_long_not_run_list_is_condensed_on_the_verdict_line() -> None:
    """A backend that ended the process leaves ~30 checks not run: the verdict line names the
    first three and the count (the JSON keeps every one with why), not a 1,000-character list."""
    report = check("numpy", stages=("contract",), diagnose=False)
    many = {f"golden:set-{i}": "the backend ended the process" for i in range(30)}
    report.not_run = many
    line = report.headline()
    assert "golden:set-0, golden:set-1, golden:set-2 and 27 more" in line
    assert "golden:set-3" not in line
    assert report.to_dict()["not_run"] == many
    report.not_run = dict(list(many.items())[:6])  # six or fewer are all named
    assert "golden:set-5" in report.headline()
