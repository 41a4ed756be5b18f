"""``pespec check --from-file`` on files as other tools write them: a CSV with a header row
(pandas, spreadsheets), a bfloat16 ``.npy`` (NumPy records ml_dtypes.bfloat16 as ``|V2``), a
transposed array, a ragged CSV, a float32 CSV checked without ``--level``; .npy, .csv and
.npz round trips with a corrupted element located, and refusal of pickles and wrong shapes.

The values are the exact reference rounded to the file's dtype, so the verdict is fixed by
construction (conformant at that dtype's level); each case checks the verdict or the message.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.cli import main
from pespec.conformance import compare_saved_output, load_backend
from pespec.sinusoidal.fromfile import load_output
from pespec.sinusoidal.reference.encoding import encode

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
    from pespec.sinusoidal.fromfile import parse_positions

    path = tmp_path / "positions.csv"
    path.write_text("position\n0\n7\n1000\n", encoding="utf-8")
    positions = parse_positions(str(path))
    assert positions.dtype == np.int64 and positions.tolist() == [0, 7, 1000]


def _saved_float32(tmp_path: Path, n: int = 700, d: int = 32) -> tuple[Path, NDArray[Any]]:
    out = load_backend("numpy-float32")(np.arange(n, dtype=np.int64), d, 10000.0)
    path = tmp_path / "out.npy"
    np.save(path, out)
    return path, out


def test_from_file_npy_conformant_and_corrupted(tmp_path: Path) -> None:
    path, out = _saved_float32(tmp_path)
    assert main(["check", "--from-file", str(path), "--d-model", "32", "--quiet"]) == 0
    out[321, 5] = -out[321, 5] if out[321, 5] != 0 else np.float32(0.5)
    np.save(path, out)
    report = compare_saved_output(np.load(path, allow_pickle=False), np.arange(700), 32)
    reference = report.get("reference:file")
    assert reference.status == "failed"
    assert (reference.worst_position, reference.worst_column) == (321, 5)
    assert main(["check", "--from-file", str(path), "--d-model", "32", "--quiet"]) == 1


def test_from_file_csv_and_npz_with_positions(tmp_path: Path) -> None:
    positions = np.array([0, 7, 1000, 4097], dtype=np.int64)
    values = encode(positions, 8, base=10000.0)
    csv = tmp_path / "out.csv"
    np.savetxt(csv, values, delimiter=",", fmt="%.17g")  # 17 digits: round-trips float64
    args = ["check", "--from-file", str(csv), "--d-model", "8", "--quiet"]
    assert main([*args, "--positions", "0,7,1000,4097"]) == 0
    assert main([*args, "--positions", "0:4"]) == 1  # rows are not positions 0..3
    float32 = tmp_path / "out32.csv"
    low = load_backend("numpy-float32")(positions, 8, 10000.0)
    np.savetxt(float32, low, delimiter=",", fmt="%.9g")  # 9 digits: round-trips float32
    args32 = ["check", "--from-file", str(float32), "--d-model", "8", "--quiet"]
    assert main([*args32, "--positions", "0,7,1000,4097", "--level", "float32"]) == 0
    npz = tmp_path / "out.npz"
    np.savez(npz, encoding=values, positions=positions)
    assert main(["check", "--from-file", str(npz), "--d-model", "8", "--quiet"]) == 0


def test_from_file_refuses_pickles_and_wrong_shapes(tmp_path: Path) -> None:
    # An object array can only be stored as a pickle: write such a .npy by hand (a format
    # 1.0 header declaring dtype object, then the pickled array); loading must refuse it.
    pickled = tmp_path / "obj.npy"
    objects = np.array([{"a": 1}], dtype=object)
    with open(pickled, "wb") as handle:
        np.lib.format.write_array_header_1_0(
            handle, np.lib.format.header_data_from_array_1_0(objects)
        )
        pickle.dump(objects, handle, protocol=3)
    assert main(["check", "--from-file", str(pickled), "--d-model", "2"]) == 2
    path, _ = _saved_float32(tmp_path, n=10, d=8)
    report = compare_saved_output(np.load(path), np.arange(10), 16)
    assert report.get("contract:shape").status == "failed"
    assert not report.conformant
