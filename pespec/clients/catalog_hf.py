"""The surveyed transformers model types (SPEC Annex E.8, :mod:`pespec.rope.hf_models`) as
rotary clients on their configuration class defaults (``--config defaults``; see
:mod:`pespec.clients.hf_rotary`), one line each: the model types of which pespec ships no
published config.json, one client per modeling file (a ``*_text`` type whose parent is listed
is the parent's code). Model types that transformers 5.24 cannot build and apply this way on
CPU, or whose configuration pespec reads wrongly today, are in :data:`LEFT_OUT` with the
reason (UNSUPPORTED_MODEL_TYPES are never clients: their configuration is refused).
"""

from __future__ import annotations

from collections.abc import Mapping

from pespec.clients.model import Client

__all__ = ["LEFT_OUT", "SURVEY_CLIENTS"]

_HF = "huggingface/transformers"
_GENERIC = "pespec.clients.hf_rotary:build"
_READER = "pespec.clients.hf_rotary:read_config"
_DTYPES = ("float32", "bfloat16", "module-bfloat16")  # hf_rotary.MODULE_CAST: model.to(bf16)
_DEFAULTS = ("defaults",)
_LAYERS = ("defaults:full_attention", "defaults:sliding_attention")
_PACKAGE = {
    "modernbert-decoder": "modernbert_decoder",
    "hrm_text": "hrm_text",
    "step3p5": "step3p7",
}
_APPLY = {
    "pespec.clients.hf_special:complex_rotation": "apply_rotary_emb (complex pairs)",
    "pespec.clients.hf_special:every_two": "apply_rotary_pos_emb (rotate_every_two)",
}


def _package(model_type: str) -> str:
    """The package of the modeling file (a ``*_text`` type's parent's, tested)."""
    default = model_type.removesuffix("_text_model").removesuffix("_text")
    return _PACKAGE.get(model_type, default)


def _hf(
    model_type: str,
    configs: tuple[str, ...] = _DEFAULTS,
    adapter: str = _GENERIC,
    **options: object,
) -> Client:
    """The client of ``model_type``'s rotary module on ``configs`` (its defaults)."""
    package = _package(model_type)
    path = f"src/transformers/models/{package}/modeling_{package}.py"
    apply = _APPLY.get(adapter, "apply_rotary_pos_emb" + ("_interleave" * bool(options)))
    return Client(
        name=f"transformers:{model_type}",
        family="rope",
        library="transformers",
        requires=("torch",),
        entry=f"transformers.models.{package}.modeling_{package} rotary module, {apply}",
        source=f"{_HF} {path}",
        adapter=adapter,
        configs=configs,
        dtypes=_DTYPES,
        tier="survey",
        options={"model_type": model_type, "config_reader": _READER, **options},
    )


SURVEY_CLIENTS: tuple[Client, ...] = (
    # interleaved pairs (MODEL_ROTARY) and the MLA in-halves-out application
    _hf("cohere2"),
    _hf("cohere2_moe"),
    _hf("glm4"),
    _hf("helium"),
    _hf("ernie4_5"),
    _hf("ernie4_5_moe"),
    _hf("codegen", adapter="pespec.clients.hf_special:every_two"),
    _hf("deepseek_v2", adapter="pespec.clients.hf_special:complex_rotation"),
    _hf("glm4_moe_lite", interleave=True),
    _hf("mistral4", interleave=True),
    _hf("youtu", interleave=True),
    _hf("deepseek_v32", interleave=True),
    _hf("glm_moe_dsa", interleave=True),
    _hf("longcat_flash", interleave=True),
    _hf("bailing_hybrid", interleave=True),
    # partial rotation, halves (MODEL_ROTARY)
    _hf("gpt_neox"),
    _hf("phi"),
    _hf("stablelm"),
    _hf("persimmon"),
    _hf("nemotron"),
    _hf("qwen3_next"),
    _hf("recurrent_gemma"),
    _hf("bamba"),
    _hf("minimax_m2"),
    # rotate_half on halves (HALVES_MODEL_TYPES) without a published copy in pespec
    *(
        _hf(t)
        for t in """
        afmoe apertus apertus1p5 arcee aria bitnet chameleon cosmos3_edge csm cwm deepseek_ocr2
        diffllama doge dots1 emu3 esm esmc evolla exaone4 exaone_moe falcon falcon_h1 flex_olmo
        flint gemma gemma2 gpt_neox_japanese granite granite_swa granitemoe granitemoe_swa
        granitemoehybrid granitemoeshared gte hrm_text hunyuan_v1_dense hunyuan_v1_moe hy_v3 hy_v4
        hyperclovax jais2 jina_embeddings_v3 kolibri1 lara_mini lfm2 lfm2_moe minicpm3 minimax
        ministral ministral3 mistral mixtral mllama_text_model molmo2_text moshi nomic_bert olmo
        olmo2 olmo_hybrid olmoe qwen2_moe qwen3 qwen3_5_moe_text qwen3_5_text qwen3_moe
        seed_oss smollm3 solar_open starcoder2 vaultgemma
        """.split()
    ),
    # rotary parameters per layer type
    *(
        _hf(t, _LAYERS)
        for t in """
        gemma3n dory lfm3 mimo_v2_flash modernbert modernbert-decoder neomme
        olmo3
        """.split()
    ),
    # the defaults have full-attention layers only
    *(_hf(t, _LAYERS[:1]) for t in ("laguna", "mellum", "step3p5")),
    *(_hf(t, _LAYERS) for t in ("diffusion_gemma", "embedding_gemma2")),  # global_head_dim 512
    # the model type's own head-size key (pespec.rope.hf_fields)
    _hf("jetmoe"),
    _hf("zamba2"),
)
"""The survey's clients (transformers 5.24), in the survey's order."""

_NESTED = "the defaults nest the attention sizes (no head size pespec's reader can read)"
LEFT_OUT: Mapping[str, str] = {
    "dbrx": _NESTED + " (attn_config)",
    "dia": _NESTED + " (encoder_config, decoder_config)",
    "t5gemma": _NESTED + " (encoder, decoder)",
    "glm4_moe": "the defaults give no head_dim and hidden_size 4096 is not a multiple of 96 "
    "heads: the reader refuses them (the published GLM-4.5 config.json gives head_dim 128)",
    "glm4v_moe_text": "as glm4_moe",
    "jamba": "modeling_jamba.py has no rotary module (rope_parameters None): not a rotary model",
    "zaya": "its rotary module's forward needs a layer_type and the defaults' layer_types are "
    "'hybrid' with one set of rotary parameters",
}
"""Surveyed model types that are not clients, with the reason."""
