"""Under pytest, a backend that cannot be loaded is one line naming the option and the cause
(issue 24, item 11).

Before: a pluggy traceback through ``pytest_generate_tests``, then a last line saying no
conformance test was collected and to "run the suite with" the command just run; for a
rotary backend that line named ``--pe-backend``. Each case runs pytest in a fresh process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SUITE = ("--pyargs", "pespec.conformance")
ROPE = ("--pe-rope-config", "Llama-2-7B")


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300,
                          check=False)  # fmt: skip


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
@pytest.mark.parametrize(
    ("args", "option", "cause"),
    [
        ((*SUITE, "--pe-backend", "nothere:x"), "--pe-backend 'nothere:x'",
         "No module named 'nothere'"),
        ((*SUITE, "--pe-rope-backend", "nothere:x", *ROPE), "--pe-rope-backend 'nothere:x'",
         "No module named 'nothere'"),
        ((*SUITE, "--pe-backend", "broken.py:x"), "--pe-backend 'broken.py:x'",
         "ZeroDivisionError"),
        ((*SUITE, "--pe-rope-backend", "broken.py:x", *ROPE), "--pe-rope-backend 'broken.py:x'",
         "ZeroDivisionError"),
        ((*SUITE, "--pe-rope-backend", "numpy", "--pe-rope-config", "nothere"),
         "--pe-rope-config 'nothere'", "nothere"),
    ],
)  # fmt: skip
def test_a_load_failure_is_one_line(
    args: tuple[str, ...], option: str, cause: str, tmp_path: Path
) -> None:
    (tmp_path / "broken.py").write_text("x = 1 / 0\n", encoding="utf-8")
    run = _pytest(tmp_path, *args)
    output = run.stdout + run.stderr
    assert run.returncode == 4, output  # pytest's USAGE_ERROR
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert lines[0].startswith(f"ERROR: {option}: ") and cause in lines[0]
    assert "Traceback" not in output and "run the suite with" not in output


@pytest.mark.slow
def test_rotary_messages_name_the_rotary_options(tmp_path: Path) -> None:
    """A rotary session that checks nothing names --pe-rope-backend (and its config)."""
    (tmp_path / "test_mine.py").write_text("def test_mine():\n    assert True\n", "utf-8")
    run = _pytest(tmp_path, "--pe-rope-backend", "numpy", *ROPE)
    assert run.returncode == 4, run.stdout + run.stderr
    assert "--pe-rope-backend 'numpy' was given but no conformance test" in run.stderr
    assert ("run the suite with: pytest --pyargs pespec.conformance --pe-rope-backend numpy "
            "--pe-rope-config Llama-2-7B") in run.stderr  # fmt: skip
    run = _pytest(tmp_path, *SUITE, "--pe-rope-backend", "numpy", *ROPE, "-k", "zzz")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "--pe-rope-backend 'numpy': no conformance check ran" in run.stdout
    assert "run the suite with" not in run.stdout  # the command just run, not repeated
