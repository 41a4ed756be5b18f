"""Model types whose head size the config.json gives under another key (issue 29's survey
found the reader wrong on them): transformers 5.24's JetMoeConfig maps head_dim to
``kv_channels`` (attribute_map); Zamba2's attention layers use ``attention_head_dim``
(= 2·hidden_size/heads; its ``kv_channels`` is another quantity); DiffusionGemma and
EmbeddingGemma2 pop ``global_head_dim`` (default 512) into their full-attention layers'
overrides. Values below are those configuration classes' defaults, transcribed."""

from __future__ import annotations

import pytest

from pespec.rope import from_hf

JETMOE = {
    "model_type": "jetmoe",
    "hidden_size": 2048,
    "num_attention_heads": 32,
    "kv_channels": 128,
}
ZAMBA2 = {
    "model_type": "zamba2",
    "hidden_size": 2560,
    "num_attention_heads": 32,
    "attention_head_dim": 160,
    "kv_channels": 80,
}


def test_jetmoe_reads_kv_channels_not_hidden_over_heads() -> None:
    assert from_hf(JETMOE).head_dim == 128  # 2048 / 32 = 64 would be wrong


def test_zamba2_reads_attention_head_dim_not_kv_channels() -> None:
    assert from_hf(ZAMBA2).head_dim == 160


@pytest.mark.parametrize("model_type", ["diffusion_gemma", "embedding_gemma2"])
def test_global_head_dim_of_full_layers_defaults_to_512(model_type: str) -> None:
    config = {
        "model_type": model_type,
        "head_dim": 256,
        "hidden_size": 2304,
        "num_attention_heads": 8,
        "layer_types": ["sliding_attention", "full_attention"],
    }
    assert from_hf(config, layer_type="sliding_attention").head_dim == 256
    assert from_hf(config, layer_type="full_attention").head_dim == 512
    assert from_hf({**config, "global_head_dim": 384}, layer_type="full_attention").head_dim == 384
