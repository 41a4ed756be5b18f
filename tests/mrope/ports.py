"""Real multi-axis rotary code as pespec backends, and hand ports of documented bug classes.

Real: transformers 5.24's ``Qwen2VLRotaryEmbedding`` / ``Qwen2_5_VLRotaryEmbedding`` /
``Qwen3VLTextRotaryEmbedding`` + ``apply_rotary_pos_emb`` (float32, as the models run), and
diffusers 0.42.1's ``FluxPosEmbed`` + ``apply_rotary_emb``. Ports: a float32 NumPy M-RoPE
with the axis of each frequency given by a table, so a port can carry one bug (sections
permuted or resized, sectioned where interleaved, h and w swapped).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tests.mrope.mp import qwen_axis


def _text_config(kind: str, theta: float, section: Sequence[int]) -> Any:
    import transformers

    rope = {"rope_type": "default", "rope_theta": theta, "mrope_section": list(section)}
    if kind == "qwen3":
        rope["mrope_interleaved"] = True
        return transformers.Qwen3VLTextConfig(
            hidden_size=4096, num_attention_heads=32, head_dim=128, rope_parameters=rope
        )
    cls = transformers.Qwen2VLTextConfig if kind == "qwen2" else transformers.Qwen2_5_VLTextConfig
    return cls(hidden_size=3584, num_attention_heads=28, rope_parameters=rope)


def transformers_backend(kind: str, theta: float, section: Sequence[int]) -> Any:
    """``kind`` qwen2, qwen2_5 or qwen3: the model's rotary module + apply_rotary_pos_emb."""
    import torch
    from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl as m25
    from transformers.models.qwen2_vl import modeling_qwen2_vl as m2
    from transformers.models.qwen3_vl import modeling_qwen3_vl as m3

    module = {
        "qwen2": m2.Qwen2VLRotaryEmbedding,
        "qwen2_5": m25.Qwen2_5_VLRotaryEmbedding,
        "qwen3": m3.Qwen3VLTextRotaryEmbedding,
    }[kind](_text_config(kind, theta, section))
    apply = {"qwen2": m2, "qwen2_5": m25, "qwen3": m3}[kind].apply_rotary_pos_emb

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
        q = torch.from_numpy(x).float()[None, None]  # (batch, heads, n, D)
        ids = torch.from_numpy(np.ascontiguousarray(positions.T))[:, None, :]  # (3, batch, n)
        cos, sin = module(q, ids)
        out, _ = apply(q, q, cos, sin)
        return np.asarray(out[0, 0].numpy())

    return backend


def flux_backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
    """diffusers' Flux: FluxPosEmbed(10000, [16, 56, 56]) on the ids, apply_rotary_emb."""
    import torch
    from diffusers.models.embeddings import apply_rotary_emb
    from diffusers.models.transformers.transformer_flux import FluxPosEmbed

    cos, sin = FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(torch.from_numpy(positions))
    q = torch.from_numpy(x).float()[None, None]
    return np.asarray(apply_rotary_emb(q, (cos, sin))[0, 0].numpy())


def numpy_mrope(
    theta: float, section: Sequence[int], interleaved: bool, swap_hw: bool = False
) -> Any:
    """A float32 M-RoPE port: frequency j fed by ``qwen_axis(j, section, interleaved)``
    (h and w exchanged with ``swap_hw``), halves pairing."""

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
        d = x.shape[1]
        j = np.arange(d // 2)
        inv = (
            1.0 / np.float32(theta) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))
        ).astype(np.float32)
        axes = np.array([qwen_axis(int(k), section, interleaved) for k in j])
        if swap_hw:
            axes = np.array([{1: 2, 2: 1}.get(int(a), int(a)) for a in axes])
        p = positions[:, axes].astype(np.float32)
        angle = p * inv[None, :]
        c, s = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
        a, b = x[:, : d // 2].astype(np.float32), x[:, d // 2 :].astype(np.float32)
        return np.concatenate([a * c - b * s, b * c + a * s], axis=1).astype(np.float32)

    return backend


def numpy_flux(axes_dim: Sequence[int], adjacent: bool = True) -> Any:
    """A float32 Flux port: axis i gives ``axes_dim[i]``/2 angles p_i·10000^(−2j/dim),
    concatenated over the axes (one angle per pair); pairs adjacent (``adjacent``) or, as a
    NeoX-style kernel would pair them, (x_s, x_{s+D/2}) over the whole head."""

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
        angles = []
        for axis, dim in enumerate(axes_dim):
            inv = 1.0 / 10000.0 ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
            angles.append(positions[:, axis : axis + 1].astype(np.float64) * inv[None, :])
        angle = np.concatenate(angles, axis=1)
        c, s = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
        v = x.astype(np.float32)
        half = v.shape[1] // 2
        a, b = (v[:, 0::2], v[:, 1::2]) if adjacent else (v[:, :half], v[:, half:])
        ya, yb = a * c - b * s, b * c + a * s
        if not adjacent:
            return np.concatenate([ya, yb], axis=1)
        out = np.empty_like(v)
        out[:, 0::2], out[:, 1::2] = ya, yb
        return out

    return backend
