"""The plugin route writes only where the user asks (issue 24, item 17).

Before: ``pytest --pyargs pespec.conformance --pe-backend numpy`` left ``.hypothesis/`` (the
property stage's Hypothesis storage) and ``.benchmarks/`` (pytest-benchmark, then a runtime
dependency that every pytest session loaded) in the user's working folder. Now Hypothesis
keeps its storage in the user cache, as ``pespec check`` does, and pytest-benchmark is a
test-only dependency (tests/project/test_dependencies.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _run_in(folder: Path, cache: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """The plugin route, run in ``folder`` as a user would, with the user cache in ``cache``.

    ``-p no:benchmark``: pespec's own test environment has pytest-benchmark (the ``[test]``
    extra), a user's has not; it makes ``.benchmarks/`` in every session it loads in.
    ``-p no:cacheprovider``: pytest's own ``.pytest_cache`` is the user's choice, not pespec's.
    """
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env["XDG_CACHE_HOME"] = str(cache)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "no:benchmark", "--pyargs", "pespec.conformance", *options]  # fmt: skip
    return subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.slow
def test_the_plugin_route_leaves_only_the_report_in_the_working_folder(tmp_path: Path) -> None:
    folder, cache = tmp_path / "work", tmp_path / "cache"
    folder.mkdir()
    run = _run_in(folder, cache, "--pe-backend", "numpy", "--pe-stages", "contract,golden,property",
                  "--pe-examples", "5", "--pe-json", "report.json")  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "CONFORMANT" in run.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["report.json"]  # was also .hypothesis


@pytest.mark.slow
def test_the_rotary_plugin_route_leaves_only_the_report(tmp_path: Path) -> None:
    folder, cache = tmp_path / "work", tmp_path / "cache"
    folder.mkdir()
    run = _run_in(folder, cache, "--pe-rope-backend", "numpy-float32", "--pe-rope-config",
                  "Llama-2-7B", "--pe-json", "report.json")  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["report.json"]
