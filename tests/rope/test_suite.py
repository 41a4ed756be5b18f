"""The rotary suite (SPEC §8.7–§8.8): verdicts on the built-ins, and its meta-tests.

Soundness: every correct stack passes at its level at positions up to 2^20, on every preset.
Tightness: a float32 stack reaches more than a tenth of the bound. Sensitivity: each one-stage
bug of issue 17's list fails with a ratio >= 10. Expected verdicts come from the derivation of
SPEC §8.7 and the published bug reports, never from the suite itself.
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rope_implementations as impl
from paths import HF_CONFIGS

from pespec.rope import PRESETS, RopeConfig
from pespec.rope.errormodel import (
    RopeLevel,
    check_rope_claim,
    parse_rope_level,
    rope_level_for_dtype,
)
from pespec.rope.suite import RopeSuite, check

LLAMA2, LLAMA31 = PRESETS["Llama-2-7B"], PRESETS["Llama-3.1-8B"]
QWEN = PRESETS["Qwen2.5-7B-Instruct"]
GPTJ, GPTOSS, DEEPSEEK = PRESETS["GPT-J-6B"], PRESETS["gpt-oss-20b"], PRESETS["DeepSeek-V3"]
DYNAMIC = RopeConfig(
    head_dim=128,
    theta=10000.0,
    rope_type="dynamic",
    factor=4.0,
    max_position_embeddings=4096,
    seq_len=4096,
)


def _worst_ratio(report: Any) -> float:
    ratios = [c.ratio for c in report.checks if c.stage in ("golden", "reference", "property")]
    return max((r for r in ratios if r is not None), default=math.inf)


def _fast(backend: Any, config: Any, **kw: Any) -> Any:
    return check(backend, config, diagnose=False, **kw)


# -- levels --------------------------------------------------------------------------------


def test_default_levels_follow_the_output_dtype() -> None:
    assert rope_level_for_dtype("float32") == RopeLevel("float32", "float32", "float32")
    assert rope_level_for_dtype("bfloat16") == RopeLevel("float32", "bfloat16", "bfloat16")
    assert rope_level_for_dtype("float16") == RopeLevel("float32", "float16", "float16")
    assert rope_level_for_dtype("float64") == RopeLevel("float64", "float64", "float64")


def test_a_claim_can_only_tighten() -> None:
    assert check_rope_claim(parse_rope_level("float32/float32/float32"), "bfloat16")
    with pytest.raises(ValueError, match="looser"):
        check_rope_claim(parse_rope_level("bfloat16/bfloat16/bfloat16"), "bfloat16")
    with pytest.raises(ValueError, match="looser"):
        check_rope_claim(parse_rope_level("float32/float32/float32"), "float64")
    with pytest.raises(ValueError, match="PHASE/CACHE/ROTATION"):
        parse_rope_level("float32/float32")


# -- built-ins: every preset --------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("backend", ["numpy", "numpy-float32"])
def test_builtins_conform_on_every_preset(backend: str, name: str) -> None:
    report = _fast(backend, PRESETS[name])
    assert report.conformant, report.summary()
    assert {c.stage for c in report.checks} >= {"contract", "reference", "property"}


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["torch", "torch-float64", "torch-float16", "torch-bfloat16"])
def test_torch_builtins_conform(backend: str) -> None:
    pytest.importorskip("torch")
    for config in (LLAMA31, GPTOSS, DEEPSEEK, GPTJ):
        report = _fast(backend, config)
        assert report.conformant, report.summary()


# -- soundness over independent correct stacks ---------------------------------------------


@pytest.mark.slow
def test_sound_halves_float64() -> None:
    for config in (LLAMA2, LLAMA31, QWEN, GPTOSS, DEEPSEEK):
        report = _fast(impl.halves_float64, config)
        assert report.conformant, report.summary()


def test_sound_gptj_numpy_float32() -> None:
    report = _fast(impl.gptj_numpy, GPTJ)
    assert report.conformant, report.summary()


def test_sound_meta_complex64() -> None:
    pytest.importorskip("torch")
    config = dataclasses.replace(LLAMA2, pairing="interleaved")
    report = _fast(impl.meta_complex64, config)
    assert report.conformant, report.summary()


def test_sound_dynamic_schedule() -> None:
    omega_config = DYNAMIC
    report = _fast("numpy-float32", omega_config)
    assert report.conformant, report.summary()


# -- tightness ------------------------------------------------------------------------------


def test_tight_float32_reaches_a_tenth_of_the_bound() -> None:
    report = _fast("numpy-float32", LLAMA2, max_position=2**20)  # claimed beyond the context
    assert report.get("reference:0..1048576").ratio > 0.1


# -- sensitivity: each one-stage bug fails with ratio >= 10 --------------------------------

BUGS = {
    "bf16 inv_freq": (lambda: impl.bug_bf16_inv_freq(LLAMA31), LLAMA31, {}),
    "fp16 cache at theta 1e6": (lambda: impl.bug_fp16_cache(QWEN), QWEN, {"max_position": 60000}),
    "bf16 positions": (lambda: impl.bug_bf16_positions(LLAMA2), LLAMA2, {}),
    "YaRN truncate ignored": (
        lambda: impl.bug_schedule(dataclasses.replace(GPTOSS, truncate=True)),
        GPTOSS,
        {},
    ),
    "dynamic collapsed": (
        lambda: impl.bug_schedule(dataclasses.replace(DYNAMIC, seq_len=4 * 4096)),
        DYNAMIC,
        {},
    ),
    "partial rotary over head_dim": (lambda: impl.bug_partial_over_head_dim(GPTJ), GPTJ, {}),
    "halves as interleaved": (lambda: impl.bug_pairing(LLAMA2, "interleaved"), LLAMA2, {}),
    "interleaved as halves": (lambda: impl.bug_pairing(GPTJ, "halves"), GPTJ, {}),
    "DeepSeek attention factor": (lambda: impl.bug_deepseek_attention(DEEPSEEK), DEEPSEEK, {}),
}


@pytest.mark.parametrize("bug", list(BUGS))
def test_sensitive_to_each_bug(bug: str) -> None:
    make, config, kw = BUGS[bug]
    report = _fast(make(), config, **kw)
    assert not report.conformant
    assert _worst_ratio(report) >= 10, report.summary()


def test_fp16_cache_overflows_beyond_65504() -> None:
    report = _fast(impl.bug_fp16_cache(QWEN), QWEN)
    assert not report.conformant
    assert "finite" in report.summary() or _worst_ratio(report) >= 10


# -- API, report and CLI ----------------------------------------------------------------------


def test_report_json_carries_verdict_level_checks_config(tmp_path: Path) -> None:
    report = _fast("numpy-float32", "Llama-3.1-8B")
    path = tmp_path / "r.json"
    report.write_json(path)
    data = json.loads(path.read_text())
    assert data["conformant"] is True
    assert data["level"]["stages"] == {
        "phase": "float32",
        "cache": "float32",
        "rotation": "float32",
    }
    assert data["config"] == LLAMA31.to_dict()
    assert data["checks"][0]["id"] == "contract:shape"
    markdown = report.to_markdown()
    assert '"rope_type": "llama3"' in markdown and "phase float32" in markdown


def test_a_raising_backend_fails_and_never_crashes() -> None:
    def exits(x: Any, positions: Any, rope: Any) -> Any:
        raise SystemExit(0)

    report = _fast(exits, LLAMA2)
    assert not report.conformant


def test_a_tighter_claim_is_judged_at_the_claim() -> None:
    pytest.importorskip("torch")
    report = _fast("torch-bfloat16", LLAMA2, level="float32/float32/float32")
    assert not report.conformant  # bfloat16 cache and rotation cannot meet a float32 claim
    assert report.level == "float32/float32/float32"


def test_capabilities_declare_configs_and_level() -> None:
    def fn(x: Any, positions: Any, rope: Any) -> Any:
        return impl.halves_float64(x, positions, rope)

    fn.pespec_capabilities = {
        "configs": ["Llama-2-7B"],
        "level": "float64/float64/float64",
        "non_negative_positions": True,
    }  # type: ignore[attr-defined]
    assert _fast(fn, LLAMA2).conformant
    with pytest.raises(ValueError, match="configs"):
        RopeSuite(fn, QWEN)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pespec", "rope", "check", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_cli_exit_codes(tmp_path: Path) -> None:
    ok = _cli(
        "numpy-float32", "--config", "Llama-2-7B", "--quiet", "--json", str(tmp_path / "r.json")
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "r.json").read_text())["conformant"] is True
    usage = _cli("numpy-float32", "--config", "no-such-preset")
    assert usage.returncode == 2 and "Traceback" not in usage.stderr
    bad = tmp_path / "bug.py"
    bad.write_text(
        "import numpy as np\n"
        "def rope(x, positions, rope):\n    return np.asarray(x, dtype=np.float32)\n"
    )
    failing = _cli(f"{bad}:rope", "--config", "Llama-2-7B", "--quiet")
    assert failing.returncode == 1, failing.stdout + failing.stderr


@pytest.mark.slow
def test_cli_reads_a_transformers_config_json() -> None:
    path = HF_CONFIGS / "gpt-oss-20b.json"
    result = _cli("numpy", "--config", str(path), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_peak_memory_checking_a_million_positions() -> None:
    """1M positions x head_dim 128 in chunks: peak traced memory under 512 MiB."""
    import tracemalloc

    from pespec.rope import properties as props
    from pespec.rope.backends import _numpy_float32

    config = LLAMA2
    level = rope_level_for_dtype("float32")
    positions = np.arange(1 << 20, dtype=np.int64)
    tracemalloc.start()
    try:
        outcome = props.accuracy(
            lambda x, p: _numpy_float32(x, p, config), positions, config, level, "float32"
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outcome.passed, outcome.message
    assert peak < 512 * 2**20


def _plugin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--pyargs",
            "pespec.conformance",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_plugin_runs_the_rotary_suite(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    ran = _plugin(
        "--pe-rope-backend",
        "numpy-float32",
        "--pe-rope-config",
        "Llama-2-7B",
        "--pe-json",
        str(out),
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert json.loads(out.read_text())["level"]["name"] == "float32/float32/float32"
    usage = _plugin("--pe-rope-backend", "numpy-float32")
    assert usage.returncode == 4 and "--pe-rope-config" in usage.stderr


def test_diagnosis_is_attached_after_a_failure_when_the_module_exists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The suite calls pespec.rope.diagnosis.diagnose (issue 20) only after a failure; a
    stand-in module records the call and supplies to_dict() and the sentence."""
    import importlib.machinery
    import types

    calls: list[Any] = []

    class Found:
        sentence = "the stand-in sentence"

        def to_dict(self) -> dict[str, Any]:
            return {"explained": True}

    def diagnose(backend: Any, config: Any, *, timeout: float, max_position: int) -> Found:
        calls.append(config)
        assert max_position == 4095  # no probe beyond the checked domain (Llama-2: L = 4096)
        return Found()

    module = types.ModuleType("pespec.rope.diagnosis")
    module.__spec__ = importlib.machinery.ModuleSpec("pespec.rope.diagnosis", None)
    module.diagnose = diagnose  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pespec.rope.diagnosis", module)
    assert check("numpy-float32", LLAMA2).conformant and not calls
    report = check(impl.bug_pairing(LLAMA2, "interleaved"), LLAMA2)
    assert calls == [LLAMA2]
    assert report.to_dict()["diagnosis"] == {"explained": True}
    assert "the stand-in sentence" in report.summary()


# -- the suite with the diagnosis of issue 20 -------------------------------------------------


def _bug_cases() -> list[Any]:
    from pespec.rope.diagnosis.examples import bugs

    return [
        pytest.param(config, backend, cause, id=name) for name, cause, config, backend in bugs()
    ]


@pytest.mark.slow
@pytest.mark.parametrize(("config", "backend", "cause"), _bug_cases())
def test_each_real_bug_fails_by_ten_and_the_suite_names_its_cause(
    config: RopeConfig, backend: Any, cause: str
) -> None:
    """Issue 20's bugs through the suite: non-conformant with a ratio of at least 10, and the
    report's diagnosis (from the real pespec.rope.diagnosis) explains it with a named cause,
    in its JSON fields and in the summary."""
    report = check(backend, config)
    assert not report.conformant
    failed = {c.id for c in report.failed}
    # a non-finite output (the float16 cache beyond 65504) is an unbounded error
    ratio = math.inf if "contract:finite" in failed else _worst_ratio(report)
    assert ratio >= 10, report.summary()
    assert "convention" not in report.summary()
    found = report.to_dict()["diagnosis"]
    assert found["explained"] and found["causes"], found
    assert found["sentence"] in report.summary()
    assert report.to_dict()["backend_calls"]["diagnosis_calls"] == found["backend_calls"] <= 3


def test_a_conformant_run_calls_no_diagnosis() -> None:
    report = check("numpy-float32", LLAMA2)
    assert report.conformant and report.to_dict()["diagnosis"] is None
