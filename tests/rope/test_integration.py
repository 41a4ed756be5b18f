"""Real rotary code through the rotary suite (optional: skipped without torch/transformers or
rotary-embedding-torch): transformers' own rotary modules with their apply_rotary_pos_emb for
each preset's rope type (Llama-style default, linear, llama3, yarn; GPT-NeoX partial rotary;
the DeepSeek interleave path; GPT-J), and rotary-embedding-torch's interleaved rotation. Each
is CONFORMANT at float32 and, in bfloat16 model dtype, at the bfloat16 default level (or the
tighter level of its own float32 output where the library computes the rotation in float32).

LongRoPE (Phi-3.5): transformers derives ℓ from each call's positions (a stateful module), so
the wrapper forces the preset's ℓ (SPEC §8.4): frequencies from ROPE_INIT_FUNCTIONS at ℓ,
the module's forward without its dynamic_rope_update wrapper.
"""

from __future__ import annotations

from typing import Any

import pytest
import rope_implementations as impl

from pespec.rope import PRESETS, RopeConfig
from pespec.rope.suite import check

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

HF_PRESETS = [
    "Llama-2-7B",
    "Llama-3.1-8B",
    "Qwen2.5-7B-Instruct",
    "Gemma-3-4B global layers",
    "Gemma-3-4B local layers",
    "gpt-oss-20b",
    "DeepSeek-V3",
]


def _conformant(fn: Any, config: RopeConfig) -> Any:
    report = check(fn, config, diagnose=False)
    assert report.conformant, report.summary()
    return report


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("name", HF_PRESETS)
def test_transformers_rotary_module(name: str, dtype: str) -> None:
    report = _conformant(impl.transformers_for_preset(name, dtype), PRESETS[name])
    assert report.output_dtype == dtype


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize(
    "name", ["Phi-3.5-mini-instruct-seq-len-4096", "Phi-3.5-mini-instruct-seq-len-131072"]
)
def test_transformers_longrope_with_seq_len_forced(name: str, dtype: str) -> None:
    report = _conformant(impl.transformers_longrope(name, dtype), PRESETS[name])
    assert report.output_dtype == dtype


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_transformers_gptj(dtype: str) -> None:
    fn = impl.gptj_transformers(dtype)
    fn.pespec_capabilities = {"integer_positions_only": True}  # type: ignore[attr-defined]
    _conformant(fn, PRESETS["GPT-J-6B"])


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_transformers_gpt_neox_partial_rotary(dtype: str) -> None:
    config = transformers.GPTNeoXConfig(hidden_size=768, num_attention_heads=8, rotary_pct=0.25)
    rope = RopeConfig.from_hf(config.to_dict())
    assert (rope.head_dim, rope.d_r) == (96, 24)
    report = _conformant(impl.transformers_backend(config, dtype), rope)
    assert report.output_dtype == dtype


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_rotary_embedding_torch_interleaved(dtype: str) -> None:
    pytest.importorskip("rotary_embedding_torch")
    rope = RopeConfig(head_dim=64, rotary_dim=32, theta=10000.0, pairing="interleaved")
    _conformant(impl.rotary_embedding_torch(dtype), rope)
