"""The real transformers rotary code of the surveyed model types (SPEC Annex E.8) through the
rotary suite, from the configuration the reader gives (optional: skipped without torch and
transformers).

Each backend is the model type's own rotary module (built in float32, as the model builds it)
and its own ``apply_rotary_pos_emb`` applied to the first ``cos.shape[-1]`` components, the
rest passed through, as the attention modules do. GLM-4-9B and Command R are read from copies
of their published config.json (pespec/rope/published, PROVENANCE.md); the other families from
their transformers configuration class defaults (``AutoConfig.for_model``), stated as such:
no copy of their published file is in the test data. On pespec 1.1's reader (pairing from two
model types) GLM and Cohere failed by a factor of ~10^6 (issue 26).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from typing import Any

import numpy as np
import pytest
from paths import HF_CONFIGS as DATA

from pespec.rope import RopeConfig
from pespec.rope.hf import read_hf
from pespec.rope.suite import check

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _module(model_type: str) -> Any:
    return importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")


def _rotary_class(module: Any) -> Any:
    names = [
        a
        for a in dir(module)
        if a.endswith("RotaryEmbedding") and not a.startswith("_") and "Vision" not in a
    ]
    return getattr(module, sorted(names, key=len)[0])


def hf_backend(config: Any) -> Any:
    """The model type's rotary module and apply_rotary_pos_emb on x in float32."""
    module = _module(config.model_type)
    rotary = _rotary_class(module)(config)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        q = torch.from_numpy(x).to(torch.float32)[None, None]
        ids = torch.from_numpy(positions)[None]
        with torch.no_grad():
            cos, sin = rotary(q, ids)
            width = cos.shape[-1]
            rotated, _ = module.apply_rotary_pos_emb(q[..., :width], q[..., :width], cos, sin)
        return torch.cat([rotated, q[..., width:]], dim=-1)[0, 0]

    return fn


def deepseek_v2_backend(config: Any) -> Any:
    """DeepSeek-V2: the complex ``freqs_cis`` of its rotary module and ``apply_rotary_emb``."""
    module = _module("deepseek_v2")
    rotary = module.DeepseekV2RotaryEmbedding(config)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        q = torch.from_numpy(x).to(torch.float32)[None, None]
        ids = torch.from_numpy(positions)[None]
        with torch.no_grad():
            rotated, _ = module.apply_rotary_emb(q, q, rotary(q, ids))
        return rotated[0, 0]

    return fn


def codegen_backend(config: Any) -> Any:
    """CodeGen (as GPT-J): create_sinusoidal_positions and apply_rotary_pos_emb on rotary_dim."""
    module = _module("codegen")

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        d = config.rotary_dim
        table = module.create_sinusoidal_positions(int(positions.max()) + 1, d)
        rows = table[torch.from_numpy(positions)]
        sin, cos = torch.split(rows[None], rows.shape[-1] // 2, dim=-1)
        k = torch.from_numpy(x).to(torch.float32)[None, :, None, :]
        k_rot = module.apply_rotary_pos_emb(k[..., :d], sin, cos)
        return torch.cat([k_rot, k[..., d:]], dim=-1)[0, :, 0]

    fn.pespec_capabilities = {"integer_positions_only": True}  # type: ignore[attr-defined]
    return fn


def _published(copy: str) -> tuple[Any, RopeConfig]:
    data = json.loads((DATA / copy).read_text(encoding="utf-8"))
    return transformers.AutoConfig.for_model(**data), read_hf(data).config


def _defaults(model_type: str) -> tuple[Any, RopeConfig]:
    config = transformers.AutoConfig.for_model(model_type)
    return config, read_hf(config.to_dict()).config


def _conformant(fn: Any, rope: RopeConfig) -> Any:
    report = check(fn, rope, diagnose=False)
    assert report.conformant, report.summary()
    return report


@pytest.mark.parametrize("copy", ["glm-4-9b-chat-hf.json", "c4ai-command-r-v01.json"])
def test_published_config_is_conformant(copy: str) -> None:
    config, rope = _published(copy)
    assert rope.pairing == "interleaved"
    _conformant(hf_backend(config), rope)


@pytest.mark.parametrize("copy", ["glm-4-9b-chat-hf.json", "c4ai-command-r-v01.json"])
def test_wrong_pairing_is_diagnosed_by_name(copy: str) -> None:
    config, rope = _published(copy)
    wrong = dataclasses.replace(rope, pairing="halves")
    report = check(hf_backend(config), wrong)
    assert not report.conformant
    sentence = report.to_dict()["diagnosis_sentence"] or ""
    assert "pairs formed as interleaved" in sentence and "halves" in sentence, sentence


# Model types whose code applies interleaved pairs or a partial rotation, from their
# configuration class defaults (transformers 5.24), with the pairing the reader must give.
DEFAULT_FAMILIES = [
    ("cohere2", "interleaved"),
    ("helium", "interleaved"),
    ("ernie4_5", "interleaved"),
    ("glm4", "interleaved"),
    ("stablelm", "halves"),
    ("persimmon", "halves"),
    ("phi", "halves"),
    ("nemotron", "halves"),
    ("qwen3_next", "halves"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("model_type", "pairing"), DEFAULT_FAMILIES)
def test_family_from_its_configuration_defaults(model_type: str, pairing: str) -> None:
    config, rope = _defaults(model_type)
    assert rope.pairing == pairing
    _conformant(hf_backend(config), rope)


@pytest.mark.slow
def test_deepseek_v2_complex_rotation_is_interleaved() -> None:
    config, rope = _defaults("deepseek_v2")
    assert (rope.pairing, rope.d_r) == ("interleaved", config.qk_rope_head_dim)
    _conformant(deepseek_v2_backend(config), rope)


@pytest.mark.slow
def test_codegen_rotate_every_two_is_interleaved() -> None:
    config, rope = _defaults("codegen")
    assert (rope.pairing, rope.d_r) == ("interleaved", config.rotary_dim)
    _conformant(codegen_backend(config), rope)
