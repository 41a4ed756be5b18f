"""from_hf: the presets read from copies of their published config.json, and each layout rule.

The copies are under pespec/rope/published (provenance in PROVENANCE.md). The expected values
in the layout tests are the published figures the issue and the model cards state (GPT-J's
rotary_dim 64 of 256, GPT-NeoX-20B's 24 of 96, ...), not values computed by pespec.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from paths import HF_CONFIGS as DATA

from pespec.rope import PRESET_SOURCES, PRESETS, RopeConfig, from_hf


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_equals_its_published_config(name: str) -> None:
    source = PRESET_SOURCES[name]
    config = from_hf(_load(source.copy), layer_type=source.layer_type, seq_len=source.seq_len)
    assert config == PRESETS[name]
    assert RopeConfig.from_hf(_load(source.copy), source.layer_type, source.seq_len) == config


# The copies the model-type tests use (tests/rope/test_model_pairing.py), by Hub repository.
SURVEY_COPIES = {
    "glm-4-9b-chat-hf.json": "THUDM/glm-4-9b-chat-hf",
    "c4ai-command-r-v01.json": "CohereForAI/c4ai-command-r-v01",
    "qwen2.5-vl-7b-instruct.json": "Qwen/Qwen2.5-VL-7B-Instruct",  # multiaxis-rope presets (§9.7)
    "qwen3-vl-4b-instruct.json": "Qwen/Qwen3-VL-4B-Instruct",
}


def test_every_copy_has_provenance() -> None:
    provenance = (DATA / "PROVENANCE.md").read_text(encoding="utf-8")
    copies = {path.name for path in DATA.glob("*.json")}
    assert copies == {source.copy for source in PRESET_SOURCES.values()} | set(SURVEY_COPIES)
    for name, source in PRESET_SOURCES.items():
        assert f"`{source.copy}` | `{source.repo}`" in provenance, name
    for copied, repo in SURVEY_COPIES.items():
        assert f"`{copied}` | `{repo}`" in provenance, copied


def test_published_figures() -> None:
    # The figures SPEC Annex F.1 quotes from the model cards and configs.
    llama = PRESETS["Llama-3.1-8B"]
    assert (llama.factor, llama.low_freq_factor, llama.high_freq_factor) == (8.0, 1.0, 4.0)
    assert (llama.original_max_position_embeddings, llama.theta) == (8192, 500000.0)
    gptj = PRESETS["GPT-J-6B"]
    assert (gptj.d_r, gptj.head_dim, gptj.pairing) == (64, 256, "interleaved")
    oss = PRESETS["gpt-oss-20b"]
    assert (oss.factor, oss.original_max_position_embeddings, oss.theta) == (32.0, 4096, 150000.0)
    assert (oss.truncate, oss.head_dim) == (False, 64)
    deepseek = PRESETS["DeepSeek-V3"]
    assert (deepseek.factor, deepseek.original_max_position_embeddings) == (40.0, 4096)
    assert (deepseek.d_r, deepseek.pairing) == (64, "interleaved_in_halves_out")
    assert (deepseek.mscale, deepseek.mscale_all_dim) == (1.0, 1.0)
    glob, local = PRESETS["Gemma-3-4B global layers"], PRESETS["Gemma-3-4B local layers"]
    assert (glob.rope_type, glob.factor, glob.theta) == ("linear", 8.0, 1e6)
    assert (local.rope_type, local.theta) == ("default", 1e4)
    phi = PRESETS["Phi-3.5-mini-instruct-seq-len-4096"]
    assert phi.max_position_embeddings == 32 * phi.original_max_position_embeddings  # type: ignore[operator]
    assert PRESETS["Qwen2.5-7B-Instruct"].theta == 1e6


def test_rope_parameters_with_rope_theta_inside_the_block() -> None:
    # transformers 5 writes the scaling block as rope_parameters and moves rope_theta into it.
    hf = _load("llama-3.1-8b.json")
    block = dict(hf.pop("rope_scaling"), rope_theta=hf.pop("rope_theta"))
    hf["rope_parameters"] = block
    assert from_hf(hf) == PRESETS["Llama-3.1-8B"]


def test_per_layer_type_rope_parameters() -> None:
    # transformers 5 writes Gemma 3's parameters per layer type.
    hf = _load("gemma-3-4b-it.json")
    text = hf["text_config"]
    del text["rope_scaling"]
    text["rope_parameters"] = {
        "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
    }
    text["head_dim"] = 256
    assert from_hf(hf, layer_type="full_attention") == PRESETS["Gemma-3-4B global layers"]
    assert from_hf(hf, layer_type="sliding_attention") == PRESETS["Gemma-3-4B local layers"]
    with pytest.raises(ValueError, match=r"layer_type must be one of .*got None"):
        from_hf(hf)


def test_layer_type_is_required_where_it_matters_and_checked_elsewhere() -> None:
    gemma = _load("gemma-3-4b-it.json")
    with pytest.raises(
        ValueError,
        match=r"layer_type must be one of \['full_attention', "
        r"'sliding_attention'\].*got 'global'",
    ):
        from_hf(gemma, layer_type="global")
    oss = _load("gpt-oss-20b.json")
    assert from_hf(oss, layer_type="sliding_attention") == PRESETS["gpt-oss-20b"]
    with pytest.raises(ValueError, match="layer_type must be None or one of"):
        from_hf(oss, layer_type="linear_attention")
    with pytest.raises(ValueError, match="layer_type"):
        from_hf(_load("llama-2-7b-hf.json"), layer_type="full_attention")


def test_type_key_and_rotary_emb_base_and_rotary_pct() -> None:
    # GPT-NeoX-20B's published layout: hidden 6144, 64 heads, rotary_pct 0.25 -> d_r 24 of 96.
    neox = {
        "model_type": "gpt_neox",
        "hidden_size": 6144,
        "num_attention_heads": 64,
        "rotary_pct": 0.25,
        "rotary_emb_base": 10000,
        "max_position_embeddings": 2048,
    }
    config = from_hf(neox)
    assert (config.head_dim, config.d_r, config.theta, config.pairing) == (96, 24, 1e4, "halves")
    old = {
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "rope_theta": 1e4,
        "max_position_embeddings": 4096,
        "rope_scaling": {"type": "linear", "factor": 4.0},
    }
    assert from_hf(old) == RopeConfig(head_dim=128, rope_type="linear", factor=4.0)


def test_n_embd_n_head_and_partial_rotary_factor() -> None:
    assert from_hf({"n_embd": 768, "n_head": 12}) == RopeConfig(head_dim=64)
    phi2 = {"hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.4}
    assert from_hf(phi2) == RopeConfig(head_dim=80, rotary_dim=32)
    with pytest.raises(ValueError, match="no head size"):
        from_hf({"rope_theta": 1e4})
    with pytest.raises(ValueError, match="not a multiple"):
        from_hf({"hidden_size": 100, "num_attention_heads": 3})


def test_max_position_fields_inside_the_scaling_block() -> None:
    hf = _load("phi-3.5-mini-instruct.json")
    block = hf["rope_scaling"]
    block["original_max_position_embeddings"] = hf.pop("original_max_position_embeddings")
    block["max_position_embeddings"] = hf.pop("max_position_embeddings")
    assert from_hf(hf, seq_len=4096) == PRESETS["Phi-3.5-mini-instruct-seq-len-4096"]


def test_pairing_from_rope_interleave_and_model_type() -> None:
    deepseek = _load("deepseek-v3.json")
    assert from_hf(deepseek).pairing == "interleaved_in_halves_out"
    assert from_hf({**deepseek, "rope_interleave": False}).pairing == "halves"
    assert from_hf(_load("gpt-j-6b.json")).pairing == "interleaved"
    assert from_hf(_load("llama-2-7b-hf.json")).pairing == "halves"


def test_unknown_rope_type_is_an_error() -> None:
    hf = _load("llama-3.1-8b.json")
    hf["rope_scaling"]["rope_type"] = "ntk-by-parts"
    with pytest.raises(ValueError, match=r"rope_type 'ntk-by-parts' is not a schedule.*llama3"):
        from_hf(hf)
    with pytest.raises(ValueError, match=r"rope_scaling must be an object or null; got 2\.0"):
        from_hf({"head_dim": 64, "rope_scaling": 2.0})
    with pytest.raises(TypeError, match="config must be a dict"):
        from_hf("config.json")  # type: ignore[arg-type]


def test_sequence_length_rule() -> None:
    phi = _load("phi-3.5-mini-instruct.json")
    with pytest.raises(ValueError, match="seq_len is required for rope_type 'longrope'"):
        from_hf(phi)
    with pytest.raises(ValueError, match="seq_len is used only by"):
        from_hf(_load("llama-2-7b-hf.json"), seq_len=100)
    dynamic = {
        "head_dim": 64,
        "max_position_embeddings": 2048,
        "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
    }
    config = from_hf(dynamic, seq_len=5000)
    assert (config.seq_len, config.max_position_embeddings, config.factor) == (5000, 2048, 2.0)


def test_yarn_without_original_length_uses_max_position_embeddings() -> None:
    # transformers 4: original_max_position_embeddings defaults to max_position_embeddings.
    hf = copy.deepcopy(_load("gpt-oss-20b.json"))
    del hf["rope_scaling"]["original_max_position_embeddings"]
    assert from_hf(hf).original_max_position_embeddings == 131072
    del hf["rope_scaling"]["factor"]
    hf["rope_scaling"]["original_max_position_embeddings"] = 4096
    assert from_hf(hf).factor == 32.0  # s = L / L0 when the block gives no factor


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"hidden_size": 768, "num_attention_heads": 0}, "num_attention_heads"),
        ({"head_dim": float("inf")}, "head_dim"),
        ({"head_dim": float("nan")}, "head_dim"),
        ({"head_dim": 64.5}, "head_dim"),
        ({"head_dim": "64"}, "head_dim"),
        ({"head_dim": [64]}, "head_dim"),
        ({"hidden_size": "768", "num_attention_heads": 12}, "hidden_size"),
        ({"head_dim": 64, "rope_theta": 10**400}, "theta"),
        ({"head_dim": 64, "partial_rotary_factor": 10**400}, "partial_rotary_factor"),
        ({"head_dim": 64, "rotary_pct": "half"}, "rotary_pct"),
        ({"head_dim": 64, "rotary_dim": float("inf")}, "rotary_dim"),
        ({"head_dim": 64, "rope_interleave": "yes"}, "rope_interleave"),
        ({"head_dim": 64, "rope_scaling": {"rope_type": ["yarn"]}}, "rope_type"),
        (
            {
                "head_dim": 64,
                "max_position_embeddings": float("inf"),
                "original_max_position_embeddings": 4096,
                "rope_scaling": {"rope_type": "yarn"},
            },
            "max_position_embeddings",
        ),
        ({"head_dim": 64, "layer_types": 3, "rope_theta": 1e4}, "layer_type"),
    ],
)
def test_malformed_values_name_the_key(config: dict[str, Any], named: str) -> None:
    # Found by tests/cli/test_fuzz.py: each raised ZeroDivisionError, OverflowError, an
    # unhashable-type TypeError or was read silently (64.5 as 64) before.
    layer_type = "full_attention" if "layer_types" in config else None
    with pytest.raises((ValueError, TypeError)) as raised:
        from_hf(config, layer_type=layer_type)
    assert named in str(raised.value)
