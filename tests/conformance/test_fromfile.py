"""``pespec check --from-file`` on files as other tools write them: a CSV with a header row
(pandas, spreadsheets), a bfloat16 ``.npy`` (NumPy records ml_dtypes.bfloat16 as ``|V2``), a
transposed array, a ragged CSV, a float32 CSV checked without ``--level``.

The values are the exact reference rounded to the file's dtype, so the verdict is fixed by
construction (conformant at that dtype's level); each case checks the verdict or the message.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from pespec.cli import main
from pespec.conformance.fromfile import load_output
from pespec.reference.encoding import encode

D = 16
POSITIONS = np.arange(40, dtype=np.int64)


def _values() -> np.ndarray:
    return encode(POSITIONS, D, base=10000.0)


def test_csv_with_a_header_row_is_read(tmp_path: Path) -> None:
    path = tmp_path / "pe.csv"
    header = ",".join(f"dim{j}" for j in range(D))
    np.savetxt(path, _values(), delimiter=",", fmt="%.17g", header=header, comments="")
    output, _ = load_output(path)
    assert output.shape == (len(POSITIONS), D)
    assert main(["check", "--from-file", str(path), "--d-model", str(D), "--quiet"]) == 0


def test_bfloat16_npy_saved_by_numpy_is_read_as_bfloat16(tmp_path: Path) -> None:
    path = tmp_path / "pe.npy"
    np.save(path, _values().astype(ml_dtypes.bfloat16))
    assert np.load(path).dtype.kind == "V"  # how NumPy records it: 2-byte void
    output, _ = load_output(path)
    assert output.dtype == ml_dtypes.bfloat16
    assert main(["check", "--from-file", str(path), "--d-model", str(D), "--quiet"]) == 0


def test_transposed_array_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pe.npy"
    np.save(path, _values().T.copy())
    # Issue #12 item 8: columns that do not match --d-model are a usage error (exit 2).
    assert main(["check", "--from-file", str(path), "--d-model", str(D), "--quiet"]) == 2
    assert "transposed?" in capsys.readouterr().err


def test_ragged_csv_is_a_usage_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ragged.csv"
    np.savetxt(path, _values()[:3], delimiter=",", fmt="%.17g")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("0.5,0.25\n")
    assert main(["check", "--from-file", str(path), "--d-model", str(D), "--quiet"]) == 2
    assert "ragged.csv" in capsys.readouterr().err


def test_float32_csv_without_level_says_it_was_read_as_float64(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """9 significant digits round-trip float32 but not float64: without --level the file is
    checked at float64 and fails; the message says so and how to state the dtype."""
    path = tmp_path / "pe32.csv"
    low = _values().astype(np.float32)
    # Rounding to float32 moves a value in [-1, 1] by up to 2^-25, far beyond the float64
    # bound (a few float64 ulps) and within the float32 bound, which includes that rounding.
    np.savetxt(path, low, delimiter=",", fmt="%.9g")
    args = ["check", "--from-file", str(path), "--d-model", str(D), "--quiet"]
    assert main(args) == 1
    assert "read as float64" in capsys.readouterr().out
    assert main([*args, "--level", "float32"]) == 0


def test_unwritable_report_path_is_a_usage_error_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 1 means non-conformant; a report that cannot be written is exit 2, found before
    the run (issue #12 item 6: not after a long suite)."""
    path = tmp_path / "pe.npy"
    np.save(path, _values())
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    args = ["check", "--from-file", str(path), "--d-model", str(D), "--quiet"]
    assert main([*args, "--json", str(blocker / "report.json")]) == 2
    captured = capsys.readouterr()
    assert "CONFORMANT" not in captured.out
    assert "--json cannot be written" in captured.err and "is a file" in captured.err


def test_positions_csv_with_a_header_row(tmp_path: Path) -> None:
    from pespec.conformance.fromfile import parse_positions

    path = tmp_path / "positions.csv"
    path.write_text("position\n0\n7\n1000\n", encoding="utf-8")
    positions = parse_positions(str(path))
    assert positions.dtype == np.int64 and positions.tolist() == [0, 7, 1000]
