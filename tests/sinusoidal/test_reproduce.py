"""Reproduction lines (pespec.sinusoidal.reproduce): pasted into a shell, they run and show
the failure (exit 1 past the bound; the property's counterexample raises).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from paths import CATALOG

from pespec.conformance import check


@pytest.mark.slow
def test_reproduction_lines_run_and_show_the_failure(tmp_path: Path) -> None:
    import subprocess

    spec = f"{CATALOG}/buggy.py:sqrt_cos"
    report = check(spec, stages=("golden", "property"), examples=2, shrink=False, diagnose=False)
    golden = report.get("golden:tiny-d4-L3")
    assert golden.reproduction is not None and golden.reproduction.startswith("python -c ")
    command = golden.reproduction.removeprefix("python -c ").strip('"')
    run = subprocess.run(
        [sys.executable, "-c", command], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 1, run.stderr  # exit_status=True: past the bound exits 1
    # cos 2 < 0: the reproduction prints the backend's |cos 2| next to the exact cos 2.
    line = next(x for x in run.stdout.splitlines() if x.startswith("position 2 column 1:"))
    assert "exact -0.4161468365471424" in line and "EXCEEDS BOUND" in line
    accuracy = report.get("property:accuracy")
    assert accuracy.status == "failed" and accuracy.reproduction is not None
    command = accuracy.reproduction.removeprefix("python -c ").strip('"')
    run = subprocess.run(
        [sys.executable, "-c", command], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode != 0 and "PropertyViolation" in run.stderr
