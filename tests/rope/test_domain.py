"""The position domain of a rotary conformance claim (SPEC R8.17–R8.19; issue 24 items 1, 2).

A correct table-lookup backend (HF GPT-J's ``embed_positions[position_ids]``, a vLLM-style cos/sin
cache gathered by position) with as many rows as the model's context is CONFORMANT with no
declaration; larger and fractional positions are checked only when claimed; golden rows outside
the domain are skipped and counted; a claim that fails only beyond the default domain is told
what to declare; the diagnosis never says "no bug found" next to a backend that raised, and never
probes beyond the domain. Expected domains come from the published config.json values
(max_position_embeddings: Llama-2 4096, Llama-3.1 131072), not from the code under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rope_implementations as impl
from paths import HF_CONFIGS

from pespec.rope import PRESET_SOURCES, PRESETS, RopeConfig, frequencies
from pespec.rope.backends import RopeCapabilities
from pespec.rope.domain import DEFAULT_CONTEXT, context_length, position_domain
from pespec.rope.suite import check

LLAMA2, LLAMA31 = PRESETS["Llama-2-7B"], PRESETS["Llama-3.1-8B"]

LOOKUP_ROPE = """
import numpy as np

_rows = np.arange(1 << 21, dtype=np.float32)


def lookup(x, positions, rope):
    half = rope.head_dim // 2
    exponent = np.arange(0, rope.head_dim, 2, dtype=np.float32) / np.float32(rope.head_dim)
    inv_freq = (1.0 / np.float32(rope.theta) ** exponent).astype(np.float32)
    phase = _rows[positions][:, None] * inv_freq
    cos = np.concatenate([np.cos(phase)] * 2, axis=1)
    sin = np.concatenate([np.sin(phase)] * 2, axis=1)
    x = np.asarray(x, dtype=np.float32)
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=1)
    return x * cos + rotated * sin
"""


def cache_backend(config: RopeConfig, rows: int, seen: list[np.ndarray] | None = None) -> Any:
    """A vLLM-style backend: a float32 cos/sin cache of ``rows`` rows (t = arange(rows) in
    float32 times ω' rounded to float32, as transformers' inv_freq), gathered by position
    (IndexError beyond ``rows``), halves pairing; ``seen`` collects every positions array."""
    omega, attention = frequencies(config)
    inv_freq = omega.astype(np.float32)
    phase = np.arange(rows, dtype=np.float32)[:, None] * inv_freq[None, :]
    cache = np.concatenate([np.cos(phase), np.sin(phase)], axis=1) * np.float32(attention)
    half = config.d_r // 2

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> np.ndarray:
        if seen is not None:
            seen.append(np.array(positions, copy=True))
        cos_sin = cache[positions]
        cos, sin = cos_sin[:, :half], cos_sin[:, half:]
        xs = np.asarray(x, dtype=np.float32)
        out = xs.copy()
        a, b = xs[:, :half], xs[:, half : 2 * half]
        out[:, :half], out[:, half : 2 * half] = a * cos - b * sin, a * sin + b * cos
        return out

    return fn


# -- the default domain comes from the configuration ------------------------------------------


def test_issue_24_lookup_rope_is_conformant_on_llama_2(tmp_path: Path) -> None:
    (tmp_path / "lookup_rope.py").write_text(LOOKUP_ROPE)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pespec",
            "rope",
            "check",
            "lookup_rope.py:lookup",
            "--config",
            "Llama-2-7B",
            "--quiet",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "CONFORMANT" in run.stdout and "NON-CONFORMANT" not in run.stdout
    assert "on integer positions 0..4095" in run.stdout


@pytest.mark.parametrize(("name", "rows"), [("Llama-2-7B", 4096), ("Llama-3.1-8B", 131072)])
def test_a_cache_sized_to_the_context_is_conformant(name: str, rows: int) -> None:
    seen: list[np.ndarray] = []
    report = check(cache_backend(PRESETS[name], rows, seen), name)
    assert report.conformant, report.summary()
    assert f"on integer positions 0..{rows - 1} " in report.summary()
    assert all(p.dtype == np.int64 for p in seen)  # positions are int64 in the default domain
    assert max(int(p.max()) for p in seen if p.size) == rows - 1  # the whole domain is reached
    golden = next(c for c in report.checks if c.stage == "golden")
    assert golden.status == "passed" and golden.details["rows_skipped"] > 0
    assert "fractional" in golden.message and f"beyond position {rows - 1}" in golden.message
    data = report.to_dict()
    assert data["domain"]["max_position"] == rows - 1 and data["domain"]["default"] is True
    assert data["schema_version"] == "1.5"


def test_golden_rows_outside_the_domain_are_counted_not_failed() -> None:
    # Llama-2's fixture (SPEC §8.6, L = 4096): integer positions {0, 1, 2, 3, 7, 100, 1000, 2049,
    # 4095, 4096, 8192, 1000000, 2^20} and fractional 0.5, 1234.75: 9 inside 0..4095,
    # 4 beyond, 2 fractional.
    report = check(cache_backend(LLAMA2, 4096), LLAMA2, diagnose=False)
    golden = report.get("golden:rope-llama-2-7b")
    assert (golden.details["rows_checked"], golden.details["rows_skipped"]) == (9, 6)
    assert "6 of 15 rows skipped" in golden.message and "4 beyond position 4095" in golden.message
    assert "2 fractional" in golden.message


def test_a_claim_checks_fractional_and_larger_positions() -> None:
    report = check("numpy", LLAMA2, max_position=2**20, fractional_positions=True, diagnose=False)
    assert report.conformant, report.summary()
    assert "on positions in [0, 1048576], fractional" in report.summary()
    assert report.get("golden:rope-llama-2-7b").details["rows_skipped"] == 0
    assert report.get("reference:0..1048576").status == "passed"


def test_capabilities_claim_the_domain() -> None:
    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        return impl.halves_float64(x, positions, rope)

    fn.pespec_capabilities = {"max_position": 70000, "fractional_positions": True}  # type: ignore[attr-defined]
    report = check(fn, LLAMA2, diagnose=False)
    assert report.conformant, report.summary()
    assert "positions in [0, 70000], fractional" in report.summary()
    with pytest.raises(ValueError, match="cannot both"):
        RopeCapabilities(fractional_positions=True, integer_positions_only=True)
    with pytest.raises(TypeError, match="fractional_positions must be a bool"):
        RopeCapabilities(fractional_positions="yes")  # type: ignore[arg-type]


def test_a_claim_that_fails_only_beyond_the_context_is_told_what_to_declare() -> None:
    fn = cache_backend(LLAMA2, 4096)
    report = check(fn, LLAMA2, max_position=2**20)
    assert not report.conformant
    text = report.summary()
    assert "max_position=4095" in text and "--max-position 4095" in text
    assert report.to_dict()["domain"]["advice"]
    # the backend raised IndexError: the diagnosis names the call, never "no bug found"
    assert report.diagnosis_sentence is not None
    assert "no bug found" not in report.diagnosis_sentence
    assert "IndexError" in report.diagnosis_sentence
    assert "positions" in report.diagnosis_sentence


def test_the_diagnosis_probes_no_position_beyond_a_declared_max_position() -> None:
    seen: list[np.ndarray] = []
    buggy = impl.bug_bf16_positions(LLAMA2)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        seen.append(np.array(positions, copy=True))
        return buggy(x, positions, rope)

    fn.pespec_capabilities = {"max_position": 5000}  # type: ignore[attr-defined]
    report = check(fn, LLAMA2)
    assert not report.conformant and report.diagnosis is not None
    assert report.backend_calls is not None and report.backend_calls["diagnosis_calls"] > 0
    assert max(int(p.max()) for p in seen if p.size) <= 5000


# -- where N comes from ----------------------------------------------------------------------


def test_context_length_per_schedule() -> None:
    # config.json max_position_embeddings (Annex F.1): Llama-2 4096, Llama-3.1 131072,
    # DeepSeek-V3 163840, GPT-J n_positions 2048; Phi-3.5 L = 131072 for both ℓ.
    expected = {
        "Llama-2-7B": 4096,
        "Llama-3.1-8B": 131072,
        "DeepSeek-V3": 163840,
        "GPT-J-6B": 2048,
        "Phi-3.5-mini-instruct, ℓ = 4096": 131072,
    }
    for name, n in expected.items():
        assert context_length(PRESETS[name])[0] == n, name
    assert context_length(RopeConfig(head_dim=64)) == (
        DEFAULT_CONTEXT,
        "no context length in the configuration: the default 2^20",
    )
    yarn = RopeConfig(
        head_dim=64, rope_type="yarn", factor=32.0, original_max_position_embeddings=4096
    )
    assert context_length(yarn)[0] == 32 * 4096  # s·L0, the target context
    dynamic = RopeConfig(
        head_dim=64, rope_type="dynamic", factor=4.0, max_position_embeddings=4096, seq_len=10000
    )
    assert context_length(dynamic)[0] == 10000  # ℓ > L: a sequence of ℓ positions


def test_the_reader_carries_the_context_length() -> None:
    for name, source in PRESET_SOURCES.items():
        data = json.loads((HF_CONFIGS / source.copy).read_text())
        read = RopeConfig.from_hf(data, layer_type=source.layer_type, seq_len=source.seq_len)
        assert read.context_length == PRESETS[name].context_length, name
    assert RopeConfig(head_dim=8, context_length=10) == RopeConfig(head_dim=8)  # not the rotation
    assert RopeConfig.from_dict({"head_dim": 8, "context_length": 10}).context_length == 10
    with pytest.raises(ValueError, match="context_length must be an int >= 1"):
        RopeConfig(head_dim=8, context_length=0)


def test_run_arguments_win_over_capabilities() -> None:
    caps = RopeCapabilities(max_position=100, fractional_positions=True)
    domain = position_domain(LLAMA2, caps, max_position=50, fractional_positions=False)
    assert (domain.max_position, domain.fractional) == (50, False)
    assert domain.describe() == "positions in [0, 50], integers only"
    assert position_domain(LLAMA2, RopeCapabilities()).describe() == "integer positions 0..4095"


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_cli_flags(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pespec",
            "rope",
            "check",
            "numpy",
            "--config",
            "Llama-2-7B",
            "--max-position",
            "8192",
            "--fractional-positions",
            "--quiet",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "positions in [0, 8192], fractional" in run.stdout
    domain = json.loads(out.read_text())["domain"]
    assert (domain["max_position"], domain["fractional"], domain["default"]) == (8192, True, False)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "pespec",
            "rope",
            "check",
            "numpy",
            "--config",
            "Llama-2-7B",
            "--max-position",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2 and "--max-position must be" in bad.stderr
    assert "Traceback" not in bad.stderr
