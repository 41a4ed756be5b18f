"""What a transformers model type's code does with the rotary dimensions (SPEC Annex E.8).

A ``config.json`` rarely says how the pairs are formed: the modeling code of the model type
decides (GLM and Cohere rotate interleaved pairs, Llama halves). This table is the survey of
transformers 5.24's modeling files whose rotary application is not ``rotate_half`` on the
halves of a full head, one row per ``model_type``, with the pairing the code applies, which
dimensions it rotates (in config keys), the partial-rotary fraction its configuration class
fills in when the file leaves it out, and where the code is. :data:`HALVES_MODEL_TYPES` are
the surveyed model types whose code applies ``rotate_half`` on halves (d_r from the keys).
:func:`pespec.rope.hf_fields.read_fields` reads the pairing and d_r through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pespec.rope.schedules.registry import PAIRINGS

__all__ = ["HALVES_MODEL_TYPES", "MODEL_ROTARY", "UNSUPPORTED_MODEL_TYPES", "ModelRotary"]

_HALVES, _INTERLEAVED, _IN_HALVES_OUT = PAIRINGS


@dataclass(frozen=True)
class ModelRotary:
    """One model type's rotary application: ``pairing`` (SPEC §8.1) when the config has no
    ``rope_interleave`` or the code ignores it (``switch`` None); ``rotated``: d_r in config
    keys; ``fraction``: the configuration class's partial-rotary fraction where the file
    gives none (None: d_r from the keys alone); ``source``: file and function."""

    pairing: str
    rotated: str
    source: str
    fraction: float | None = None
    switch: str | None = None


_COHERE = "RotaryEmbedding.forward (`repeat_interleave(freqs, 2)`), rotate_half (2j, 2j+1)"
_REPEAT = "apply_rotary_pos_emb (`cos[..., :d/2].repeat_interleave(2)`), rotate_half (2j, 2j+1)"
_MLA = "apply_rotary_pos_emb_interleave"
_MLA_SWITCH = f"{_MLA} when `rope_interleave` (class default true), else apply_rotary_pos_emb"
_HEAD = "head_dim"
_QK_ROPE = "qk_rope_head_dim"
_PARTIAL = "⌊head_dim · partial_rotary_factor⌋"


def _mla(name: str, switch: bool) -> ModelRotary:
    source = f"modeling_{name}.py: {_MLA_SWITCH if switch else _MLA}"
    key = "rope_interleave" if switch else None
    return ModelRotary(_IN_HALVES_OUT, _QK_ROPE, source, switch=key)


MODEL_ROTARY: Mapping[str, ModelRotary] = {
    "cohere": ModelRotary(_INTERLEAVED, _HEAD, f"modeling_cohere.py: Cohere{_COHERE}"),
    "cohere2": ModelRotary(_INTERLEAVED, _HEAD, f"modeling_cohere2.py: Cohere2{_COHERE}"),
    "cohere2_moe": ModelRotary(
        _INTERLEAVED, _HEAD, f"modeling_cohere2_moe.py: Cohere2Moe{_COHERE}"
    ),
    "glm": ModelRotary(_INTERLEAVED, _PARTIAL, f"modeling_glm.py: {_REPEAT}", 0.5),
    "glm4": ModelRotary(_INTERLEAVED, _PARTIAL, f"modeling_glm4.py: {_REPEAT}", 0.5),
    "helium": ModelRotary(_INTERLEAVED, _HEAD, f"modeling_helium.py: {_REPEAT}"),
    "ernie4_5": ModelRotary(_INTERLEAVED, _HEAD, f"modeling_ernie4_5.py: {_REPEAT}"),
    "ernie4_5_moe": ModelRotary(_INTERLEAVED, _HEAD, f"modeling_ernie4_5_moe.py: {_REPEAT}"),
    "gptj": ModelRotary(
        _INTERLEAVED, "rotary_dim", "modeling_gptj.py: apply_rotary_pos_emb, rotate_every_two"
    ),
    "codegen": ModelRotary(
        _INTERLEAVED, "rotary_dim", "modeling_codegen.py: apply_rotary_pos_emb, rotate_every_two"
    ),
    "deepseek_v2": ModelRotary(
        _INTERLEAVED,
        _QK_ROPE,
        "modeling_deepseek_v2.py: apply_rotary_emb (`view_as_complex` of pairs 2j, 2j+1, out "
        "by `view_as_real`)",
    ),
    "deepseek_v3": _mla("deepseek_v3", True),
    "glm4_moe_lite": _mla("glm4_moe_lite", True),
    "mistral4": _mla("mistral4", True),
    "youtu": _mla("youtu", True),
    "deepseek_v32": _mla("deepseek_v32", False),
    "glm_moe_dsa": _mla("glm_moe_dsa", False),
    "longcat_flash": _mla("longcat_flash", False),
    "bailing_hybrid": _mla("bailing_hybrid", False),
    "glm4_moe": ModelRotary(
        _HALVES, _PARTIAL, "modeling_glm4_moe.py: apply_rotary_pos_emb (first d_r, halves)", 0.5
    ),
    "gpt_neox": ModelRotary(
        _HALVES,
        "⌊head_dim · rotary_pct⌋",
        "modeling_gpt_neox.py: apply_rotary_pos_emb (first d_r, halves)",
        0.25,
    ),
    "phi": ModelRotary(
        _HALVES, _PARTIAL, "modeling_phi.py: PhiAttention.forward (first d_r), rotate_half", 0.5
    ),
    "stablelm": ModelRotary(
        _HALVES,
        _PARTIAL,
        "modeling_stablelm.py: StableLmAttention.forward (first d_r), rotate_half",
        0.25,
    ),
    "persimmon": ModelRotary(
        _HALVES,
        _PARTIAL,
        "modeling_persimmon.py: PersimmonAttention.forward (first d_r), rotate_half",
        0.5,
    ),
    "nemotron": ModelRotary(
        _HALVES, _PARTIAL, "modeling_nemotron.py: apply_rotary_pos_emb (first d_r, halves)", 0.5
    ),
    "qwen3_next": ModelRotary(
        _HALVES, _PARTIAL, "modeling_qwen3_next.py: apply_rotary_pos_emb (first d_r, halves)", 0.25
    ),
    "recurrent_gemma": ModelRotary(
        _HALVES,
        _PARTIAL,
        "modeling_recurrent_gemma.py: apply_rotary_pos_emb (first d_r, halves)",
        0.5,
    ),
    "bamba": ModelRotary(
        _HALVES, _PARTIAL, "modeling_bamba.py: apply_rotary_pos_emb (first d_r, halves)", 0.5
    ),
    "minimax_m2": ModelRotary(
        _HALVES, "rotary_dim", "modeling_minimax_m2.py: apply_rotary_pos_emb (first d_r, halves)"
    ),
}
"""The surveyed model types whose rotary application is not ``rotate_half`` on the halves of
a full head (transformers 5.24), by ``model_type`` (SPEC Annex E.8)."""

UNSUPPORTED_MODEL_TYPES: Mapping[str, str] = {
    "deepseek_v4": "rotates the last d_r components of the head (modeling_deepseek_v4.py: "
    "apply_rotary_pos_emb), where SPEC §8.1 rotates the first d_r",
    "nanochat": "rotates by −ω·p (modeling_nanochat.py: rotate_half returns (x2, −x1)), the "
    "opposite direction of SPEC §8.1",
}
"""Surveyed model types whose rotation no SPEC §8.1 configuration describes: their
config.json is refused, with the reason, rather than read as something they do not do."""

HALVES_MODEL_TYPES: frozenset[str] = frozenset(
    """
    afmoe apertus apertus1p5 apertus1p5_text arcee aria aria_text bitnet chameleon cosmos3_edge
    cosmos3_edge_text csm cwm dbrx deepseek_ocr2 deepseek_ocr2_text dia diffllama
    diffusion_gemma diffusion_gemma_text doge dory dots1 embedding_gemma2 embedding_gemma2_text
    emu3 emu3_text_model esm esmc evolla exaone4 exaone_moe falcon falcon_h1 flex_olmo flint
    gemma gemma2 gemma3 gemma3_text gemma3n gemma3n_text glm4v_moe_text gpt_neox_japanese
    gpt_oss granite granite_swa granitemoe granitemoe_swa granitemoehybrid granitemoeshared gte
    hrm_text hunyuan_v1_dense hunyuan_v1_moe hy_v3 hy_v4 hyperclovax jais2 jetmoe
    jina_embeddings_v3 kolibri1 laguna lara_mini lfm2 lfm2_moe lfm3 llama mellum mimo_v2_flash
    minicpm3 minimax ministral ministral3 mistral mixtral mllama_text_model modernbert
    modernbert-decoder molmo2_text moshi neomme nomic_bert olmo olmo2 olmo3 olmo_hybrid olmoe
    phi3 phimoe qwen2 qwen2_moe qwen3 qwen3_5_moe_text qwen3_5_text qwen3_moe seed_oss smollm3
    solar_open starcoder2 step3p5 t5gemma vaultgemma zamba2 zaya
    """.split()
)
"""Surveyed model types whose code applies ``rotate_half`` to the halves of the first d_r
components, d_r read from the keys (transformers 5.24): read without a note on the pairing."""
