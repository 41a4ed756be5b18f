"""``pespec check --family fourier --from-file`` (issue 43 item 4; SPEC §10.7): a saved
Fourier output judged as a run is, without calls. Expected verdicts follow from the oracle:
the float64 reference (within 2^-52 of it) passes, the same file declared with π fails with
"π missing", a correctly rounded bfloat16 cast passes its level.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from clirun import run_cli

from pespec.fourier.fromfile import check_file, write_inputs
from pespec.fourier.inputs import suite_inputs
from pespec.fourier.presets import PRESETS
from pespec.fourier.reference import encode


@pytest.fixture
def nerf_file(tmp_path: Path) -> Path:
    path = tmp_path / "nerf.npy"
    np.save(path, encode(suite_inputs(PRESETS["nerf"], 64), "nerf"))
    return path


def test_a_saved_reference_is_conformant_with_golden_and_properties(nerf_file: Path) -> None:
    report = check_file(nerf_file, "nerf")
    assert report.conformant and report.level == "float64"
    ids = {c.id for c in report.checks if c.status == "passed"}
    assert {"golden:fourier-nerf", "reference:file", "property:pythagoras"} <= ids


def test_the_same_file_declared_with_pi_is_diagnosed(
    nerf_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = check_file(nerf_file, "nerf-paper")
    assert not report.conformant
    assert report.diagnosis is not None and report.diagnosis["slip"] == "π missing"
    argv = ["check", "--family", "fourier", "--from-file", str(nerf_file), "--config", "nerf"]
    code, out, _ = run_cli([*argv, "--quiet"], capsys)
    assert code == 0 and "CONFORMANT" in out
    code, _, err = run_cli([*argv[:5], "--quiet"], capsys)
    assert code == 2 and "needs --config" in err
    code, _, err = run_cli([*argv, "--stages", "golden"], capsys)
    assert code == 2 and "--stages" in err


def test_a_bfloat16_cast_passes_its_level_and_a_looser_claim_is_refused(tmp_path: Path) -> None:
    x = suite_inputs(PRESETS["nerf-paper"], 64)
    path = tmp_path / "bf16.npy"
    np.save(path, encode(x, "nerf-paper").astype(np.float32).astype(ml_dtypes.bfloat16))
    assert check_file(path, "nerf-paper").level == "bfloat16"
    assert check_file(path, "nerf-paper").conformant
    assert not check_file(path, "nerf-paper", level="float32").conformant
    small = tmp_path / "f32.npy"
    np.save(small, encode(x, "nerf-paper").astype(np.float32))
    with pytest.raises(ValueError, match="looser than the file's dtype float32"):
        check_file(small, "nerf-paper", level="bfloat16")


def test_inputs_from_an_npz_and_a_csv_written_by_write_inputs(tmp_path: Path) -> None:
    x = np.array([[0.25], [0.5], [3.0]])
    npz = tmp_path / "gfp.npz"
    np.savez(npz, encoding=encode(x, "diffusers-gaussian-fourier"), positions=x)
    assert check_file(npz, "diffusers-gaussian-fourier").conformant
    inputs = tmp_path / "inputs.csv"
    written = write_inputs("rff-tancik", 16, inputs)
    read = np.loadtxt(inputs, delimiter=",", skiprows=1)
    assert np.array_equal(read, written)  # shortest round-trip decimals: exact
    csv = tmp_path / "out.csv"
    np.savetxt(csv, encode(read, "rff-tancik"), delimiter=",", fmt="%.17g")
    assert check_file(csv, "rff-tancik").conformant


def test_a_wrong_shape_fails_the_contract_and_never_crashes(tmp_path: Path) -> None:
    path = tmp_path / "narrow.npy"
    np.save(path, np.zeros((64, 5)))
    report = check_file(path, "nerf")
    assert not report.conformant and report.checks[0].status == "failed"
