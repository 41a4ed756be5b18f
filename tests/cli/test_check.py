"""``pespec check`` (pespec.cli.check): usage errors exit 2, a non-conformant backend exits 1
and the JSON and Markdown reports are written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from paths import CATALOG

from pespec.cli import main


def test_cli_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 2
    assert main(["check", "numpy", "--from-file", "x.npy"]) == 2
    assert main(["check", "numpy", "--stages", "contract,nonsense"]) == 2
    assert main(["check", "numpy", "--level", "float8"]) == 2
    assert main(["check", "nonesuch"]) == 2
    err = capsys.readouterr().err
    assert "stages must be a subset" in err and "got 'nonesuch'" in err


def test_cli_non_conformant_exits_1_and_writes_reports(tmp_path: Path) -> None:
    json_path, md_path = tmp_path / "r.json", tmp_path / "r.md"
    spec = f"{CATALOG}/misbehaving.py:raises"
    code = main(
        [
            "check",
            spec,
            "--stages",
            "contract",
            "--json",
            str(json_path),
            "--markdown",
            str(md_path),
        ]
    )
    assert code == 1
    assert json.loads(json_path.read_text())["backend"]["spec"] == spec
    assert "Verdict: non-conformant" in md_path.read_text()
