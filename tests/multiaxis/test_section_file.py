"""What both section kinds' ``--from-file`` checks share (pespec/multiaxis/section_file.py):
the contract items a saved output can show (shape, dtype, finite, the first non-finite value
named, then what needs calls skipped) and one rule for the positions of its rows."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from pespec.multiaxis.section_file import checked_positions, file_contract, section_file_positions


def _rows(output: np.ndarray, out_dtype: str | None) -> list[tuple[str, str, str, str]]:
    checks = file_contract(
        output, out_dtype, section="§9.9", width="W", needs_calls=("deterministic", "relative")
    )
    assert {c.section for c in checks} == {"§9.9"}
    return [(c.id, c.stage, c.status, c.message) for c in checks]


def test_a_finite_file() -> None:
    assert _rows(np.zeros((3, 4), dtype=np.float32), "float32") == [
        ("contract:shape", "contract", "passed", "(n, W) = (3, 4)"),
        ("contract:dtype", "contract", "passed", "float32"),
        ("contract:finite", "contract", "passed", "every value is finite"),
        ("deterministic:*", "contract", "skipped", "needs calls; not from a file"),
        ("relative:*", "relative", "skipped", "needs calls; not from a file"),
    ]


def test_the_first_non_finite_value_is_named() -> None:
    output = np.zeros((5, 3))
    output[3, 1], output[2, 2] = np.inf, np.nan  # row 2 comes first
    assert _rows(output, "float64")[2] == (
        "contract:finite",
        "contract",
        "failed",
        "row 2, column 2 is nan",
    )


def test_an_unknown_dtype_fails_and_finite_is_not_evaluated() -> None:
    rows = _rows(np.zeros((2, 2), dtype=np.int32), None)
    assert [r[0] for r in rows] == [
        "contract:shape",
        "contract:dtype",
        "deterministic:*",
        "relative:*",
    ]
    assert rows[1][2:] == (
        "failed",
        "dtype int32 is not one of ['bfloat16', 'float16', 'float32', 'float64']",
    )


def test_one_rule_for_a_positions_table() -> None:
    column = checked_positions(np.array([0.0, 2.0, 5.0]), 1, "p")
    assert column.dtype == np.int64 and column.tolist() == [[0], [2], [5]]
    assert checked_positions(np.array([[0.5, 1.0]]), 2, "p").dtype == np.float64
    assert checked_positions(np.array([[2.0**53, 1.0]]), 2, "p").dtype == np.float64
    assert checked_positions(np.array([[3, 4]], dtype=np.uint8), 2, "p").dtype == np.int64
    with pytest.raises(
        ValueError, match=r"^p must hold 3 numeric columns .* shape \(1, 2\), dtype"
    ):
        checked_positions(np.array([[1, 2]]), 3, "p")
    with pytest.raises(ValueError, match=r"numeric columns .* dtype <U1"):
        checked_positions(np.array([["a", "b"]]), 2, "p")
    with pytest.raises(ValueError, match=r"^p must be finite"):
        checked_positions(np.array([[1.0, np.nan]]), 2, "p")


def test_the_positions_of_a_files_rows(tmp_path: Path) -> None:
    grid = np.array([[0, 0], [0, 1], [1, 0]])
    preset = SimpleNamespace(config=SimpleNamespace(axes=2), positions=lambda: grid, name="toy")
    output = np.zeros((3, 4))

    def rows(option: str | None, stored: object) -> tuple[list[list[float]], str]:
        columns = (4, "D of toy")
        found, how = section_file_positions(
            "out.npy", output, (option, stored), preset, columns, "the {n} rows of {name}"
        )
        return found.tolist(), how

    assert rows(None, None) == (grid.tolist(), "the 3 rows of toy")
    assert rows(None, np.array([[1.0, 1.5]] * 3)) == ([[1.0, 1.5]] * 3, "stored in the file")
    table = tmp_path / "p.csv"
    table.write_text("h,w\n2,3\n4,5\n6,7\n", encoding="utf-8")
    assert rows(str(table), None) == ([[2, 3], [4, 5], [6, 7]], f"--positions {table}")
    with pytest.raises(ValueError, match=r"the positions stored in 'out\.npy' must hold 2"):
        rows(None, np.zeros((3, 3)))
    with pytest.raises(ValueError, match=re.escape(f"--positions '{table}' must hold 2")):
        table.write_text("1,2,3\n", encoding="utf-8")
        rows(str(table), None)
