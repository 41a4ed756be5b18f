"""Triton rotary kernels on CPU under the Triton interpreter (issue 35): Liger's
``liger_rotary_pos_emb`` (the ``_triton_rope`` kernel) and ``liger_multimodal_rotary_pos_emb``
(the ``_triton_qwen2vl_mrope`` kernel, :func:`liger_mrope`) with ``TRITON_INTERPRET=1``.

What the interpreter checks: the kernel's rotation formula, its pairing (halves), its
addressing of the ``[B, H, T, D]`` layout (row strides, head tiles padded to a power of two
and masked, the cos/sin row of each batch and token) and that it writes q and k in place.
What it cannot: the GPU's sin/cos (Liger takes cos/sin from the caller; here they are
transformers' Llama rotary module's, float32 phase, cast to x's dtype) and the GPU's
rounding (the interpreter computes with NumPy on the CPU). bfloat16 is not run: the
interpreter (triton 3.9.0) miscomputes bfloat16 arithmetic (tools/engine-repro/
triton_interpreter_bf16.py), which is what made Liger's bfloat16 output inf/nan here.

Shape classes (``options["shape"]``): ``prefill`` (``[1, 1, n, D]``, cos ``[1, n, D]``),
``decode`` (``[n, 1, 1, D]``, one token per sequence, each its position, cos ``[n, 1, D]``),
``heads`` (three heads, q the non-contiguous ``view(B, T, H, D).transpose(1, 2)`` a model's
projection gives; the third head returned).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.engine_shapes import pack_from_zero, pack_with_offsets
from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["flash_attn_rotary", "liger_mrope", "liger_rope"]


def _cos_sin(torch: Any, positions: Any, rope: RopeConfig) -> tuple[Any, Any]:
    """(n, d) float32 cos, sin as transformers' LlamaRotaryEmbedding builds them (halves)."""
    j = torch.arange(0, rope.d_r, 2, dtype=torch.int64).float()
    inv_freq = 1.0 / (rope.theta ** (j / rope.d_r))
    phase = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat([phase, phase], dim=-1)
    return emb.cos(), emb.sin()


def liger_rope(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: Liger's rope under the interpreter (refuses what it cannot express:
    a schedule other than the default, interleaved pairs, partial rotary)."""
    if config is not None:
        from pespec.rope.presets import read_config

        rope = read_config(config)
        if rope.rope_type != "default" or rope.pairing != "halves" or rope.d_r != rope.head_dim:
            raise ValueError(
                f"client {client.name} runs caller-supplied cos/sin of the default schedule on "
                f"halves pairs of the whole head; --config {config!r} has rope_type "
                f"{rope.rope_type!r}, {rope.pairing} pairs, d_r {rope.d_r}"
            )
    os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported: CPU tensors, NumPy
    torch = importlib.import_module("torch")
    liger = importlib.import_module("liger_kernel.transformers.rope")
    work, shape = getattr(torch, dtype), str(client.options.get("shape", "prefill"))

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(work)
        cos, sin = _cos_sin(torch, torch.from_numpy(np.asarray(positions)), rope)
        cos, sin = cos.to(work), sin.to(work)
        if shape == "decode":
            q, cos, sin = data[:, None, None, :].clone(), cos[:, None, :], sin[:, None, :]
        elif shape == "heads":
            q = data[None, :, None, :].repeat(1, 1, 3, 1).transpose(1, 2)  # [1, 3, n, d] view
            cos, sin = cos[None], sin[None]
        else:
            q, cos, sin = data[None, None].clone(), cos[None], sin[None]
        out, _ = liger.liger_rotary_pos_emb(q, q.clone(), cos, sin)
        if shape == "decode":
            return out[:, 0, 0, :]
        return out[0, 2] if shape == "heads" else out[0, 0]

    return fn


def _mrope_section(config: str) -> tuple[Any, list[int]]:
    """The preset's :class:`~pespec.multiaxis.rope.config.MultiAxisRopeConfig` and its
    sectioned ``mrope_section`` [t, h, w] (ValueError for what Liger's kernel cannot express:
    interleaved sections, adjacent pairs, a schedule other than the default, partial rotary)."""
    from pespec.multiaxis.rope.config import mrope_axes
    from pespec.multiaxis.rope.presets import resolve_config

    chosen = resolve_config(config).config
    half, sections = chosen.head_dim // 2, chosen.sections
    sizes = [sum(len(s.pairs) for s in sections if s.axis == axis) for axis in range(3)]
    rope = sections[0].rope
    plain = chosen.axes == 3 and chosen.pairing == "halves" and sum(sizes) == half
    plain = plain and all(s.rope == rope and s.pairs == s.slots for s in sections)
    plain = plain and rope.rope_type == "default" and rope.d_r == chosen.head_dim
    axes = [0] * half
    for s in sections:
        for j in s.pairs:
            axes[j] = s.axis
    if not plain or axes != mrope_axes(half, sizes, interleaved=False):
        raise ValueError(
            f"Liger's Qwen2-VL M-RoPE kernel runs contiguous t, h, w sections of one default "
            f"rotary on halves pairs; --config {config!r} ({chosen.name}) is not that"
        )
    return chosen, sizes


def liger_mrope(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter (family multiaxis-rope): Liger's Qwen2-VL M-RoPE kernel under the
    interpreter. cos/sin ``[3, B, T, D]``: per axis the float32 phase p_axis·ω_j, ω_j =
    θ^(-2j/D), halves repeated, cast to x's dtype (transformers' Qwen2-VL rotary module as
    it fed ``apply_multimodal_rotary_pos_emb``, the function Liger's monkey patch replaces).
    Shape classes: ``prefill`` (q ``[1, 1, n, D]``), ``decode`` (``[n, 1, 1, D]``)."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a multiaxis-rope preset)")
    chosen, section = _mrope_section(config)
    os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported: CPU tensors, NumPy
    torch = importlib.import_module("torch")
    liger = importlib.import_module("liger_kernel.transformers.qwen2vl_mrope")
    work, shape = getattr(torch, dtype), str(client.options.get("shape", "prefill"))
    rope = chosen.sections[0].rope

    def fn(x: NDArray[Any], positions: NDArray[Any], given: Any) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(work)
        pos = torch.from_numpy(np.ascontiguousarray(np.asarray(positions).T))  # [3, n]
        pairs = [_cos_sin(torch, pos[axis], rope) for axis in range(3)]
        cos = torch.stack([c for c, _ in pairs]).to(work)  # [3, n, D]
        sin = torch.stack([s for _, s in pairs]).to(work)
        if shape == "decode":  # n sequences of one token each, each at its position
            q, cos, sin = data[:, None, None, :].clone(), cos[:, :, None], sin[:, :, None]
        else:
            q, cos, sin = data[None, None].clone(), cos[:, None], sin[:, None]
        out, _ = liger.liger_multimodal_rotary_pos_emb(q, q.clone(), cos, sin, section)
        return out[:, 0, 0, :] if shape == "decode" else out[0, 0]

    return fn


FLASH_ATTN_ROTARY = Path(sys.prefix) / "flash-attn-2.8.3" / "rotary.py"
"""flash-attn 2.8.3's ``flash_attn/ops/triton/rotary.py``, from its sdist (tools/engine-env
triton: the package's setup.py builds CUDA extensions, so only this file is there)."""


def _flash_attn_module(torch: Any) -> Any:
    """The file as a module, with ``torch.cuda.device`` a no-op for a CPU tensor's index
    (None): ``apply_rotary`` enters ``torch.cuda.device(x.device.index)`` around the launch."""
    if not FLASH_ATTN_ROTARY.is_file():
        raise ImportError(f"{FLASH_ATTN_ROTARY} is absent: tools/engine-env triton DIR makes it")
    device = torch.cuda.device
    if not getattr(device, "_pespec_cpu", False):

        def cpu_device(index: Any) -> Any:
            return contextlib.nullcontext() if index is None else device(index)

        cpu_device._pespec_cpu = True  # type: ignore[attr-defined]
        torch.cuda.device = cpu_device
    spec = importlib.util.spec_from_file_location("flash_attn_triton_rotary", FLASH_ATTN_ROTARY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _flash_attn_refusal(client: Client, config: str) -> None:
    """ValueError for what flash-attn's kernel cannot express: a schedule other than the
    default (the caller's cos/sin are RotaryEmbedding's plain table), pairs other than halves
    or interleaved, a head over 256 (its ``apply_rotary`` asserts ``headdim <= 256``)."""
    from pespec.rope.presets import read_config

    rope = read_config(config)
    if rope.rope_type != "default" or rope.pairing not in ("halves", "interleaved"):
        raise ValueError(
            f"client {client.name} runs cos/sin of the default schedule on halves or "
            f"interleaved pairs; --config {config!r} has rope_type {rope.rope_type!r}, "
            f"{rope.pairing} pairs"
        )
    if rope.head_dim > 256:
        raise ValueError(
            f"client {client.name}: flash-attn's rotary kernel takes head_dim <= 256; "
            f"--config {config!r} has head_dim {rope.head_dim}"
        )


def flash_attn_rotary(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: flash-attn's ``apply_rotary`` (``rotary_kernel``) under the
    interpreter, cos/sin ``[T_ro, d_r/2]`` as flash-attn's RotaryEmbedding builds them (float32
    outer product t·inv_freq, cast to x's dtype), ``interleaved`` for interleaved pairs; a
    head wider than d_r passes its tail through. Shape classes: ``prefill`` (x ``[1, n, 1,
    D]``, the table's rows the positions), ``decode`` (``[n, 1, 1, D]``, ``seqlen_offsets``
    the positions into the table of rows 0..max), ``varlen`` (x ``[total, 1, D]`` packed with
    ``cu_seqlens``, ``max_seqlen``, every sequence from position 0: :func:`pack_from_zero`),
    ``varlen-offsets`` (packed, ``seqlen_offsets`` per sequence: :func:`pack_with_offsets`)."""
    if config is not None:
        _flash_attn_refusal(client, config)
    os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported: CPU tensors, NumPy
    torch = importlib.import_module("torch")
    module = _flash_attn_module(torch)
    work, shape = getattr(torch, dtype), str(client.options.get("shape", "prefill"))

    def table(rows: Any, rope: RopeConfig) -> tuple[Any, Any]:
        cos, sin = _cos_sin(torch, rows, rope)
        return cos[:, : rope.d_r // 2].to(work), sin[:, : rope.d_r // 2].to(work)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(work)
        pos = torch.from_numpy(np.asarray(positions)).to(torch.int64)
        pairs = {"interleaved": rope.pairing == "interleaved"}
        if shape == "prefill":
            cos, sin = table(pos, rope)
            return module.apply_rotary(data[None, :, None, :], cos, sin, **pairs)[0, :, 0, :]
        cos, sin = table(torch.arange(int(pos.max()) + 1, dtype=torch.int64), rope)
        if shape == "decode":  # n sequences of one token, each at its position (offsets)
            out = module.apply_rotary(data[:, None, None, :], cos, sin, seqlen_offsets=pos, **pairs)
            return out[:, 0, 0, :]
        if shape == "varlen":
            slots, cu = pack_from_zero(np.asarray(positions))
            packed = torch.zeros((int(cu[-1]), 1, data.shape[1]), dtype=work)
            packed[torch.from_numpy(slots), 0] = data
            offsets: Any = 0
        else:
            cu, starts = pack_with_offsets(np.asarray(positions))
            slots, packed, offsets = (
                np.arange(len(data)),
                data[:, None, :],
                torch.from_numpy(starts),
            )
        longest = int(np.diff(cu).max())
        out = module.apply_rotary(packed, cos, sin, offsets, torch.from_numpy(cu), longest, **pairs)
        return out[torch.from_numpy(slots), 0]

    return fn
