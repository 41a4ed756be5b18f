"""The one CSV export shape (pespec/conformance/csvexport.py): what a file holds, that every
family's CSV goes through it, that writes are atomic."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pespec.conformance.csvexport import csv_table, write_csv

PACKAGE = Path(__file__).resolve().parents[2] / "pespec"


def test_header_then_rows_with_round_trip_floats() -> None:
    # Written by hand: ints as digits, floats as repr (0.1 is "0.1", 1/3 its 17 digits), a
    # string cell as given, "\n" line ends, a last line end.
    data = csv_table(["row", "c0", "c1"], [[0, 0.1, 1 / 3], [7, "", -2.0]])
    assert data == b"row,c0,c1\n0,0.1,0.3333333333333333\n7,,-2.0\n"
    assert float(data.split(b"\n")[1].split(b",")[2]) == 1 / 3


def test_header_only_when_no_rows() -> None:
    assert csv_table(["x0", "x1"], []) == b"x0,x1\n"


def test_write_csv_atomic_file_and_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    write_csv(target, ["a"], [[1.5]])
    assert target.read_bytes() == b"a\n1.5\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]  # no temp file left
    write_csv("-", ["a"], [[2]])
    assert capsys.readouterr().out == "a\n2\n"


def test_no_other_module_writes_csv() -> None:
    # The shape is written once: no module of the package but csvexport calls csv.writer.
    writers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("writer", "DictWriter")
                and isinstance(node.value, ast.Name)
                and node.value.id == "csv"
            ):
                writers.append(path.relative_to(PACKAGE).as_posix())
    assert writers == ["conformance/csvexport.py"]
