"""The rotary command line meets a new user's configs and names (issue 24, items 4, 13, 16).

Each test is one reproduction from the issue: a BERT config.json checked as θ = 1e4, a θ
that defaults silently, presets that cannot be listed or that have commas in their names, a
near-miss preset refused without a suggestion, a missing file called "not a preset name", a
dynamic schedule without ℓ whose message does not name ``--seq-len``, and ``pespec rope
inputs`` that said nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from clirun import run_cli

from pespec.rope import PRESETS, from_hf

BERT = {"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12}
# Llama-2-7b-hf's config.json leaves rope_theta out; LlamaConfig's default is 10000.
LLAMA_NO_THETA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}


def _write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# --- item 4: a config.json with no rotary embedding; a θ that defaults ------------------------


@pytest.mark.parametrize("model_type", ["bert", "roberta", "gpt2", "t5", "bart", "whisper"])
def test_a_model_type_without_rotary_embedding_is_a_usage_error(
    model_type: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(tmp_path / "config.json", {**BERT, "model_type": model_type})
    code, out, err = run_cli(["rope", "check", "numpy", "--config", config, "--quiet"], capsys)
    assert code == 2, out + err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert f"model_type {model_type!r} has no rotary position embedding" in err
    assert "rope_theta" in err  # what pespec needs


def test_a_non_rotary_model_type_is_refused_by_from_hf() -> None:
    with pytest.raises(ValueError, match=r"model_type 'bert' has no rotary .*learned absolute"):
        from_hf(BERT)
    # a rotary key makes it a rotary config whatever the model type says
    assert from_hf({**BERT, "rope_theta": 10000.0}).head_dim == 64


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_a_defaulted_theta_is_said_on_the_verdict_line_and_in_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(tmp_path / "config.json", LLAMA_NO_THETA)
    report = tmp_path / "report.json"
    code, out, _ = run_cli(
        ["rope", "check", "numpy", "--config", config, "--quiet", "--json", str(report)], capsys
    )
    assert code == 0
    first = out.strip().splitlines()[0]
    assert "CONFORMANT" in first and "θ defaulted to 10000: no rope_theta in the config" in first
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert doc["schema_version"] == "1.5"
    assert doc["config_notes"] == [
        "θ defaulted to 10000: no rope_theta in the config, LlamaConfig's default",
        "max_position_embeddings defaulted to 2048: not in the config, LlamaConfig's default",
    ]


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_a_stated_theta_gives_no_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stated = {**LLAMA_NO_THETA, "rope_theta": 10000.0, "max_position_embeddings": 4096}
    config = _write(tmp_path / "config.json", stated)
    code, out, _ = run_cli(["rope", "check", "numpy", "--config", config, "--quiet"], capsys)
    assert code == 0 and "defaulted" not in out


def test_the_python_api_carries_the_note_of_a_config_dict() -> None:
    from pespec.rope import check

    report = check("numpy", LLAMA_NO_THETA, stages=("contract", "golden", "reference"))
    assert "θ defaulted to 10000" in report.summary()
    assert report.to_dict()["config_notes"] == [
        "θ defaulted to 10000: no rope_theta in the config, LlamaConfig's default",
        "max_position_embeddings defaulted to 2048: not in the config, LlamaConfig's default",
    ]


# --- item 13: listing presets, names without commas, close matches ---------------------------


def test_rope_presets_lists_one_name_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["rope", "presets", "--names"], capsys)
    assert code == 0
    assert out.splitlines() == list(PRESETS)
    assert all("," not in name for name in PRESETS)
    code, out, _ = run_cli(["rope", "presets"], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(PRESETS)
    for name, line in zip(PRESETS, lines, strict=True):
        assert line.startswith(name) and line[len(name) :].strip()  # a description follows
    assert "θ=500000" in lines[list(PRESETS).index("Llama-3.1-8B")]


def test_former_preset_names_with_commas_still_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pespec.rope.presets import PRESET_ALIASES

    for old, new in PRESET_ALIASES.items():
        assert "," in old and "," not in new
        assert PRESETS[old] == PRESETS[new] and old not in list(PRESETS)
    old = "Phi-3.5-mini-instruct, ℓ = 4096"
    code, _, err = run_cli(["rope", "inputs", "--config", old, "-o", "-"], capsys)
    assert code == 0, err


def test_a_near_miss_preset_gets_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["rope", "check", "numpy", "--config", "Qwen2.5-7B"], capsys)
    assert code == 2
    assert "no preset 'Qwen2.5-7B'; did you mean Qwen2.5-7B-Instruct?" in err
    from pespec.rope import check

    with pytest.raises(ValueError, match="did you mean Llama-2-7B"):
        check("numpy", "llama-2-7b")


# --- item 16: a missing file, ℓ without --seq-len, inputs that say what they wrote ------------


@pytest.mark.parametrize("value", ["nothere.json", "configs/nothere", "./x.json"])
def test_a_missing_config_file_says_no_such_file(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["rope", "check", "numpy", "--config", value], capsys)
    assert code == 2
    assert f"no such file: {value}" in err and "preset name" not in err


def test_a_dynamic_schedule_without_seq_len_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dynamic = {
        "model_type": "llama",
        "head_dim": 64,
        "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
    }
    config = _write(tmp_path / "config.json", dynamic)
    code, _, err = run_cli(["rope", "check", "numpy", "--config", config], capsys)
    assert code == 2 and "--seq-len is required for rope_type 'dynamic'" in err
    with pytest.raises(ValueError, match="seq_len is required for rope_type 'dynamic'"):
        from_hf(dynamic)  # the Python API names its keyword
    ropeconfig = _write(
        tmp_path / "rope.json",
        {"head_dim": 64, "rope_type": "dynamic", "factor": 2.0, "max_position_embeddings": 4096},
    )
    code, _, err = run_cli(["rope", "check", "numpy", "--config", ropeconfig], capsys)
    assert code == 2 and "--seq-len is required" in err
    code, _, err = run_cli(
        [
            "rope",
            "inputs",
            "--config",
            ropeconfig,
            "--seq-len",
            "8192",
            "-o",
            str(tmp_path / "in.npz"),
        ],
        capsys,
    )
    assert code == 0, err


def test_rope_inputs_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "inputs.npz"
    code, out, _ = run_cli(["rope", "inputs", "--config", "Llama-2-7B", "-o", str(target)], capsys)
    assert code == 0
    with np.load(target) as data:
        rows, head_dim = data["x"].shape
        last = data["positions"][-1]
    assert f"wrote {target}: {rows} rows" in out and f"head_dim {head_dim}" in out
    assert f"{last}" in out
    code, out, err = run_cli(["rope", "inputs", "--config", "Llama-2-7B"], capsys)
    assert code == 0 and out.startswith("position,x0,")  # stdout stays pure CSV
    assert f"wrote standard output: {rows} rows" in err
