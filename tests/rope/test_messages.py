"""What the rotary suite prints (issue 24, item 14c, d, e).

Before: a hung backend's later checks said "no output of a dtype pespec knows"; the table of
``pespec rope check --verbose`` was titled ``pespec check``; ``--verbose`` and the pytest
plugin printed the diagnosis twice (once alone, once in the rotary summary line).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pespec.cli import main
from pespec.rope.presets import PRESETS
from pespec.rope.suite import check

FP16_CACHE = """
import rope_implementations as impl
from pespec.rope.presets import PRESETS

rot = impl.bug_fp16_cache(PRESETS["Llama-2-7B"])
"""
"""A float16 cos/sin cache under a float16 output: the phase is rounded to float16."""


def test_a_hung_backend_is_reported_as_hung() -> None:
    def hangs(x: Any, positions: Any, rope: Any) -> Any:
        time.sleep(5)
        return x

    report = check(hangs, PRESETS["Llama-2-7B"], timeout=0.2)
    golden = next(c for c in report.checks if c.stage == "golden")
    assert "did not return within 0.2 s" in golden.message
    assert "dtype pespec knows" not in golden.message


def _fp16_cache(folder: Path) -> str:
    (folder / "fp16_cache.py").write_text(FP16_CACHE, encoding="utf-8")
    return "fp16_cache.py:rot"


def test_verbose_titles_the_table_and_says_the_diagnosis_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = _fp16_cache(tmp_path)
    assert main(["rope", "check", spec, "--config", "Llama-2-7B", "--verbose"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert f"pespec rope check {spec} (level" in out
    assert out.count("phase p·ω in float16") == 1, out


@pytest.mark.slow
def test_the_plugin_says_the_rotary_diagnosis_once(tmp_path: Path) -> None:
    spec = _fp16_cache(tmp_path)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--pyargs",
        "pespec.conformance",
        "-q",
        "-p",
        "no:cacheprovider",
        "--pe-rope-backend",
        spec,
        "--pe-rope-config",
        "Llama-2-7B",
    ]
    tests = str(Path(__file__).resolve().parents[1])  # rope_implementations
    run = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": tests},
    )
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    summary = run.stdout.partition("pespec conformance")[2]
    assert summary.count("phase p·ω in float16") == 1, summary
