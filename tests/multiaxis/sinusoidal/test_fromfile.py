"""``pespec check --family multiaxis --from-file`` (SPEC §9.5): a saved output with the
positions of its rows (k columns, an .npz's positions, or the preset's whole grid)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pespec.multiaxis.sinusoidal.fromfile import check_file
from pespec.multiaxis.sinusoidal.presets import PRESETS
from tests.multiaxis.sinusoidal import ports

ROOT = Path(__file__).resolve().parents[3]
MAE = PRESETS["mae-vit-b-16"]


def _grid_file(tmp_path: Path, backend=ports.correct, name: str = "mae-vit-b-16") -> Path:  # type: ignore[no-untyped-def]
    preset = PRESETS[name]
    path = tmp_path / "out.npy"
    np.save(path, backend(preset.positions(), preset.config))
    return path


def test_a_whole_grid_file_is_conformant_with_its_golden_set(tmp_path: Path) -> None:
    report = check_file(_grid_file(tmp_path), "mae-vit-b-16")
    assert report.verdict == "conformant", report.summary()
    status = {c.id: c.status for c in report.checks}
    assert status["golden:multiaxis-mae-vit-b-16"] == "passed"
    assert status["reference:section-0"] == status["reference:section-1"] == "passed"
    assert status["separability:*"] == "skipped" and report.family == "multiaxis"
    assert report.source_file is not None and report.source_file["columns"]["count"] == 768


def test_float32_is_judged_at_float32(tmp_path: Path) -> None:
    report = check_file(_grid_file(tmp_path, ports.correct_float32, "dit-xl-2-256"), "dit-xl-2-256")
    assert report.verdict == "conformant" and report.level == "float32"


def test_a_swapped_file_fails_with_its_cause(tmp_path: Path) -> None:
    report = check_file(_grid_file(tmp_path, ports.h_first), "mae-vit-b-16")
    assert report.verdict == "non-conformant"
    assert "h and w swapped" in (report.diagnosis_sentence or "")


def test_positions_in_an_npz_and_a_bfloat16_cause(tmp_path: Path) -> None:
    """SD3's grid (i/3) on 500 of its rows: the coordinates rounded to bfloat16 are named."""
    preset = PRESETS["sd3-medium"]
    positions = preset.positions()[::73][:500]
    path = tmp_path / "out.npz"
    np.savez(path, positions=positions, values=ports.bfloat16_positions(positions, preset.config))
    report = check_file(path, "sd3-medium")
    assert report.verdict == "non-conformant"
    assert "rounded to bfloat16" in str((report.diagnosis or {}).get("cause"))


def test_positions_from_a_csv_of_k_columns(tmp_path: Path) -> None:
    positions = MAE.positions()[[0, 14, 15, 195]]
    out = tmp_path / "out.npy"
    np.save(out, ports.correct(positions, MAE.config))
    csv = tmp_path / "pos.csv"
    csv.write_text("h,w\n" + "".join(f"{h},{w}\n" for h, w in positions.tolist()))
    report = check_file(out, "mae-vit-b-16", positions=str(csv))
    assert report.verdict == "conformant", report.summary()
    golden = [c for c in report.checks if c.stage == "golden"]
    # the set holds grid rows 0, 1, 13, 14, 105, 182, 195 (golden_rows): 0, 14, 195 of these
    assert golden and "(3 rows)" in golden[0].title


def test_a_non_finite_value_fails_the_contract(tmp_path: Path) -> None:
    values = ports.correct(MAE.positions(), MAE.config)
    values[3, 4] = np.inf
    path = tmp_path / "out.npy"
    np.save(path, values)
    report = check_file(path, "mae-vit-b-16")
    (finite,) = [c for c in report.checks if c.id == "contract:finite"]
    assert finite.status == "failed" and "row 3, column 4" in finite.message


@pytest.mark.parametrize(
    ("shape", "words"),
    [((196, 767), "768 columns"), ((195, 768), "has 195 rows but the 196 rows of the grid")],
)
def test_a_file_that_does_not_fit_names_what(
    tmp_path: Path, shape: tuple[int, int], words: str
) -> None:
    path = tmp_path / "out.npy"
    np.save(path, np.zeros(shape))
    with pytest.raises(ValueError, match=words):
        check_file(path, "mae-vit-b-16")


def test_a_positions_file_of_the_wrong_width_is_refused(tmp_path: Path) -> None:
    pos = tmp_path / "pos.npy"
    np.save(pos, np.zeros((196, 3)))
    with pytest.raises(ValueError, match="must hold 2 numeric columns"):
        check_file(_grid_file(tmp_path), "mae-vit-b-16", positions=str(pos))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pespec", "check", "--family", "multiaxis", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
    )  # fmt: skip


def test_the_cli_checks_a_file_and_reports_misfits_as_usage_errors(tmp_path: Path) -> None:
    good = _grid_file(tmp_path)
    assert _cli("--from-file", str(good), "--config", "mae-vit-b-16").returncode == 0
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros((196, 5)))
    result = _cli("--from-file", str(bad), "--config", "mae-vit-b-16")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "768 columns" in result.stderr
