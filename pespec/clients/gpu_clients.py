"""GPU kernels as clients (issue 29): flash-attn's rotary kernel, flashinfer's RoPE kernels,
Liger's fused rotary and (issue 35) TransformerEngine's fused rope, each with
``device="cuda"``. On a machine without a GPU their rows say so and do not run; where one is
present the adapter calls the real kernel on CUDA tensors.

The cos/sin a kernel is handed (flash-attn, Liger) are computed as the library's own module
computes them: float32 ω = 1/θ^(2j/d_r), float32 phase p·ω (SPEC §8.8's float32 stack); the
kernels that compute cos/sin themselves (flashinfer) get θ, d_r and the pairing. Each is
``fn(x (n, head_dim), positions (n,), rope)``; configurations a kernel cannot express are
refused when the client is built.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.engine_shapes import pack_with_offsets
from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["TE_FORMATS", "flash_attn", "flashinfer", "liger", "transformer_engine"]


def _default_schedule(client: Client, config: str | None) -> None:
    if config is None:
        return
    from pespec.rope.presets import read_config

    rope = read_config(config)
    if rope.rope_type != "default" or rope.pairing not in ("halves", "interleaved"):
        raise ValueError(
            f"client {client.name} runs the default schedule with halves or interleaved pairs; "
            f"--config {config!r} has rope_type {rope.rope_type!r}, {rope.pairing} pairs"
        )


def _cos_sin(torch: Any, positions: NDArray[Any], rope: RopeConfig) -> tuple[Any, Any]:
    """float32 cos, sin (n, d_r/2) on the GPU, as the libraries' rotary modules build them."""
    j = torch.arange(0, rope.d_r, 2, dtype=torch.float32, device="cuda")
    inv_freq = 1.0 / (rope.theta ** (j / rope.d_r))
    p = torch.as_tensor(np.asarray(positions), device="cuda").to(torch.float32)
    phase = torch.outer(p, inv_freq)
    return phase.cos(), phase.sin()


def flash_attn(client: Client, dtype: str, config: str | None) -> Any:
    """flash-attn ``flash_attn.layers.rotary.apply_rotary_emb(x, cos, sin, interleaved)``:
    x (1, n, 1, head_dim), row i rotated with cos/sin row i (its position)."""
    _default_schedule(client, config)
    torch = importlib.import_module("torch")
    rotary = importlib.import_module("flash_attn.layers.rotary")
    work = getattr(torch, dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        cos, sin = _cos_sin(torch, positions, rope)
        xs = torch.as_tensor(np.asarray(x), device="cuda").to(work)[None, :, None, :]
        out = rotary.apply_rotary_emb(
            xs, cos.to(work), sin.to(work), interleaved=rope.pairing == "interleaved"
        )
        return out[0, :, 0, :].float().cpu()

    return fn


def flashinfer(client: Client, dtype: str, config: str | None) -> Any:
    """flashinfer ``flashinfer.rope.apply_rope_pos_ids(q, k, pos_ids, rotary_dim, interleave,
    rope_scale=1, rope_theta=θ)``: cos/sin computed inside the kernel."""
    _default_schedule(client, config)
    torch = importlib.import_module("torch")
    rope_module = importlib.import_module("flashinfer.rope")
    work = getattr(torch, dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        q = torch.as_tensor(np.asarray(x), device="cuda").to(work)[:, None, :]
        ids = torch.as_tensor(np.asarray(positions), device="cuda").to(torch.int32)
        q_rope, _ = rope_module.apply_rope_pos_ids(
            q,
            q.clone(),
            ids,
            rotary_dim=rope.d_r,
            interleave=rope.pairing == "interleaved",
            rope_scale=1.0,
            rope_theta=rope.theta,
        )
        return q_rope[:, 0, :].float().cpu()

    return fn


def liger(client: Client, dtype: str, config: str | None) -> Any:
    """Liger ``liger_kernel.transformers.rope.liger_rotary_pos_emb(q, k, cos, sin)`` with the
    (1, n, head_dim) cos/sin of transformers' Llama rotary module (halves)."""
    _default_schedule(client, config)
    torch = importlib.import_module("torch")
    liger_rope = importlib.import_module("liger_kernel.transformers.rope")
    work = getattr(torch, dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        if rope.pairing != "halves" or rope.d_r != rope.head_dim:
            raise ValueError("Liger's fused rotary rotates halves of the whole head")
        cos, sin = _cos_sin(torch, positions, rope)
        cos = torch.cat([cos, cos], dim=-1)[None].to(work)
        sin = torch.cat([sin, sin], dim=-1)[None].to(work)
        q = torch.as_tensor(np.asarray(x), device="cuda").to(work)[None, None]
        q_rope, _ = liger_rope.liger_rotary_pos_emb(q, q.clone(), cos, sin)
        return q_rope[0, 0].float().cpu()

    return fn


TE_FORMATS = ("sbhd", "bshd", "thd")
"""TransformerEngine's ``tensor_format`` values, each a shape class of its rows."""


def transformer_engine(client: Client, dtype: str, config: str | None) -> Any:
    """TransformerEngine ``transformer_engine.pytorch.attention.rope.apply_rotary_pos_emb(t,
    freqs, tensor_format, start_positions, interleaved, fused=True, cu_seqlens)``, freqs
    ``[s, 1, 1, d_r]`` float32 from its ``RotaryPositionEmbedding(d_r, rotary_base=θ,
    interleaved)`` (the phases; the kernel takes their sin/cos itself, a head wider than d_r
    passes its tail through). ``options["shape"]``: ``sbhd`` (one sequence of the n rows, t
    ``[n, 1, 1, D]``, freqs rows taken at the positions), ``bshd`` (n sequences of one token,
    ``[n, 1, 1, D]``, ``start_positions`` the positions: a decode step), ``thd`` (packed
    ``[n, 1, D]`` with int32 ``cu_seqlens``, each sequence of consecutive positions from its
    ``start_positions`` entry: :func:`~pespec.clients.engine_shapes.pack_with_offsets`)."""
    _default_schedule(client, config)
    shape = str(client.options.get("shape", "sbhd"))
    if shape not in TE_FORMATS:
        raise ValueError(f"client {client.name}: shape must be one of {TE_FORMATS}; got {shape!r}")
    torch = importlib.import_module("torch")
    te_rope = importlib.import_module("transformer_engine.pytorch.attention.rope")
    work = getattr(torch, dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        interleaved = rope.pairing == "interleaved"
        module = te_rope.RotaryPositionEmbedding(
            rope.d_r, rotary_base=rope.theta, interleaved=interleaved
        )
        pos = np.asarray(positions).astype(np.int64)
        freqs = module(int(pos.max()) + 1)  # [max + 1, 1, 1, d_r] float32 on the GPU
        t = torch.as_tensor(np.asarray(x), device="cuda").to(work)
        starts = torch.as_tensor(pos.astype(np.int32), device="cuda")
        options: dict[str, Any] = {"interleaved": interleaved, "fused": True}
        if shape == "sbhd":
            rows = freqs[torch.as_tensor(pos, device="cuda")].contiguous()
            out = te_rope.apply_rotary_pos_emb(t[:, None, None], rows, "sbhd", **options)
            return out[:, 0, 0].float().cpu()
        if shape == "bshd":
            out = te_rope.apply_rotary_pos_emb(
                t[:, None, None], freqs, "bshd", start_positions=starts, **options
            )
            return out[:, 0, 0].float().cpu()
        cu, offsets = pack_with_offsets(pos)
        out = te_rope.apply_rotary_pos_emb(
            t[:, None],
            freqs,
            "thd",
            start_positions=torch.as_tensor(offsets, device="cuda"),
            cu_seqlens=torch.as_tensor(cu, device="cuda"),
            **options,
        )
        return out[:, 0].float().cpu()

    return fn
