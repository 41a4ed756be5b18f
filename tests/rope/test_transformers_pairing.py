"""The real transformers rotary code of the surveyed model types (SPEC Annex E.8) through the
rotary suite, from the configuration the reader gives (optional: skipped without torch and
transformers).

Each backend is the model type's own rotary module (built in float32, as the model builds it)
and its own ``apply_rotary_pos_emb`` applied to the first ``cos.shape[-1]`` components, the
rest passed through, as the attention modules do: the package adapters the transformers
clients use (pespec.clients.hf_rotary, hf_special), one adapter for tests and table.
GLM-4-9B and Command R are read from copies of their published config.json
(pespec/rope/published, PROVENANCE.md); the other families from their transformers
configuration class defaults (``AutoConfig.for_model``, as ``--config defaults`` of their
clients), stated as such: no copy of their published file is in the test data. On pespec
1.1's reader (pairing from two model types) GLM and Cohere failed by a factor of ~10^6
(issue 26).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from paths import HF_CONFIGS as DATA

from pespec.clients import hf_rotary, hf_special
from pespec.rope import RopeConfig
from pespec.rope.hf import read_hf
from pespec.rope.suite import check

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def hf_backend(config: Any) -> Any:
    """The model type's rotary module and apply_rotary_pos_emb on x in float32 (the package
    adapter the transformers clients use)."""
    return hf_rotary.rotary_backend(config, "float32")


def deepseek_v2_backend(config: Any) -> Any:
    """DeepSeek-V2: the complex ``freqs_cis`` of its rotary module and ``apply_rotary_emb``."""
    return hf_special.complex_backend(config, "float32")


def codegen_backend(config: Any) -> Any:
    """CodeGen (as GPT-J): its rotary module's sin | cos table and apply_rotary_pos_emb."""
    return hf_special.every_two_backend(config, "float32")


def _published(copy: str) -> tuple[Any, RopeConfig]:
    data = json.loads((DATA / copy).read_text(encoding="utf-8"))
    return transformers.AutoConfig.for_model(**data), read_hf(data).config


def _defaults(model_type: str) -> tuple[Any, RopeConfig]:
    config = hf_rotary.defaults_config(model_type)
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
