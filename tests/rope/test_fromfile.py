"""``pespec rope check --from-file`` (SPEC R8.16): a rotary kernel's saved output.

Expected values: the exact rotation comes from the float64 reference and the certified golden
fixtures; the inputs are checked against the formula and positions as the SPEC states them
(written out here, not taken from the code under test); the C kernel of docs/guide.md is
compiled, run, and checked through the CLI, and a one-line bug in it must fail.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from paths import ROOT

from pespec.cli import main
from pespec.rope import PRESETS, RopeConfig, check_file, frequencies, rotate
from pespec.rope.fromfile import NO_DIAGNOSIS, file_inputs
from pespec.sinusoidal.properties.base import DTYPES
from tests.docs.test_examples import blocks

GUIDE = ROOT / "docs" / "guide.md"
C_KERNEL = ROOT / "docs" / "examples" / "rope_kernel.c"
CUDA_KERNEL = ROOT / "docs" / "examples" / "rope_kernel.cu"


def _spec_inputs(rope: RopeConfig, positions: list[float]) -> np.ndarray:
    """x[r][k] = ((37(k + 1) + 101 r) mod 257 − 128)/64, as SPEC §8.6 states it."""
    return np.array(
        [
            [((37 * (k + 1) + 101 * r) % 257 - 128) / 64 for k in range(rope.head_dim)]
            for r in range(len(positions))
        ],
        dtype=np.float64,
    )


def _exact(preset: str) -> tuple[RopeConfig, np.ndarray, np.ndarray]:
    rope = PRESETS[preset]
    positions, x = file_inputs(rope)
    return rope, positions, rotate(x, positions, rope)


def _ratio(report: Any, check_id: str) -> float:
    found = next(c for c in report.checks if c.id == check_id)
    assert found.status == "failed", found.message
    return float("inf") if found.ratio is None else float(found.ratio)


def _rope_float32(
    x: np.ndarray, positions: np.ndarray, rope: RopeConfig, inv_freq: np.ndarray
) -> np.ndarray:
    """The halves rotation in float32 with the given float32 inverse frequencies."""
    phase = positions.astype(np.float32)[:, None] * inv_freq[None, :]
    cos, sin = np.cos(phase), np.sin(phase)
    half = rope.d_r // 2
    a, b = x[:, :half].astype(np.float32), x[:, half : rope.d_r].astype(np.float32)
    out = x.astype(np.float32)
    out[:, :half], out[:, half : rope.d_r] = a * cos - b * sin, a * sin + b * cos
    return out


# -- the inputs ----------------------------------------------------------------------------


def test_inputs_are_the_fixture_positions_and_the_stated_formula() -> None:
    rope = PRESETS["Llama-2-7B"]
    positions, x = file_inputs(rope)
    stored = json.loads((ROOT / "pespec" / "golden" / "rope-llama-2-7b.json").read_text())
    assert positions.tolist() == stored["positions"]
    # SPEC §8.6 with L = 4096: 0 1 2 3 7 100 1000 2049 4095 4096 8192 1e6 2^20, 0.5, 1234.75
    assert positions.tolist() == [
        0,
        1,
        2,
        3,
        7,
        100,
        1000,
        2049,
        4095,
        4096,
        8192,
        1_000_000,
        2**20,
        0.5,
        1234.75,
    ]
    np.testing.assert_array_equal(x, _spec_inputs(rope, positions.tolist()))


def test_inputs_of_a_config_that_is_no_preset_use_its_context_length() -> None:
    rope = RopeConfig(
        head_dim=8,
        theta=1e5,
        rope_type="dynamic",
        factor=2.0,
        max_position_embeddings=1000,
        seq_len=1000,
    )
    positions, x = file_inputs(rope)
    assert positions.tolist() == [
        0,
        1,
        2,
        3,
        7,
        100,
        501,
        999,
        1000,
        2000,
        4095,
        4096,
        1_000_000,
        2**20,
        0.5,
        1234.75,
    ]
    assert x.shape == (16, 8)
    plain, _ = file_inputs(RopeConfig(head_dim=8, theta=1e5))  # no length: L = 4096
    assert plain.tolist() == [
        0,
        1,
        2,
        3,
        7,
        100,
        1000,
        2049,
        4095,
        4096,
        8192,
        1_000_000,
        2**20,
        0.5,
        1234.75,
    ]


def test_inputs_command_writes_csv_and_npz(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rope = PRESETS["GPT-J-6B"]
    positions, x = file_inputs(rope)
    assert main(["rope", "inputs", "--config", "GPT-J-6B"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "position," + ",".join(f"x{k}" for k in range(rope.head_dim))
    table = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    np.testing.assert_array_equal(table[:, 0], positions)
    np.testing.assert_array_equal(table[:, 1:], x)
    assert main(["rope", "inputs", "--config", "GPT-J-6B", "-o", str(tmp_path / "in.npz")]) == 0
    with np.load(tmp_path / "in.npz", allow_pickle=False) as stored:
        np.testing.assert_array_equal(stored["positions"], positions)
        np.testing.assert_array_equal(stored["x"], x)
    assert main(["rope", "inputs", "--config", "GPT-J-6B", "-o", str(tmp_path / "in.bin")]) == 2
    assert "-o must end in .csv, .txt or .npz" in capsys.readouterr().err


# -- verdicts ------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["Llama-2-7B", "Llama-3.1-8B", "DeepSeek-V3", "gpt-oss-20b"])
def test_a_correct_float32_file_is_conformant(preset: str, tmp_path: Path) -> None:
    _, _, exact = _exact(preset)
    path = tmp_path / "out.npy"
    np.save(path, exact.astype(np.float32))
    report = check_file(path, preset)
    assert report.conformant, report.summary()
    assert report.level == "float32/float32/float32"
    assert {c.id for c in report.checks if c.status == "passed"} >= {
        "reference:file",
        f"golden:rope-{preset.lower().replace('.', '-')}",
    }


def test_a_bfloat16_file_is_judged_at_the_bfloat16_default(tmp_path: Path) -> None:
    # np.save records an ml_dtypes bfloat16 array as |V2; the reader views it as bfloat16.
    _, _, exact = _exact("Llama-3.1-8B")
    path = tmp_path / "out.npy"
    np.save(path, exact.astype(np.float32).astype(DTYPES["bfloat16"]))
    report = check_file(path, "Llama-3.1-8B")
    assert report.conformant, report.summary()
    assert report.level == "float32/bfloat16/bfloat16"


def test_a_float32_kernel_written_as_float64_may_claim_float32(tmp_path: Path) -> None:
    rope = PRESETS["Llama-2-7B"]
    positions, x = file_inputs(rope)
    inv_freq = (1.0 / rope.theta ** (np.arange(0, 128, 2) / 128)).astype(np.float32)
    path = tmp_path / "out.npy"
    np.save(path, _rope_float32(x, positions, rope, inv_freq).astype(np.float64))
    assert not check_file(path, rope).conformant  # judged at float64 by default
    assert check_file(path, rope, level="float32").conformant


def test_halves_and_interleaved_swapped_fail(tmp_path: Path) -> None:
    rope = PRESETS["Llama-3.1-8B"]
    positions, x = file_inputs(rope)
    swapped = rotate(x, positions, dataclasses.replace(rope, pairing="interleaved"))
    path = tmp_path / "swapped.npy"
    np.save(path, swapped.astype(np.float32))
    report = check_file(path, rope)
    assert not report.conformant
    assert _ratio(report, "reference:file") >= 10
    assert _ratio(report, "golden:rope-llama-3-1-8b") >= 10
    assert report.diagnosis_sentence == NO_DIAGNOSIS


def test_inv_freq_in_bfloat16_fails(tmp_path: Path) -> None:
    rope = PRESETS["Llama-3.1-8B"]
    positions, x = file_inputs(rope)
    omega, _ = frequencies(rope)
    inv_freq = omega.astype(np.float32).astype(DTYPES["bfloat16"]).astype(np.float32)
    path = tmp_path / "bf16.npy"
    np.save(path, _rope_float32(x, positions, rope, inv_freq))
    report = check_file(path, rope)
    assert not report.conformant
    assert _ratio(report, "reference:file") >= 10


def test_a_nan_fails_the_finite_contract(tmp_path: Path) -> None:
    _, positions, exact = _exact("Llama-2-7B")
    bad = exact.astype(np.float32)
    bad[5, 3] = np.nan
    path = tmp_path / "nan.npy"
    np.save(path, bad)
    report = check_file(path, "Llama-2-7B")
    finite = next(c for c in report.checks if c.id == "contract:finite")
    assert finite.status == "failed"
    assert f"position {positions[5].item()!r} (row 6), column 3" in finite.message
    assert _ratio(report, "reference:file") == float("inf")


def test_text_is_read_as_float64_unless_a_level_is_claimed(tmp_path: Path) -> None:
    rope = PRESETS["Llama-2-7B"]
    positions, x = file_inputs(rope)
    inv_freq = (1.0 / rope.theta ** (np.arange(0, 128, 2) / 128)).astype(np.float32)
    out = _rope_float32(x, positions, rope, inv_freq)
    path = tmp_path / "out.csv"
    rows = [",".join(["position"] + [f"y{k}" for k in range(128)])]
    rows += [
        ",".join([repr(float(p))] + [f"{v:.9g}" for v in row])
        for p, row in zip(positions, out.tolist(), strict=True)
    ]
    path.write_text("\n".join(rows) + "\n")
    report = check_file(path, rope)
    assert not report.conformant
    assert "read as float64" in next(c for c in report.failed if c.stage == "reference").message
    assert check_file(path, rope, level="float32").conformant


def test_stored_positions_other_than_the_inputs_are_checked_against_the_reference(
    tmp_path: Path,
) -> None:
    rope = PRESETS["Llama-2-7B"]
    positions = np.arange(0, 20000, 7, dtype=np.float64)
    x = _spec_inputs(rope, positions.tolist())
    exact = rotate(x, positions, rope).astype(np.float32)
    path = tmp_path / "many.npz"
    np.savez(path, out=exact, positions=positions)
    report = check_file(path, rope)
    assert report.conformant, report.summary()
    golden = next(c for c in report.checks if c.stage == "golden")
    assert "(1 rows)" in golden.title  # only row 0 (position 0) holds a fixture's input
    # position 70, column 0: the float32 bound there is 1.1e-4 (R8.12: (|a| + |b|)·Δφ with
    # |a| + |b| = 2.55, Δφ ≈ 70·(K_0 + 1)·u_P, K_0 = 2·c_f + 1 = 9 at c_f = 4 ulp, SPEC §4.1 A2)
    exact[10, 0] += 2e-3
    np.savez(path, out=exact, positions=positions)
    assert _ratio(check_file(path, rope), "reference:file") >= 10


# -- the CLI -------------------------------------------------------------------------------


def test_cli_reports_carry_the_file_and_its_sha256(tmp_path: Path) -> None:
    _, positions, exact = _exact("Llama-2-7B")
    path = tmp_path / "out.npy"
    np.save(path, exact.astype(np.float32))
    json_path, md_path = tmp_path / "r.json", tmp_path / "r.md"
    assert (
        main(
            [
                "rope",
                "check",
                "--from-file",
                str(path),
                "--config",
                "Llama-2-7B",
                "--json",
                str(json_path),
                "--markdown",
                str(md_path),
                "--quiet",
            ]
        )
        == 0
    )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    document = json.loads(json_path.read_text())
    assert document["family"] == "rope" and document["conformant"] is True
    assert document["backend"]["file"]["sha256"] == digest
    assert document["backend"]["file"]["positions"]["count"] == positions.shape[0]
    assert document["level"]["stages"] == {
        "phase": "float32",
        "cache": "float32",
        "rotation": "float32",
    }
    assert digest in md_path.read_text()


def test_cli_non_conformant_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rope = PRESETS["Llama-2-7B"]
    positions, x = file_inputs(rope)
    path = tmp_path / "swapped.npy"
    np.save(path, rotate(x, positions, dataclasses.replace(rope, pairing="interleaved")))
    assert main(["rope", "check", "--from-file", str(path), "--config", "Llama-2-7B"]) == 1
    out = capsys.readouterr().out
    assert "NON-CONFORMANT" in out and "none from a file" in out


def _usage_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    assert "error:" in captured.err
    return captured.err


def test_usage_errors_exit_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, exact = _exact("Llama-2-7B")
    good = tmp_path / "out.npy"
    np.save(good, exact.astype(np.float32))
    config = ["--config", "Llama-2-7B"]
    assert "exactly one of BACKEND or --from-file" in _usage_error(
        ["rope", "check", *config], capsys
    )
    assert "exactly one of BACKEND or --from-file" in _usage_error(
        ["rope", "check", "numpy", "--from-file", str(good), *config], capsys
    )
    assert "does not exist" in _usage_error(
        ["rope", "check", "--from-file", str(tmp_path / "none.npy"), *config], capsys
    )
    assert "--profile and --timeout do not apply" in _usage_error(
        ["rope", "check", "--from-file", str(good), *config, "--profile", "ci"], capsys
    )
    assert "is looser than float32/float32/float32, the default level" in _usage_error(
        ["rope", "check", "--from-file", str(good), *config, "--level", "bfloat16"], capsys
    )
    assert "level must be PHASE/CACHE/ROTATION" in _usage_error(
        ["rope", "check", "--from-file", str(good), *config, "--level", "float8"], capsys
    )
    wide = tmp_path / "wide.npy"
    np.save(wide, exact[:, :64].astype(np.float32))
    assert "has 64 columns but the configuration's head_dim is 128" in _usage_error(
        ["rope", "check", "--from-file", str(wide), *config], capsys
    )
    short = tmp_path / "short.npy"
    np.save(short, exact[:-1].astype(np.float32))
    assert "has 14 rows but the 15 inputs" in _usage_error(
        ["rope", "check", "--from-file", str(short), *config], capsys
    )
    cut = tmp_path / "cut.npy"
    cut.write_bytes(good.read_bytes()[:-100])
    assert "corrupt .npy" in _usage_error(
        ["rope", "check", "--from-file", str(cut), *config], capsys
    )
    flat = tmp_path / "flat.npy"
    np.save(flat, exact.astype(np.float32).ravel())
    assert "must hold a 2-D array" in _usage_error(
        ["rope", "check", "--from-file", str(flat), *config], capsys
    )


# -- the C and CUDA kernels of the guide ---------------------------------------------------


def _guide_block(language: str) -> str:
    found = [b.code for b in blocks(GUIDE) if b.language == language]
    assert len(found) == 1, f"the guide must hold one ```{language} block"
    return found[0]


def test_the_guide_shows_the_c_kernel_verbatim() -> None:
    assert _guide_block("c") == C_KERNEL.read_text(encoding="utf-8")


def _compile_and_check(source: str, workdir: Path, name: str) -> tuple[int, dict[str, Any]]:
    compiler = shutil.which("cc")
    assert compiler is not None
    (workdir / f"{name}.c").write_text(source, encoding="utf-8")
    subprocess.run(
        [compiler, "-O2", "-o", str(workdir / name), str(workdir / f"{name}.c"), "-lm"],
        check=True,
        capture_output=True,
    )
    inputs, out = workdir / "inputs.csv", workdir / f"{name}.csv"
    assert main(["rope", "inputs", "--config", "Llama-2-7B", "-o", str(inputs)]) == 0
    with inputs.open("rb") as given, out.open("wb") as written:
        subprocess.run([str(workdir / name), "10000"], stdin=given, stdout=written, check=True)
    report = workdir / f"{name}.json"
    code = main(
        [
            "rope",
            "check",
            "--from-file",
            str(out),
            "--config",
            "Llama-2-7B",
            "--level",
            "float32",
            "--json",
            str(report),
            "--quiet",
        ]
    )
    return code, json.loads(report.read_text())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) installed")
def test_the_c_kernel_is_conformant_and_a_one_line_bug_fails(tmp_path: Path) -> None:
    source = C_KERNEL.read_text(encoding="utf-8")
    code, document = _compile_and_check(source, tmp_path, "rope_kernel")
    assert code == 0 and document["conformant"], document["checks"]
    halves = "int ia = j, ib = j + d / 2;"
    assert source.count(halves) == 1
    buggy = source.replace(halves, "int ia = 2 * j, ib = 2 * j + 1;")  # interleaved pairs
    code, document = _compile_and_check(buggy, tmp_path, "rope_kernel_bug")
    assert code == 1
    ratios = [c["ratio"] for c in document["checks"] if c["status"] == "failed"]
    assert ratios and min(ratios) >= 1e6  # errors of order 1, bounds below 1e-6 (guide)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (CUDA) not installed")
def test_the_cuda_kernel_compiles(tmp_path: Path) -> None:
    # Compiled only: running it needs a GPU (docs/guide.md gives the commands).
    compiled = subprocess.run(
        ["nvcc", "-O2", "-c", "-o", str(tmp_path / "rope.o"), str(CUDA_KERNEL)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr
    source = CUDA_KERNEL.read_text(encoding="utf-8")
    assert "int ia = j, ib = j + half;" in source and "use_fast_math" in source
