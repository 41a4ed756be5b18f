"""A config.json that leaves a field out is read with the model type's transformers default
(SPEC Annex E.5; issue 41): the bare Llama config a new user wrote, the committed defaults
data (pass 1, without transformers), and every model type pespec reads against transformers'
own configuration classes (where transformers is installed)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.rope.hf import read_hf
from pespec.rope.hf_defaults import DEFAULTS_FILE, model_defaults
from pespec.rope.hf_defaults_generate import model_types
from pespec.rope.hf_fields import ConfigArgumentError
from tests.clirun import run_cli

BARE_LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}

CACHE_BACKEND = '''
import numpy as np

_TABLES = {}


def backend(x, positions, rope):
    """A 2048-row cos/sin cache gathered by position, rotate_half on the halves."""
    d = rope.head_dim
    if d not in _TABLES:
        inv = 1.0 / (rope.theta ** (np.arange(0, d, 2, dtype=np.float64) / d))
        emb = np.concatenate([np.outer(np.arange(2048.0), inv)] * 2, axis=-1)
        _TABLES[d] = (np.cos(emb), np.sin(emb))
    cos, sin = _TABLES[d]
    half = d // 2
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * cos[positions] + rotated * sin[positions]
'''


def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DEFAULTS_FILE.read_text(encoding="utf-8"))
    return data


HEAD = {"head_dim": 128, "qk_rope_head_dim": 128}
"""The head size given (as every shipped file gives it), so the defaults of context and θ
are what is read from the model type's defaults."""


def _read(config: dict[str, Any]) -> Any:
    """pespec's reading; a per-layer-type config is read for its full-attention layers."""
    config = {**config, **HEAD}
    try:
        return read_hf(config)
    except ConfigArgumentError:
        return read_hf(config, layer_type="full_attention")


def test_the_bare_llama_config_is_read_with_llamaconfig_defaults() -> None:
    reading = read_hf(BARE_LLAMA)
    # LlamaConfig (transformers 5.24): max_position_embeddings=2048, rope_theta 10000
    assert reading.config.context_length == 2048
    assert reading.config.theta == 10000.0
    assert any("max_position_embeddings defaulted to 2048" in n for n in reading.notes)


def test_a_correct_2048_row_cache_is_conformant_and_the_line_names_2048(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text(json.dumps(BARE_LLAMA))
    (tmp_path / "cache.py").write_text(CACHE_BACKEND)
    report = tmp_path / "r.json"
    code, out, _ = run_cli(
        [
            "rope",
            "check",
            f"{tmp_path / 'cache.py'}:backend",
            "--config",
            str(tmp_path / "config.json"),
            "--quiet",
            "--json",
            str(report),
        ],
        capsys,
    )
    line = out.strip().splitlines()[-1]
    assert code == 0, out
    assert "CONFORMANT" in line and "NON-CONFORMANT" not in line
    assert "max_position_embeddings defaulted to 2048" in line and "0..2047" in line
    notes = json.loads(report.read_text())["config_notes"]
    assert any("max_position_embeddings defaulted to 2048" in n for n in notes)


def test_the_data_names_its_transformers_version_and_every_model_type() -> None:
    data = _data()
    assert data["transformers_version"]
    assert set(model_types()) <= set(data["model_types"])


@pytest.mark.parametrize("model_type", model_types())
def test_the_reader_uses_the_committed_defaults(model_type: str) -> None:
    """Pass 1: a config.json giving only its model_type is read with the data's defaults."""
    _, layer = model_defaults(model_type)
    reading = _read({"model_type": model_type})
    context = layer.get("max_position_embeddings") or layer.get("n_positions")
    assert reading.config.context_length == context
    if layer.get("rope_theta") is not None:
        assert reading.config.theta == layer["rope_theta"]


def _transformers_view(model_type: str) -> dict[str, Any]:
    """What transformers' configuration class holds for a config.json of only the type."""
    transformers = pytest.importorskip("transformers")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls = transformers.CONFIG_MAPPING[model_type]
        given = {"model_type": model_type, **HEAD}
        if isinstance(getattr(cls, "head_dim", None), property):  # FalconConfig computes it
            given.pop("head_dim")
        config = cls.from_dict(given)
    config = getattr(config, "text_config", None) or config
    block = getattr(config, "rope_parameters", None) or {}
    block = block.get("full_attention", block)
    return {
        "context": getattr(config, "max_position_embeddings", None)
        or getattr(config, "n_positions", None),
        "theta": block.get("rope_theta"),
    }


@pytest.mark.parametrize("model_type", model_types())
def test_no_field_defaults_differently_from_transformers(model_type: str) -> None:
    """Every model type pespec reads: its context and θ as transformers reads a config.json
    that leaves them out."""
    want = _transformers_view(model_type)
    reading = _read({"model_type": model_type})
    assert reading.config.context_length == want["context"]
    if want["theta"] is not None:
        assert reading.config.theta == want["theta"]


def test_the_committed_data_is_what_the_generator_writes() -> None:
    transformers = pytest.importorskip("transformers")
    from pespec.rope.hf_defaults_generate import generate

    data = _data()
    if transformers.__version__ != data["transformers_version"]:
        pytest.skip(f"data from transformers {data['transformers_version']}")
    assert generate() == data


def test_an_index_error_past_a_table_is_told_to_declare_max_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cache backend against a config claiming 4096 positions: told to declare 2047."""
    (tmp_path / "config.json").write_text(
        json.dumps({**BARE_LLAMA, "max_position_embeddings": 4096})
    )
    (tmp_path / "cache.py").write_text(CACHE_BACKEND)
    code, out, _ = run_cli(
        [
            "rope",
            "check",
            f"{tmp_path / 'cache.py'}:backend",
            "--config",
            str(tmp_path / "config.json"),
        ],
        capsys,
    )
    assert code == 1
    text = " ".join(out.split())
    assert 'declare pespec_capabilities = {"max_position": 2047}' in text


def test_a_call_of_many_positions_is_described_without_repeating_the_word() -> None:
    """The issue's message said "positions 8 positions 0..1048575"."""
    from pespec.rope.guard import describe_call
    from pespec.rope.presets import PRESETS

    positions = np.array([0, 1, 2, 3, 100, 4096, 65535, 1048575])
    text = describe_call(np.zeros((8, 128)), positions, PRESETS["Llama-2-7B"])
    assert text == "x (8, 128), 8 positions in 0..1048575, head_dim=128"


def test_a_renamed_key_is_read_under_the_class_name() -> None:
    """DbrxConfig stores max_position_embeddings as max_seq_len (its attribute_map)."""
    config = {"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "max_seq_len": 32768}
    reading = read_hf(config)
    assert reading.config.context_length == 32768 and reading.config.head_dim == 128
