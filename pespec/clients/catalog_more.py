"""The clients of the libraries beyond transformers, diffusers and rotary-embedding-torch
(issue 29), read by :mod:`pespec.clients.catalog`. A library whose adapters have a module of
their own declares its clients there (mlx and mlx-lm, torchtune, keras-hub, x-transformers,
equinox, onnx/onnxruntime: ``<library>_clients.py``, issue 38; those modules import NumPy and
the rotary family only when a client is built); this module joins them in table order
(:data:`MORE_CLIENTS`) and declares the GPU kernels.

Sources are the libraries' repository files at the versions the table reports; configurations
are rotary presets (or published config.json copies in ``pespec/rope/published``).
"""

from __future__ import annotations

from pespec.clients.equinox_clients import EQUINOX_CLIENTS
from pespec.clients.keras_hub_clients import KERAS_HUB_CLIENTS
from pespec.clients.mlx_clients import MLX_CLIENTS
from pespec.clients.model import Client
from pespec.clients.onnx_clients import ONNX_CLIENTS
from pespec.clients.torchtune_clients import TORCHTUNE_CLIENTS
from pespec.clients.x_transformers_clients import X_TRANSFORMERS_CLIENTS

__all__ = [
    "GPU_CLIENTS",
    "MORE_CLIENTS",
    "TE_CLIENTS",
]

MORE_CLIENTS = (
    MLX_CLIENTS
    + TORCHTUNE_CLIENTS
    + KERAS_HUB_CLIENTS
    + X_TRANSFORMERS_CLIENTS
    + EQUINOX_CLIENTS
    + ONNX_CLIENTS
)
"""The clients of those library modules, in table order."""


def _gpu(name: str, library: str, entry: str, source: str, adapter: str) -> Client:
    return Client(
        name=name,
        family="rope",
        library=library,
        requires=("torch",),
        entry=entry,
        source=source,
        adapter=f"pespec.clients.gpu_clients:{adapter}",
        configs=("Llama-2-7B", "GPT-J-6B"),
        dtypes=("float32", "bfloat16"),
        device="cuda",
    )


GPU_CLIENTS = (
    _gpu(
        "flash-attn:apply_rotary_emb",
        "flash-attn",
        "flash_attn.layers.rotary.apply_rotary_emb",
        "Dao-AILab/flash-attention flash_attn/layers/rotary.py",
        "flash_attn",
    ),
    _gpu(
        "flashinfer:apply_rope_pos_ids",
        "flashinfer-python",
        "flashinfer.rope.apply_rope_pos_ids",
        "flashinfer-ai/flashinfer flashinfer/rope.py",
        "flashinfer",
    ),
    _gpu(
        "liger-kernel:liger_rotary_pos_emb",
        "liger-kernel",
        "liger_kernel.transformers.rope.liger_rotary_pos_emb",
        "linkedin/Liger-Kernel src/liger_kernel/transformers/rope.py",
        "liger",
    ),
)
"""GPU kernels (device cuda): rows say "needs a GPU" where none is present."""


def _transformer_engine(shape: str) -> Client:
    return Client(
        name=f"transformer-engine:apply_rotary_pos_emb-fused-{shape}",
        family="rope",
        library="transformer-engine",
        requires=("torch",),
        entry="transformer_engine.pytorch.attention.rope.apply_rotary_pos_emb"
        f"(tensor_format={shape!r}, fused=True)",
        source="NVIDIA/TransformerEngine transformer_engine/pytorch/attention/rope.py "
        "(the kernel: transformer_engine/common/fused_rope/fused_rope.cu)",
        adapter="pespec.clients.gpu_clients:transformer_engine",
        configs=("Llama-2-7B", "GPT-J-6B"),
        dtypes=("float32", "bfloat16"),
        device="cuda",
        options={"shape": shape},
        note="freqs from TransformerEngine's RotaryPositionEmbedding (float32 phases; the "
        "kernel takes sincosf of them); interleaved=True for GPT-J-6B's pairs on 64 of 256 "
        "dimensions; " + _TE_SHAPES[shape],
    )


_TE_SHAPES = {
    "sbhd": "sbhd: one sequence [n, 1, 1, D], freqs rows at the positions",
    "bshd": "bshd: n sequences of one token, start_positions the positions (a decode step)",
    "thd": "thd: sequences of consecutive positions packed in [n, 1, D] with cu_seqlens, "
    "each from its start_positions entry",
}

TE_CLIENTS = tuple(_transformer_engine(shape) for shape in _TE_SHAPES)
"""TransformerEngine's fused rope in each tensor format, device cuda (issue 35 item 5)."""
