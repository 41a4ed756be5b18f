"""The presets against the real transformers code (optional: skipped without torch/transformers).

transformers reads each copied config.json with its own configuration class and computes the
inverse frequencies in float32 with its own rotary module (or ``ROPE_INIT_FUNCTIONS`` for the
long LongRoPE factors); they must agree with ``pespec.rope.frequencies`` within the float32
rounding those operations can make (derived in ``_bound``, u32 = 2^-24), and the attention
factors, computed in Python floats by both, within a few float64 ulps. GPT-J has no inverse-
frequency buffer in transformers (a precomputed sin/cos table) and is not compared here.
"""

from __future__ import annotations

import importlib
import json
import math
from typing import Any

import numpy as np
import pytest
from paths import HF_CONFIGS as DATA

from pespec.rope import PRESET_SOURCES, PRESETS, RopeConfig, frequencies, yarn_correction_dims

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
rope_utils = pytest.importorskip("transformers.modeling_rope_utils")

U32, U64 = 2.0**-24, 2.0**-53


def _hf_config(copy: str) -> Any:
    data = json.loads((DATA / copy).read_text(encoding="utf-8"))
    config = transformers.AutoConfig.for_model(**data)
    text = getattr(config, "text_config", None)
    return config if text is None else text


def _transformers_frequencies(name: str) -> tuple[np.ndarray, float]:
    source, preset = PRESET_SOURCES[name], PRESETS[name]
    config = _hf_config(source.copy)
    if preset.rope_type == "longrope" and preset.seq_len and preset.seq_len > 4096:
        inv_freq, attention = rope_utils.ROPE_INIT_FUNCTIONS["longrope"](
            config, None, seq_len=preset.seq_len
        )
        return inv_freq.double().numpy(), float(attention)
    model_type = config.model_type.removesuffix("_text")
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    rotary_class = next(
        getattr(module, attr) for attr in dir(module) if attr.endswith("RotaryEmbedding")
    )
    rotary = rotary_class(config)
    prefix = f"{source.layer_type}_" if source.layer_type else ""
    inv_freq = dict(rotary.named_buffers())[f"{prefix}inv_freq"]
    return inv_freq.double().numpy(), float(getattr(rotary, f"{prefix}attention_scaling"))


def _bound(config: RopeConfig, j: int) -> float:
    """Relative float32 error of transformers' evaluation of pair j.

    θ^(2j/d_r) in float32: the exponent rounded (u32, magnified by |e·ln θ|), pow (2u32), the
    reciprocal and the schedule's own products (2u32 each, at most 3). YaRN adds the ramp's
    error: its ends are float64 values rounded to float32 inside the ramp (<= u32·d_r each)
    and the subtraction and quotient (2u32), giving |Δr| <= u32·(4·d_r/(high − low) + 2),
    with weight (s − 1) in ω'. llama3's smoothing adds (s − 1)·high/(high − low) times the
    error of L0/λ, as in the float64 test.
    """
    e = 2 * j / config.d_r
    base = abs(e * math.log(config.theta)) * U32 + 2 * U32 + 6 * U32
    if config.rope_type == "yarn":
        assert config.factor is not None
        low, high = yarn_correction_dims(config)
        ramp = U32 * (4 * config.d_r / (high - low) + 2)
        return 1.01 * (base + (config.factor - 1) * ramp)
    if config.rope_type == "llama3":
        assert config.factor and config.low_freq_factor and config.high_freq_factor
        weight = config.high_freq_factor / (config.high_freq_factor - config.low_freq_factor)
        return 1.01 * (base + (config.factor - 1) * weight * (base + 5 * U32) + 4 * U32)
    return 1.01 * base


@pytest.mark.parametrize("name", [name for name in PRESETS if name != "GPT-J-6B"])
def test_preset_frequencies_agree_with_transformers(name: str) -> None:
    config = PRESETS[name]
    ours, attention = frequencies(config)
    theirs, their_attention = _transformers_frequencies(name)
    assert theirs.shape == ours.shape
    for j, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert abs(a - b) <= _bound(config, j) * a, (name, j, a, b)
    assert abs(attention - their_attention) <= 8 * U64 * attention, (attention, their_attention)
