"""``pespec table`` (issue 29): one row per client × configuration × dtype, run in its own
process; every way a client can fail to give a verdict gets a row that says so, and the table
still completes. The clients are tests/thirdparty/toyclients, declared through the
entry-point group ``pespec.clients`` as another package would (a dist-info on PYTHONPATH)."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

import pespec
from pespec.clients.catalog import ENTRY_POINT_GROUP
from pespec.clients.table import TABLE_SCHEMA, build_table, planned_rows, select_clients
from pespec.clients.table_text import compare_tables, render_changes, render_markdown, summary
from tests.clirun import run_cli

THIRDPARTY = Path(__file__).resolve().parents[1] / "thirdparty"


@pytest.fixture
def toy_clients(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """toyclients installed as far as importlib.metadata can tell, here and in children."""
    info = tmp_path / "site" / "toyclients-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyclients\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\ntoy = toyclients:CLIENTS\n")
    root = Path(pespec.__file__).resolve().parents[1]
    paths = [str(THIRDPARTY), str(info.parent), str(root)]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    for path in paths:
        monkeypatch.syspath_prepend(path)
    importlib.invalidate_caches()


def _rows(names: list[str], timeout: float = 240.0, fork: bool = True) -> dict[str, dict[str, Any]]:
    clients = [c for c in select_clients(library="numpy") if c.name in names]
    table = build_table(clients, jobs=2, timeout=timeout, fork=fork)
    assert table["schema"] == TABLE_SCHEMA and len(table["rows"]) == len(names)
    return {row["client"]: row for row in table["rows"]}


@pytest.mark.slow
@pytest.mark.usefixtures("toy_clients")
def test_every_row_has_a_verdict_or_says_why_not() -> None:
    rows = _rows(["toy:correct", "toy:wrong-theta", "toy:refuses", "toy:exits", "toy:missing"])
    assert rows["toy:correct"]["verdict"] == "CONFORMANT"
    assert rows["toy:correct"]["worst_ratio"] < 1
    wrong = rows["toy:wrong-theta"]
    assert wrong["verdict"] == "NON-CONFORMANT" and wrong["worst_ratio"] > 1
    assert wrong["reproduction"] == (
        "pespec check --client toy:wrong-theta --dtype float64 --config Llama-2-7B"
    )
    assert rows["toy:refuses"]["verdict"] == "not run"
    assert rows["toy:refuses"]["why"].startswith("refused: ")
    assert "cannot express" in rows["toy:refuses"]["why"]
    # os._exit(0) inside a check: the table's forked runner guards os._exit during the call
    # (issue 41 item 4), so the process survives and the row is a failed check naming it;
    # never read as a pass
    assert rows["toy:exits"]["verdict"] == "NON-CONFORMANT"
    assert "os._exit(0)" in rows["toy:exits"]["diagnosis"]
    assert rows["toy:missing"]["why"] == "not installed: no-such-distribution-pespec-test"


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
@pytest.mark.usefixtures("toy_clients")
def test_a_client_that_needs_a_gpu_is_not_run_here() -> None:
    pytest.importorskip("torch").cuda.is_available() and pytest.skip("a GPU is here")
    assert _rows(["toy:gpu"])["toy:gpu"]["why"].startswith("needs a GPU")


@pytest.mark.slow
@pytest.mark.usefixtures("toy_clients")
def test_a_hanging_client_is_killed_and_the_table_completes() -> None:
    row = _rows(["toy:hangs"], timeout=5.0)["toy:hangs"]
    assert row["verdict"] == "not run" and row["why"].startswith("hung: no verdict within 5 s")


@pytest.mark.slow
@pytest.mark.usefixtures("toy_clients")
def test_a_forked_row_is_the_row_of_a_new_interpreter() -> None:
    """The zygote's forks (the default where the platform forks) and new interpreters (the
    reproduction line as a user runs it) give the same rows, failures included."""
    pytest.importorskip("pespec.clients.zygote").available() or pytest.skip("no fork here")
    names = ["toy:correct", "toy:wrong-theta", "toy:refuses", "toy:exits"]
    keep = ("verdict", "level", "worst_ratio", "diagnosis", "summary", "why")
    forked, spawned = _rows(names), _rows(names, fork=False)
    for name in names:
        assert {k: forked[name].get(k) for k in keep} == {k: spawned[name].get(k) for k in keep}


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
@pytest.mark.usefixtures("toy_clients")
def test_a_row_whose_zygote_has_ended_runs_in_a_new_interpreter() -> None:
    zygote_module = pytest.importorskip("pespec.clients.zygote")
    zygote_module.available() or pytest.skip("no fork here")
    from pespec.clients.table import run_row

    zygote = zygote_module.Zygote()
    zygote.close()  # ended before the row: the row must not be lost with it
    (row,) = planned_rows(select_clients(client="toy:refuses"))
    done = run_row(row, 240.0, zygote)
    assert done["verdict"] == "not run" and done["why"].startswith("refused: ")


def _doc(*rows: tuple[str, str, str]) -> dict[str, Any]:
    return {
        "schema": TABLE_SCHEMA,
        "pespec_version": "x",
        "spec_version": "1.2",
        "date": "2026-11-24",
        "rows": [
            {
                "client": c,
                "config": "C",
                "dtype": "float32",
                "verdict": v,
                "library": "lib",
                "family": "rope",
                "versions": {"lib": version},
                "reproduction": f"pespec check --client {c}",
            }
            for c, v, version in rows
        ],
    }


def test_compare_names_each_kind_of_change() -> None:
    old = _doc(("a", "CONFORMANT", "1"), ("b", "NON-CONFORMANT", "1"), ("c", "CONFORMANT", "1"))
    new = _doc(("a", "NON-CONFORMANT", "1"), ("b", "CONFORMANT", "2"), ("d", "CONFORMANT", "1"))
    changes = {c["client"]: c for c in compare_tables(old, new)}
    assert changes["a"]["change"] == "regressed" and changes["a"]["same_versions"]
    assert changes["b"]["change"] == "improved" and not changes["b"]["same_versions"]
    assert changes["c"]["change"] == "gone" and changes["d"]["change"] == "new"
    assert "regressed: a C float32: CONFORMANT -> NON-CONFORMANT" in render_changes(
        list(changes.values())
    )
    assert compare_tables(old, old) == [] and render_changes([]) == "No verdict changed."


def test_markdown_gives_the_evidence_of_every_failing_row() -> None:
    doc = _doc(("a", "CONFORMANT", "1"), ("b", "NON-CONFORMANT", "1"))
    doc["rows"][1]["diagnosis"] = "θ measured 1e6"
    text = render_markdown(doc)
    assert "θ measured 1e6 — `pespec check --client b`" in text
    assert summary(doc).startswith("2 rows (1 CONFORMANT, 1 NON-CONFORMANT) from 1 library run")


def test_compare_exits_1_only_for_a_change_at_the_same_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    new = _doc(("a", "NON-CONFORMANT", "1"))
    monkeypatch.setattr("pespec.clients.table.build_table", lambda *a, **k: new)
    for verdict, version, expected in (("CONFORMANT", "1", 1), ("CONFORMANT", "0", 0)):
        old = tmp_path / "old.json"
        old.write_text(json.dumps(_doc(("a", verdict, version))))
        code, out, _ = run_cli(
            ["table", "--client", "transformers:llama", "--compare", str(old)], capsys
        )
        assert code == expected, out
    # rows of clients that did not run (another tier, a filter) are not "gone"
    old.write_text(json.dumps(_doc(("a", "NON-CONFORMANT", "1"), ("b", "CONFORMANT", "1"))))
    code, out, _ = run_cli(
        ["table", "--client", "transformers:llama", "--compare", str(old)], capsys
    )
    assert code == 0 and "No verdict changed." in out
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    code, _, err = run_cli(["table", "--compare", str(bad)], capsys)
    assert code == 2 and "is not a pespec-conformance-table/1 document" in err


def test_the_default_table_is_the_core_tier_and_all_adds_the_survey() -> None:
    core, every = select_clients(), select_clients(every_tier=True)
    assert {c.tier for c in core} == {"core"} and {c.tier for c in every} == {"core", "survey"}
    assert {c.library for c in core} == {c.library for c in every}  # every library in core
    survey = next(c for c in every if c.tier == "survey")
    assert select_clients(client=survey.name) == [survey]  # a named client runs whatever tier


def test_planned_rows_cover_configs_times_dtypes() -> None:
    rows = planned_rows(select_clients(client="transformers:llama"))
    assert [(r["config"], r["dtype"]) for r in rows] == [
        ("Llama-2-7B", "float32"),
        ("Llama-2-7B", "bfloat16"),
        ("Llama-2-7B", "module-bfloat16"),
        ("Llama-3.1-8B", "float32"),
        ("Llama-3.1-8B", "bfloat16"),
        ("Llama-3.1-8B", "module-bfloat16"),
        ("Llama-2-7B-dynamic-4-per-call", "float32"),  # the dynamic variant (issue 36)
        ("Llama-2-7B-dynamic-4-per-call", "bfloat16"),
        ("Llama-2-7B-dynamic-4-per-call", "module-bfloat16"),
    ]
