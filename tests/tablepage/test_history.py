"""The table's history (issue 40): snapshots written from tables and from the committed
table's git history, read back in order, and the newest one is the committed table."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from paths import ROOT

from pespec.tablepage import load_table
from pespec.tablepage.history import compact_rows, load_history, snapshot_of, write_snapshot
from tests.clirun import run_cli

HISTORY = ROOT / "results" / "history"
TABLE = ROOT / "results" / "conformance-table.json"


def _table(date: str, verdict: str) -> dict[str, object]:
    return {
        "schema": "pespec-conformance-table/1",
        "pespec_version": "1.0.0",
        "spec_version": "1.2",
        "manifest_sha256": "ab",
        "date": date,
        "rows": [
            {
                "client": "a",
                "config": "c",
                "dtype": "f",
                "verdict": verdict,
                "library": "a",
                "versions": {"a": "1.0"},
                "worst_ratio": 0.5,
            }
        ],
    }


def test_the_committed_table_is_the_newest_snapshot() -> None:
    """Regenerating results/conformance-table.json takes a snapshot too:
    pespec table --snapshot results/history --tag TAG."""
    newest = load_history(HISTORY)[-1]
    assert newest["rows"] == compact_rows(load_table(TABLE))
    assert newest["date"] == load_table(TABLE)["date"]


def test_every_committed_snapshot_says_where_it_came_from() -> None:
    snapshots = load_history(HISTORY)
    assert len(snapshots) >= 3
    for snapshot in snapshots:
        assert snapshot["provenance"]["tool"]
        assert sum(snapshot["counts"].values()) == len(snapshot["rows"])
        assert (HISTORY / f"{snapshot['id']}.json").is_file()


def test_snapshots_load_in_date_then_time_order(tmp_path: Path) -> None:
    later = snapshot_of(_table("2026-01-02", "CONFORMANT"), "zz", {"tool": "t", "time": "1"})
    early = snapshot_of(_table("2026-01-01", "CONFORMANT"), "b", {"tool": "t", "time": "09"})
    earliest = snapshot_of(_table("2026-01-01", "CONFORMANT"), "c", {"tool": "t", "time": "08"})
    for snapshot in (later, early, earliest):
        write_snapshot(tmp_path, snapshot)
    assert [s["id"] for s in load_history(tmp_path)] == [
        "2026-01-01-c",
        "2026-01-01-b",
        "2026-01-02-zz",
    ]
    (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match=r"x\.json' is not a pespec-table-history/1 document"):
        load_history(tmp_path)
    with pytest.raises(ValueError, match="snapshot tag must be"):
        snapshot_of(_table("2026-01-01", "CONFORMANT"), "a/b", {})


def test_the_cli_writes_a_snapshot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        ["table", "--snapshot", str(tmp_path), "--from", str(TABLE), "--tag", "ci"], capsys
    )
    assert code == 0, err
    (written,) = load_history(tmp_path)
    assert written["id"] == f"{load_table(TABLE)['date']}-ci"
    assert written["provenance"]["tool"] == "pespec table --snapshot"


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_seed_tool_writes_one_snapshot_per_commit(tmp_path: Path) -> None:
    import seed_table_history

    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    _git(repo, "init", "-q")
    for date, verdict in (("2026-01-01", "CONFORMANT"), ("2026-01-05", "NON-CONFORMANT")):
        (repo / "results" / "conformance-table.json").write_text(
            json.dumps(_table(date, verdict)), encoding="utf-8"
        )
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", verdict)
    shas = _git(repo, "log", "--reverse", "--format=%H").split()
    out = tmp_path / "history"
    seed_table_history.ROOT = repo
    assert seed_table_history.main(["--out", str(out)]) == 0
    snapshots = load_history(out)
    assert [s["id"] for s in snapshots] == [
        f"2026-01-01-{shas[0][:7]}",
        f"2026-01-05-{shas[1][:7]}",
    ]
    assert [s["rows"][0][3] for s in snapshots] == ["CONFORMANT", "NON-CONFORMANT"]
    assert snapshots[1]["provenance"]["commit"] == shas[1]
