"""Every transformers client (issue 29; issue 38 step 5: one client module per library), one
declaration each, read by :mod:`pespec.clients.catalog` in table order. The adapters run the
library's code by kind of call and stay in their modules (they import NumPy and the families,
this module neither): rotary modules :mod:`pespec.clients.hf_rotary` (GPT-J's and the complex
pairs :mod:`pespec.clients.hf_special`), sinusoidal tables
:mod:`pespec.clients.sinusoidal_libraries` and :mod:`pespec.clients.transformers_sinusoids`,
relative tables :mod:`pespec.clients.relative_clients`, the multi-axis rotaries
:mod:`pespec.clients.mrope_clients`.

Sources are the files of transformers' repository at the version in the table's ``library``
row; the configurations are rotary presets or published config.json copies shipped in
``pespec/rope/published`` (PROVENANCE.md there), or the configuration class defaults
(``defaults``: the survey, SPEC Annex E.8, :mod:`pespec.rope.hf_models`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pespec.clients.model import Client

__all__ = [
    "LEFT_OUT",
    "MORE_SINUSOIDS",
    "MULTIAXIS_ROTARY",
    "RELATIVE",
    "ROTARY",
    "SINUSOIDS",
    "SURVEY_CLIENTS",
    "VISION_ROTARY",
]

_HF = "huggingface/transformers"
_MODELS = f"{_HF} src/transformers/models"
_HF_ROTARY = "pespec.clients.hf_rotary:build"
_READER = "pespec.clients.hf_rotary:read_config"
_EVERY_TWO = "pespec.clients.hf_special:every_two"
_COMPLEX = "pespec.clients.hf_special:complex_rotation"
_DTYPES = ("float32", "bfloat16", "module-bfloat16")  # hf_rotary.MODULE_CAST: model.to(bf16)


def _rotary(model_type: str, module: str, configs: tuple[str, ...], **options: object) -> Client:
    path = f"src/transformers/models/{model_type}/modeling_{model_type}.py"
    return Client(
        name=f"transformers:{model_type}",
        family="rope",
        library="transformers",
        requires=("torch",),
        entry=f"transformers.models.{model_type}.modeling_{model_type}.{module}",
        source=f"{_HF} {path}",
        adapter=_HF_ROTARY,
        configs=configs,
        dtypes=_DTYPES,
        options={"config_reader": _READER, **options},
    )


ROTARY = (
    _rotary(
        "llama",
        "LlamaRotaryEmbedding",
        ("Llama-2-7B", "Llama-3.1-8B", "Llama-2-7B-dynamic-4-per-call"),  # variants: issue 36
    ),
    _rotary("qwen2", "Qwen2RotaryEmbedding", ("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct-yarn-4")),
    _rotary(
        "gemma3",
        "Gemma3RotaryEmbedding",
        ("Gemma-3-4B global layers", "Gemma-3-4B local layers"),
    ),
    _rotary("gpt_oss", "GptOssRotaryEmbedding", ("gpt-oss-20b",)),
    _rotary("deepseek_v3", "DeepseekV3RotaryEmbedding", ("DeepSeek-V3",), interleave=True),
    _rotary(
        "phi3",
        "Phi3RotaryEmbedding",
        ("Phi-3.5-mini-instruct-seq-len-4096", "Phi-3.5-mini-instruct-seq-len-131072"),
        forced_seq_len=True,
    ),
    _rotary(  # PhiMoE: a core client since issue 36 (was in the survey)
        "phimoe", "PhimoeRotaryEmbedding", ("Phi-3.5-MoE-instruct-per-call", "defaults")
    ),
    _rotary("glm", "GlmRotaryEmbedding", ("glm-4-9b-chat-hf",)),
    _rotary("cohere", "CohereRotaryEmbedding", ("c4ai-command-r-v01",)),
    Client(
        name="transformers:gptj",
        family="rope",
        library="transformers",
        requires=("torch",),
        entry="transformers.models.gptj.modeling_gptj.apply_rotary_pos_emb",
        source=f"{_HF} src/transformers/models/gptj/modeling_gptj.py",
        adapter=_EVERY_TWO,  # sin/cos cast to x's dtype, as GPT-J
        configs=("GPT-J-6B",),
        dtypes=_DTYPES,
    ),
)
"""The rotary modules on published configurations (the table's core rotary rows)."""


# The surveyed model types (SPEC Annex E.8, pespec.rope.hf_models) on their configuration
# class defaults (--config defaults), one line each: the model types of which pespec ships no
# published config.json, one client per modeling file (a *_text type whose parent is listed is
# the parent's code). Model types that transformers 5.24 cannot build and apply this way on CPU,
# or whose configuration pespec reads wrongly today, are in LEFT_OUT with the reason
# (UNSUPPORTED_MODEL_TYPES are never clients: their configuration is refused).
_DEFAULTS = ("defaults",)
_LAYERS = ("defaults:full_attention", "defaults:sliding_attention")
_PACKAGE = {
    "modernbert-decoder": "modernbert_decoder",
    "hrm_text": "hrm_text",
    "step3p5": "step3p7",
}
_APPLY = {
    _COMPLEX: "apply_rotary_emb (complex pairs)",
    _EVERY_TWO: "apply_rotary_pos_emb (rotate_every_two)",
}


def _package(model_type: str) -> str:
    """The package of the modeling file (a ``*_text`` type's parent's, tested)."""
    default = model_type.removesuffix("_text_model").removesuffix("_text")
    return _PACKAGE.get(model_type, default)


def _hf(
    model_type: str,
    configs: tuple[str, ...] = _DEFAULTS,
    adapter: str = _HF_ROTARY,
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
    _hf("codegen", adapter=_EVERY_TWO),
    _hf("deepseek_v2", adapter=_COMPLEX),
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


def _sinusoidal(name: str, package: str, entry: str) -> Client:
    return Client(
        name=f"transformers:{name}",
        family="sinusoidal",
        library="transformers",
        requires=("torch",),
        entry=f"transformers.models.{package}.modeling_{package}.{entry}",
        source=f"{_MODELS}/{package}/modeling_{package}.py",
        adapter="pespec.clients.sinusoidal_libraries:build",
        configs=("declared",),
    )


SINUSOIDS = (
    _sinusoidal("whisper", "whisper", "sinusoids"),
    _sinusoidal("m2m100", "m2m_100", "M2M100SinusoidalPositionalEmbedding"),
    _sinusoidal("marian", "marian", "MarianSinusoidalPositionalEmbedding"),
    _sinusoidal("xlm", "xlm", "create_sinusoidal_embeddings"),
)
"""Sinusoidal tables of transformers (Whisper, M2M100, Marian, XLM)."""


def _more_sinusoid(model: str, entry: str) -> Client:
    return Client(
        name=f"transformers:{model}",
        family="sinusoidal",
        library="transformers",
        requires=("torch",),
        entry=f"transformers.models.{model}.modeling_{model}.{entry}",
        source=f"{_MODELS}/{model}/modeling_{model}.py",
        adapter="pespec.clients.transformers_sinusoids:build",
        configs=("declared",),
    )


MORE_SINUSOIDS = (
    _more_sinusoid("fsmt", "SinusoidalPositionalEmbedding.get_embedding"),
    _more_sinusoid("speech_to_text", "Speech2TextSinusoidalPositionalEmbedding.get_embedding"),
    _more_sinusoid("xglm", "XGLMSinusoidalPositionalEmbedding.get_embedding"),
    _more_sinusoid("trocr", "TrOCRSinusoidalPositionalEmbedding.get_embedding"),
    _more_sinusoid("pegasus", "PegasusSinusoidalPositionalEmbedding.create_weight"),
    _more_sinusoid("ctrl", "positional_encoding"),
    _more_sinusoid("distilbert", "create_sinusoidal_embeddings"),
)
"""More of transformers' sinusoidal tables (a grep of its models for 'sinusoid')."""

_TF = "transformers.models"
_RELATIVE = "pespec.clients.relative_clients"
_P = 512  # rows P−1 … −(P−1) (or XLNet's klen … −qlen+1): 1023 or 1024 positions


def _xlnet(attn_type: str, last: int) -> Client:
    return Client(
        name=f"transformers:xlnet-relative-{attn_type}",
        family="sinusoidal",
        library="transformers",
        requires=("torch",),
        entry=f"{_TF}.xlnet.modeling_xlnet.XLNetModel.relative_positional_encoding"
        f" (attn_type={attn_type!r}, qlen = klen = {_P})",
        source=f"{_MODELS}/xlnet/modeling_xlnet.py",
        adapter=f"{_RELATIVE}:xlnet",
        configs=("declared",),
        options={
            "attn_type": attn_type,
            "relative": {
                "position_range": f"{_P}..{last}",
                "length": _P,
                "d_model": 1024,
                "convention": "marian",
            },
        },
        note=f"a relative table: positions klen … {'−qlen+1' if last else '0'}, [sin | cos]",
    )


def _conformer(name: str, model: str, cls: str, config: str, d: int, **more: Any) -> Client:
    xscale = "sqrt(d)" if more.get("module_config") else "none"
    return Client(
        name=f"transformers:{name}",
        family="sinusoidal",
        library="transformers",
        requires=("torch",),
        entry=f"{_TF}.{model}.modeling_{model}.{cls}",
        source=f"{_MODELS}/{model}/modeling_{model}.py",
        adapter=f"{_RELATIVE}:conformer",
        configs=("declared",),
        options={
            "module": f"{_TF}.{model}.modeling_{model}.{cls}",
            "config": f"{_TF}.{model}.configuration_{model}.{config}",
            **more,
            "relative": {
                "position_range": "two-sided",
                "length": _P,
                "d_model": d,
                "convention": "canonical",
                "xscale": xscale,
            },
        },
        note="a relative table: positions P−1 … −(P−1), interleaved"
        + ("; xscale √d on the input, apart from the table" if xscale != "none" else ""),
    )


RELATIVE = (
    _xlnet("bi", -(_P - 1)),
    _xlnet("uni", 0),
    _conformer(
        "fastspeech2_conformer-relpos",
        "fastspeech2_conformer",
        "FastSpeech2ConformerRelPositionalEncoding",
        "FastSpeech2ConformerConfig",
        384,
        module_config=True,
    ),
    *(
        _conformer(f"{model}-relpos", model, cls, config, 1024)
        for model, cls, config in (
            ("seamless_m4t", "SeamlessM4TConformerRelPositionalEmbedding", "SeamlessM4TConfig"),
            ("parakeet", "ParakeetEncoderRelPositionalEncoding", "ParakeetEncoderConfig"),
        )
    ),
)
"""The relative tables of transformers (SPEC §10.10; Transfo-XL is no longer shipped:
transformers 5 removed ``models/deprecated/transfo_xl``): XLNet's, and the ESPnet-style
Conformer modules (FastSpeech2-Conformer, SeamlessM4T, Parakeet) on P−1 … −(P−1)."""


def _qwen(
    kind: str, model: str, module: str, configs: tuple[str, ...], vision: bool = False
) -> Client:
    """A Qwen-VL rotary module and the function its attention applies it with (the text
    model's ``apply_rotary_pos_emb``, the vision encoder's ``apply_rotary_pos_emb_vision``)."""
    apply = "apply_rotary_pos_emb_vision" if vision else "apply_rotary_pos_emb"
    return Client(
        name=f"transformers:{model}{'-vision' if vision else ''}",
        family="multiaxis-rope",
        library="transformers",
        requires=("torch",),
        entry=f"transformers.models.{model}.modeling_{model}.{module} + {apply}",
        source=f"{_MODELS}/{model}/modeling_{model}.py",
        adapter="pespec.clients.mrope_clients:build",
        configs=configs,
        dtypes=("float32", "bfloat16"),
        options={"kind": kind},
    )


_VISION = ("qwen2.5-vl-vision",)
VISION_ROTARY = (
    _qwen("qwen2_vision", "qwen2_vl", "Qwen2VLVisionRotaryEmbedding", _VISION, vision=True),
    _qwen("qwen2_5_vision", "qwen2_5_vl", "Qwen2_5_VLVisionRotaryEmbedding", _VISION, vision=True),
)
"""The Qwen2-VL / Qwen2.5-VL vision encoders' 2-D rotary (family ``multiaxis-rope``,
(h, w) ids; float32, and bfloat16: the rotation in float32, the result cast to the query's
dtype)."""

MULTIAXIS_ROTARY = (
    _qwen("qwen2", "qwen2_vl", "Qwen2VLRotaryEmbedding", ("qwen2.5-vl-7b",)),
    _qwen("qwen2_5", "qwen2_5_vl", "Qwen2_5_VLRotaryEmbedding", ("qwen2.5-vl-7b",)),
    _qwen("qwen3", "qwen3_vl", "Qwen3VLTextRotaryEmbedding", ("qwen3-vl-4b",)),
    *VISION_ROTARY,
)
"""The Qwen-VL multi-axis rotaries (family ``multiaxis-rope``; float32, and bfloat16 as the
models run: the module's float32 cos, sin cast to the bfloat16 query's dtype)."""
