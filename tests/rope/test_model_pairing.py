"""The pairing and d_r a config.json implies through its model type (SPEC Annex E.8, issue 26).

The expected pairings are what transformers 5.24's modeling code does, read from its source
(the table's ``source`` column): GLM's ``apply_rotary_pos_emb`` repeats the first half of cos
and sin pairwise (``repeat_interleave(2)``) and rotates with a ``rotate_half`` on the pairs
(2j, 2j+1); Cohere's rotary module builds cos and sin with ``repeat_interleave(freqs, 2)``.
GLM-4-9B's published figures: head_dim 128, ``GlmConfig.partial_rotary_factor`` 0.5, so
d_r = 64; Command R: hidden 8192 over 64 heads, d_r = head_dim = 128.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from paths import HF_CONFIGS as DATA

from pespec.rope import from_hf
from pespec.rope.hf import read_hf
from pespec.rope.hf_models import HALVES_MODEL_TYPES, MODEL_ROTARY, UNSUPPORTED_MODEL_TYPES

SMALL = {"hidden_size": 256, "num_attention_heads": 4, "rope_theta": 10000.0}


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data


def test_glm_published_config_is_interleaved_on_the_first_half() -> None:
    reading = read_hf(_load("glm-4-9b-chat-hf.json"))
    config = reading.config
    assert (config.pairing, config.head_dim, config.d_r) == ("interleaved", 128, 64)
    # the copy has no partial_rotary_factor: GlmConfig's 0.5, said in the notes
    assert any("glm's transformers default" in note for note in reading.notes), reading.notes
    assert not any("pairing defaulted" in note for note in reading.notes)


def test_cohere_published_config_is_interleaved_on_the_whole_head() -> None:
    reading = read_hf(_load("c4ai-command-r-v01.json"))
    config = reading.config
    assert (config.pairing, config.head_dim, config.d_r) == ("interleaved", 128, 128)
    assert config.theta == 8_000_000.0
    assert reading.notes == ()


@pytest.mark.parametrize(
    ("model_type", "pairing"),
    [
        ("cohere2", "interleaved"),
        ("helium", "interleaved"),
        ("ernie4_5", "interleaved"),
        ("glm4", "interleaved"),
        ("deepseek_v2", "interleaved"),
        ("glm_moe_dsa", "interleaved_in_halves_out"),
        ("longcat_flash", "interleaved_in_halves_out"),
        ("glm4_moe_lite", "interleaved_in_halves_out"),
        ("llama", "halves"),
        ("qwen2", "halves"),
    ],
)
def test_model_type_implies_the_pairing(model_type: str, pairing: str) -> None:
    assert from_hf({**SMALL, "model_type": model_type}).pairing == pairing


def test_rope_interleave_decides_where_the_code_reads_it() -> None:
    # DeepseekV3Attention: apply_rotary_pos_emb_interleave only if config.rope_interleave
    assert from_hf({**SMALL, "model_type": "glm4_moe_lite", "rope_interleave": False}).pairing == (
        "halves"
    )
    # GlmMoeDsaAttention calls apply_rotary_pos_emb_interleave unconditionally
    assert from_hf({**SMALL, "model_type": "glm_moe_dsa", "rope_interleave": False}).pairing == (
        "interleaved_in_halves_out"
    )


@pytest.mark.parametrize(
    ("model_type", "d_r"),
    # head_dim 64: StableLmConfig 0.25, PersimmonConfig/PhiConfig/NemotronConfig 0.5
    [("stablelm", 16), ("persimmon", 32), ("phi", 32), ("nemotron", 32), ("gpt_neox", 16)],
)
def test_model_type_default_partial_rotary(model_type: str, d_r: int) -> None:
    reading = read_hf({**SMALL, "model_type": model_type})
    assert reading.config.d_r == d_r
    assert any("transformers default" in note for note in reading.notes), reading.notes


def test_a_stated_fraction_wins_over_the_model_default() -> None:
    # head_dim stated: GlmConfig's own default is 128, not hidden_size / heads (transformers 5.24)
    config = from_hf({**SMALL, "model_type": "glm", "head_dim": 64, "partial_rotary_factor": 1.0})
    assert config.d_r == config.head_dim == 64


def test_an_unknown_model_type_is_read_as_halves_and_says_so() -> None:
    reading = read_hf({**SMALL, "model_type": "some_new_model"})
    assert reading.config.pairing == "halves"
    assert any(
        "pairing defaulted to halves: model_type 'some_new_model'" in note for note in reading.notes
    ), reading.notes


def test_a_known_halves_model_type_has_no_pairing_note() -> None:
    notes = read_hf({**SMALL, "model_type": "llama"}).notes
    assert not any("pairing" in note for note in notes), notes


def test_rope_interleave_is_a_pairing_key_so_no_note() -> None:
    reading = read_hf({**SMALL, "model_type": "some_new_model", "rope_interleave": True})
    assert reading.config.pairing == "interleaved_in_halves_out"
    assert reading.notes == ()


@pytest.mark.parametrize("model_type", sorted(UNSUPPORTED_MODEL_TYPES))
def test_a_rotation_no_configuration_describes_is_refused(model_type: str) -> None:
    with pytest.raises(ValueError, match=f"model_type '{model_type}'.*SPEC Annex E.8"):
        from_hf({**SMALL, "model_type": model_type})


def test_the_table_and_the_halves_list_do_not_overlap() -> None:
    assert not set(MODEL_ROTARY) & HALVES_MODEL_TYPES
    assert not set(UNSUPPORTED_MODEL_TYPES) & (HALVES_MODEL_TYPES | set(MODEL_ROTARY))


def test_mla_rotates_all_of_qk_rope_head_dim() -> None:
    # Mistral4Config: head_dim 128, qk_rope_head_dim 64, rope_parameters' partial_rotary_factor
    # 0.5 (of the 128-wide head): its rotary module builds cos/sin for all 64 rotated columns
    block = {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}
    hf = {**SMALL, "model_type": "mistral4", "head_dim": 128, "qk_rope_head_dim": 64}
    config = from_hf({**hf, "rope_parameters": block})
    assert (config.head_dim, config.d_r) == (64, 64)
