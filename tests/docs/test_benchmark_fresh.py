"""The README's performance table is never older than the code it describes (issue 37).

The table is generated from ``benchmarks/results/reference.json`` (tools/docgen/exact_docs.py);
that file records when its run was made (pytest-benchmark's ``datetime``) and at which
revision (``commit_info``). A later commit to the reference's modules
(``pespec/sinusoidal/reference``,
``pespec/numerics``: the code the benchmark times) makes the figures stale: rerun
``python -m pytest benchmarks/bench_reference.py --benchmark-only --benchmark-json
benchmarks/results/reference.json`` and ``python tools/generate_docs.py``, then commit.

Needs the git history (a checkout); CI's copy of the working tree has none, so it skips there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import datetime

import pytest
from paths import ROOT

RESULTS = ROOT / "benchmarks" / "results" / "reference.json"
TIMED = ("pespec/sinusoidal/reference", "pespec/numerics")
"""The modules whose speed bench_reference.py measures."""


def _git(*args: str) -> str:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("no git checkout (CI's copy of the working tree has no history)")
    done = subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def test_the_reference_benchmark_is_newer_than_the_reference() -> None:
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    measured = datetime.fromisoformat(results["datetime"])
    last = _git("log", "-1", "--format=%cI %h %s", "--", *TIMED)
    if not last:
        pytest.skip("the reference's modules have no history here")
    stamp, _, what = last.partition(" ")
    changed = datetime.fromisoformat(stamp)
    assert measured >= changed, (
        f"benchmarks/results/reference.json was measured {measured.isoformat()}, before the "
        f"last change to the reference ({changed.isoformat()}: {what}); rerun the benchmark "
        "and python tools/generate_docs.py (see this module's docstring)"
    )


def test_the_results_name_their_revision() -> None:
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    revision = results["commit_info"]["id"]
    assert len(revision) == 40, revision
    kind = _git("cat-file", "-t", revision)
    assert kind == "commit", f"{revision} is not a commit of this repository"
