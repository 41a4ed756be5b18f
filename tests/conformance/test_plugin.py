"""The pytest plugin never lets a session given --pe-backend pass without a verdict (issue 12,
item 2).

Before: ``pytest --pe-backend X`` in a user's own project (without ``--pyargs
pespec.conformance``) collected none of pespec's tests, ran the user's and exited 0: a green
CI for a backend that was never checked. Each test runs pytest in a fresh process in a
temporary project, as a user would.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(
        command, cwd=project, capture_output=True, text=True, timeout=300, check=False
    )


def _project(tmp_path: Path) -> Path:
    """A user's project with one passing test of its own and no conformance test."""
    (tmp_path / "test_mine.py").write_text("def test_mine():\n    assert True\n", "utf-8")
    return tmp_path


@pytest.mark.slow
def test_pe_backend_in_a_project_without_the_suite_is_a_usage_error(tmp_path: Path) -> None:
    run = _pytest(_project(tmp_path), "--pe-backend", "numpy")
    output = run.stdout + run.stderr
    assert run.returncode == 4, output  # pytest's USAGE_ERROR; was 0 (1 passed)
    assert "no conformance test was collected" in output
    assert "pytest --pyargs pespec.conformance --pe-backend numpy" in output
    assert "Traceback" not in output


@pytest.mark.slow
def test_pe_backend_with_every_conformance_test_deselected_fails(tmp_path: Path) -> None:
    run = _pytest(
        _project(tmp_path), "--pyargs", "pespec.conformance", "--pe-backend", "numpy", "-k", "zzz"
    )
    assert run.returncode == 1, run.stdout + run.stderr  # was 5, "no tests ran"
    assert "no conformance check ran" in run.stdout


@pytest.mark.slow
def test_every_check_skipped_by_the_skip_file_fails_the_session(tmp_path: Path) -> None:
    skip = tmp_path / "skip.txt"
    skip.write_text("# every check of every stage\ncontract:*\ngolden:*\nproperty:*\nlarge:*\n")
    run = _pytest(
        _project(tmp_path),
        "--pyargs",
        "pespec.conformance",
        "--pe-backend",
        "numpy",
        "--pe-skip-file",
        str(skip),
    )
    assert run.returncode == 1, run.stdout + run.stderr  # was 0 with "31 skipped"
    assert "no conformance check ran" in run.stdout


@pytest.mark.slow
def test_the_suite_with_a_skip_file_still_gives_a_verdict(tmp_path: Path) -> None:
    """The guard does not stop the ordinary use: skip some checks, the rest give the verdict."""
    skip = tmp_path / "skip.txt"
    skip.write_text("property:*\nlarge:*\n", encoding="utf-8")
    run = _pytest(
        tmp_path,
        "--pyargs",
        "pespec.conformance",
        "--pe-backend",
        "numpy",
        "--pe-skip-file",
        str(skip),
        "--pe-stages",
        "contract,golden,property",
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "CONFORMANT" in run.stdout


def test_plugin_is_documented_for_users() -> None:
    """README and the guide show how to run the suite under pytest and explain the skip file."""
    for name in ("README.md", "docs/guide.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert "pytest --pyargs pespec.conformance --pe-backend" in text, name
        assert "--pe-skip-file" in text, name
