"""``pespec check --family multiaxis-rope --from-file`` (SPEC R9.15): a saved output of the
stated inputs judged as a backend is; misfits are usage errors (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.rope.fromfile import check_file, file_inputs, write_inputs
from tests.multiaxis.rope import ports
from tests.multiaxis.rope.test_lowprec import _after_prompt

ROOT = Path(__file__).resolve().parents[3]


def _saved(tmp_path: Path, port: Any, config: Any, name: str = "out.npy") -> Path:
    """The port's output for the stated inputs, read back from write_inputs' .npz."""
    inputs = tmp_path / "inputs.npz"
    write_inputs(config, inputs)
    with np.load(inputs) as data:
        x, positions = data["x"], data["positions"]
    out = tmp_path / name
    np.save(out, np.asarray(port(x, positions, None)))
    return out


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pespec", "check", "--family", "multiaxis-rope", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_the_stated_inputs() -> None:
    positions, x = file_inputs("qwen2.5-vl-7b")
    assert positions.shape == (16 + 16 * 32 * 32 + 16, 3) and x.shape == (positions.shape[0], 128)
    # x row r, column k: ((37(k+1) + 101 r) mod 257 − 128) / 64, by hand at r = 2, k = 0:
    # (37 + 202) mod 257 − 128 = 111 → 1.734375.
    assert x[2, 0] == 1.734375 and list(positions[16]) == [16, 16, 16]


def test_a_correct_file_is_conformant_with_its_golden_rows(tmp_path: Path) -> None:
    out = _saved(tmp_path, ports.numpy_mrope(1e6, (16, 24, 24), False), "qwen2.5-vl-7b")
    report = check_file(out, "qwen2.5-vl-7b")
    assert report.conformant, report.summary()
    golden = [c for c in report.checks if c.stage == "golden"]
    assert [c.status for c in golden] == ["passed"] and golden[0].details["rows"] == 13
    assert [c.status for c in report.checks if c.stage == "reference"] == ["passed"] * 3


def test_a_flux_file_in_csv_with_its_positions(tmp_path: Path) -> None:
    out = _saved(tmp_path, ports.numpy_flux((16, 56, 56)), "flux.1")
    array = np.load(out)
    csv = tmp_path / "out.csv"
    np.savetxt(csv, array.astype(np.float64), delimiter=",", fmt="%.9g")
    positions, _ = file_inputs("flux.1")
    np.save(tmp_path / "p.npy", positions)
    report = check_file(csv, "flux.1", positions=str(tmp_path / "p.npy"), level="float32")
    assert report.conformant, report.summary()


def test_a_buggy_file_is_failed_and_diagnosed(tmp_path: Path) -> None:
    out = _saved(
        tmp_path, ports.numpy_mrope(1e6, (16, 24, 24), False, swap_hw=True), "qwen2.5-vl-7b"
    )
    report = check_file(out, "qwen2.5-vl-7b")
    assert not report.conformant
    assert [c.status for c in report.checks if c.stage == "golden"] == ["failed"]
    assert report.diagnosis is not None and "axes mixed up" in report.diagnosis["cause"]


def test_a_file_with_bf16_ids_is_diagnosed(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    base = ports.numpy_mrope(1e6, (16, 24, 24), False)

    def port(x: Any, positions: Any, config: Any) -> Any:
        low = torch.from_numpy(positions).to(torch.bfloat16).to(torch.float64).numpy()
        return base(x, low, config)

    config = _after_prompt("qwen2.5-vl-7b", 1000)
    report = check_file(_saved(tmp_path, port, config), config)
    assert report.diagnosis is not None
    assert report.diagnosis["cause"].startswith("position ids rounded to bfloat16")


def test_cli_from_file_exit_codes(tmp_path: Path) -> None:
    good = _saved(tmp_path, ports.numpy_mrope(5e6, (24, 20, 20), True), "qwen3-vl-4b")
    result = _run("--from-file", str(good), "--config", "qwen3-vl-4b")
    assert result.returncode == 0, result.stdout + result.stderr
    bad = _saved(tmp_path, ports.numpy_mrope(5e6, (24, 20, 20), False), "qwen3-vl-4b", "b.npy")
    result = _run("--from-file", str(bad), "--config", "qwen3-vl-4b")
    assert result.returncode == 1
    assert "sectioned M-RoPE instead of interleaved" in " ".join(result.stdout.split())


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    np.save(tmp_path / "narrow.npy", np.zeros((16448, 64), dtype=np.float32))
    np.save(tmp_path / "short.npy", np.zeros((10, 128), dtype=np.float32))
    np.save(tmp_path / "p2.npy", np.zeros((10, 2), dtype=np.int64))
    cases = [
        (("--from-file", str(tmp_path / "narrow.npy")), "must hold a 2-D array of 128 columns"),
        (("--from-file", str(tmp_path / "short.npy")), "has 10 rows but"),
        (
            ("--from-file", str(tmp_path / "short.npy"), "--positions", str(tmp_path / "p2.npy")),
            "must hold 3 numeric columns",
        ),
        (("--from-file", str(tmp_path / "missing.npy")), "from_file must be an existing"),
        (("tests.multiaxis.rope.ports:flux_backend", "--positions", "p.npy"), "only applies with"),
        (("tests.multiaxis.rope.ports:flux_backend", "--from-file", "x.npy"), "exactly one of"),
    ]
    for args, needle in cases:
        result = _run(*args, "--config", "qwen3-vl-4b")
        assert result.returncode == 2 and needle in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
