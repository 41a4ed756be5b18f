"""Triton rotary kernels on CPU under the Triton interpreter (issue 35): Liger's
``liger_rotary_pos_emb`` (the ``_triton_rope`` kernel) with ``TRITON_INTERPRET=1``.

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

import importlib
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["liger_rope"]


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
