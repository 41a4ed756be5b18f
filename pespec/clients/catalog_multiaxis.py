"""The multi-axis clients (issue 29; issue 28 item 5): diffusers' 2-D/3-D sin-cos tables
(family ``multiaxis``) and the multi-axis rotaries of diffusers and transformers (family
``multiaxis-rope``), one declaration each, read by :mod:`pespec.clients.catalog`.

Configurations are multi-axis presets (``pespec check --family multiaxis --config NAME``;
SPEC §9 and §9.7 list them with their sources). The sin-cos functions return float64 tables
(``float64``: as returned) that the models keep as float32 (``float32``: cast so); the
rotaries run in float32, as the models run them, and the Qwen-VL ones in bfloat16 too (the
module's float32 cos, sin cast to the bfloat16 query's dtype, as the models run in bfloat16).
Their integration tests (tests/multiaxis, tests/multiaxis/rope) give the same verdicts on small
grids.
"""

from __future__ import annotations

from pespec.clients.model import Client

__all__ = ["MULTIAXIS_CLIENTS"]

_DIFFUSERS = "huggingface/diffusers src/diffusers/models"
_HF = "huggingface/transformers src/transformers/models"
_MROPE = "pespec.clients.mrope_clients:build"


def _qwen(kind: str, model: str, module: str, configs: tuple[str, ...]) -> Client:
    return Client(
        name=f"transformers:{model}",
        family="multiaxis-rope",
        library="transformers",
        requires=("torch",),
        entry=f"transformers.models.{model}.modeling_{model}.{module} + apply_rotary_pos_emb",
        source=f"{_HF}/{model}/modeling_{model}.py",
        adapter=_MROPE,
        configs=configs,
        dtypes=("float32", "bfloat16"),
        options={"kind": kind},
    )


def _video(name: str, entry: str, path: str, kind: str, config: str) -> Client:
    return Client(
        name=f"diffusers:{name}",
        family="multiaxis-rope",
        library="diffusers",
        requires=("torch",),
        entry=entry,
        source=f"{_DIFFUSERS}/{path}",
        adapter=_MROPE,
        configs=(config,),
        options={"kind": kind},
    )


SINCOS = (
    Client(
        name="diffusers:get_2d_sincos_pos_embed",
        family="multiaxis",
        library="diffusers",
        requires=("torch",),
        entry="diffusers.models.embeddings.get_2d_sincos_pos_embed",
        source=f"{_DIFFUSERS}/embeddings.py",
        adapter="pespec.clients.multiaxis_clients:sincos_2d",
        configs=("dit-xl-2-256", "pixart-alpha-1024", "sd3-medium"),
        dtypes=("float64", "float32"),
        note="float32: the table as PatchEmbed keeps it (pos_embed.float())",
    ),
    Client(
        name="diffusers:get_3d_sincos_pos_embed",
        family="multiaxis",
        library="diffusers",
        requires=("torch",),
        entry="diffusers.models.embeddings.get_3d_sincos_pos_embed (CogVideoXPatchEmbed)",
        source=f"{_DIFFUSERS}/embeddings.py",
        adapter="pespec.clients.multiaxis_clients:sincos_3d",
        configs=("cogvideox-2b",),
        dtypes=("float64", "float32"),
        note="float32: the table as CogVideoXPatchEmbed keeps it (a float32 buffer)",
    ),
)

ROTARY = (
    _qwen("qwen2", "qwen2_vl", "Qwen2VLRotaryEmbedding", ("qwen2.5-vl-7b",)),
    _qwen("qwen2_5", "qwen2_5_vl", "Qwen2_5_VLRotaryEmbedding", ("qwen2.5-vl-7b",)),
    _qwen("qwen3", "qwen3_vl", "Qwen3VLTextRotaryEmbedding", ("qwen3-vl-4b",)),
    _video(
        "FluxPosEmbed",
        "diffusers.models.transformers.transformer_flux.FluxPosEmbed + apply_rotary_emb",
        "transformers/transformer_flux.py",
        "flux",
        "flux.1",
    ),
    _video(
        "WanRotaryPosEmbed",
        "diffusers.models.transformers.transformer_wan.WanRotaryPosEmbed + WanAttnProcessor",
        "transformers/transformer_wan.py",
        "wan",
        "wan2.1",
    ),
    _video(
        "HunyuanVideoRotaryPosEmbed",
        "diffusers.models.transformers.transformer_hunyuan_video.HunyuanVideoRotaryPosEmbed"
        " + apply_rotary_emb",
        "transformers/transformer_hunyuan_video.py",
        "hunyuan",
        "hunyuanvideo",
    ),
    _video(
        "get_3d_rotary_pos_embed",
        "diffusers.models.embeddings.get_3d_rotary_pos_embed + apply_rotary_emb (CogVideoX)",
        "embeddings.py",
        "cogvideox",
        "cogvideox-5b",
    ),
)

MULTIAXIS_CLIENTS = SINCOS + ROTARY
"""Every client of this module, in table order."""
