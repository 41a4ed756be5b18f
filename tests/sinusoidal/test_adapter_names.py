"""A backend built by an adapter keeps the name and the spec the user typed (issue 24, item 9).

Before: ``pespec check pe_table.py:backend`` of a ``table_backend(lambda ...)`` was reported
as ``table_backend(<lambda>)``, JSON ``"spec": null``, Markdown "backend spec `None`", and
its reproductions were Python lines to run "where backend = the callable you checked".
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pespec.cli import main
from pespec.conformance import Suite, module_backend, table_backend
from pespec.sinusoidal.reference.encoding import encode

OFF_BY_ONE_TABLE = """
import numpy as np
from pespec.conformance import table_backend
from pespec.sinusoidal.reference.encoding import encode

backend = table_backend(lambda d, b: encode(np.arange(1, 65), d, base=b), rows=64)
"""
"""A table whose row p holds the encoding of p + 1: fails golden:tiny-d4-L3 at position 1."""


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_a_spec_loaded_adapter_is_named_by_its_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pe_table.py").write_text(OFF_BY_ONE_TABLE, encoding="utf-8")
    spec = "pe_table.py:backend"
    code = main(["check", spec, "--stages", "contract,golden", "--json", "r.json",
                 "--markdown", "r.md"])  # fmt: skip
    assert code == 1
    out = capsys.readouterr().out
    assert f"{spec}: NON-CONFORMANT" in " ".join(out.split())
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["backend"]["name"] == spec and data["backend"]["spec"] == spec
    assert f"backend spec `{spec}`" in (tmp_path / "r.md").read_text()
    lines = [c["reproduction"] for c in data["checks"] if c["reproduction"]]
    assert lines and all(line.startswith("python -c ") and repr(spec) in line for line in lines)
    golden = next(c for c in data["checks"] if c["id"].startswith("golden:") and c["reproduction"])
    command = shlex.split(golden["reproduction"])  # runs from the folder the check ran in
    rerun = subprocess.run(
        [sys.executable, *command[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert rerun.returncode == 1, rerun.stderr  # the value is out of bound again


def _build(d_model: int, base: float) -> np.ndarray:
    return encode(np.arange(16), d_model, base=base)


class Encoding:
    """A module-like object: built for one (d_model, base), called with positions."""

    def __init__(self, d_model: int, base: float) -> None:
        self.table = _build(d_model, base)

    def __call__(self, positions: np.ndarray) -> np.ndarray:
        return self.table[positions]


def test_an_adapter_object_is_named_after_the_function_it_wraps() -> None:
    """Passed as an object (no spec): the wrapped function's qualified name, a lambda by
    where it is written, never ``table_backend(<lambda>)``."""
    assert table_backend(_build, rows=16).name == "_build"
    assert module_backend(Encoding).name == "Encoding"
    line = sys._getframe().f_lineno + 1
    lookup = table_backend(lambda d, b: _build(d, b), rows=16)
    assert lookup.name == f"lambda at {Path(__file__).name}:{line}"
    assert table_backend(_build, rows=16, name="mine").name == "mine"
    report = Suite(lookup, stages=("contract",)).run()
    assert report.backend == lookup.name and report.backend_spec is None
    assert "passed as a Python object" in report.to_markdown()
