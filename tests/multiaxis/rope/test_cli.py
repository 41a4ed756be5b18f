"""``pespec check --family multiaxis-rope``: verdict exit codes and usage errors (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.multiaxis.rope.ports import small

ROOT = Path(__file__).resolve().parents[3]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pespec", "check", "--family", "multiaxis-rope", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("tests.multiaxis.rope.ports:flux_backend",), "needs --config"),
        (
            ("tests.multiaxis.rope.ports:flux_backend", "--config", "qwen2-vl"),
            "--config: config must be one of",
        ),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], needle: str) -> None:
    result = _run(*args)
    assert result.returncode == 2 and needle in result.stderr
    assert "Traceback" not in result.stderr


def test_a_port_with_a_bug_exits_1_and_names_the_cause(tmp_path: Path) -> None:
    (tmp_path / "port.py").write_text(
        "from tests.multiaxis.rope.ports import numpy_mrope\n"
        "backend = numpy_mrope(5e6, (24, 20, 20), False)\n",
        encoding="utf-8",
    )
    config = tmp_path / "small.json"
    config.write_text(json.dumps(small("qwen3-vl-4b")), encoding="utf-8")
    result = _run(f"{tmp_path / 'port.py'}:backend", "--config", str(config), "--in-process")
    assert result.returncode == 1, result.stderr
    assert "sectioned M-RoPE instead of interleaved" in " ".join(result.stdout.split())
