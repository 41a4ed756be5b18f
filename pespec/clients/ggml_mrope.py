"""llama.cpp's M-RoPE op, ``ggml_rope_multi``, through ggml's C API (issue 35).

The arguments llama.cpp derives for Qwen2.5-VL and Qwen3-VL, transcribed with the files of
ggml-org/llama.cpp they follow (the converter cannot run without the weights; facts, not
code):

- ``rope_scaling.mrope_section`` -> ``{arch}.rope.dimension_sections``, padded with zeros to
  four entries (``convert_hf_to_gguf.py``, ``Qwen2VLModel.set_gguf_parameters``,
  ``Qwen3VLTextModel``); the loader reads four sections (``llama-model.cpp``,
  ``LLM_ARCH_QWEN2VL`` / ``LLM_ARCH_QWEN3VL``: ``get_key_or_arr(...ROPE_DIMENSION_SECTIONS,
  hparams.rope_sections, 4, true)``).
- ``rope_theta`` -> ``rope.freq_base``; no scaling: ``freq_scale 1``, ``ext_factor 0``,
  ``attn_factor 1`` (``llama-context.cpp`` defaults).
- mode: ``LLAMA_ROPE_TYPE_MROPE`` (8) for ``qwen2vl``, ``LLAMA_ROPE_TYPE_IMROPE`` (40) for
  ``qwen3vl`` (``llama_model_rope_type``); n_dims = head_dim.
- positions: four per token, in blocks ``[t_0..t_{n-1}, h_0.., w_0.., e_0..]`` (the graph's
  ``inp_pos`` with ``n_pos_per_embd() == 4``; the fourth is 0 for text and images).

The tensor is ggml's ``[D, 1, n]``, float32 or float16; shape class ``tokens``.
"""

from __future__ import annotations

import ctypes
import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client

__all__ = ["MODE_IMROPE", "MODE_MROPE", "MropeArgs", "build", "mrope_args", "rope_multi_call"]

MODE_MROPE = 8
MODE_IMROPE = 40
_PUBLISHED = Path(__file__).resolve().parent.parent / "rope" / "published"
_SOURCES = {
    "qwen2.5-vl-7b": ("qwen2.5-vl-7b-instruct.json", MODE_MROPE),
    "qwen3-vl-4b": ("qwen3-vl-4b-instruct.json", MODE_IMROPE),
}
_MEM = 1 << 26


@dataclass(frozen=True)
class MropeArgs:
    """``ggml_rope_multi``'s arguments for one model."""

    head_dim: int
    sections: tuple[int, int, int, int]
    mode: int
    freq_base: float

    def describe(self) -> str:
        """One line for the compare view."""
        return (
            f"mode={self.mode} n_dims={self.head_dim} sections={list(self.sections)} "
            f"base={self.freq_base:g} freq_scale=1 ext=0 attn=1"
        )


def mrope_args(preset: str) -> MropeArgs:
    """llama.cpp's ``ggml_rope_multi`` arguments for ``preset`` (ValueError when not
    transcribed)."""
    if preset not in _SOURCES:
        raise ValueError(f"config must be one of {', '.join(_SOURCES)} for ggml_rope_multi; "
                         f"got {preset!r}")  # fmt: skip
    name, mode = _SOURCES[preset]
    config = json.loads((_PUBLISHED / name).read_text(encoding="utf-8"))
    text = config.get("text_config", config)
    scaling = text.get("rope_scaling") or config.get("rope_scaling") or {}
    section = [int(s) for s in scaling["mrope_section"]]
    theta = float(text.get("rope_theta", config.get("rope_theta", 10000.0)))
    head_dim = int(text.get("head_dim") or text["hidden_size"] // text["num_attention_heads"])
    padded = (*section, 0, 0, 0, 0)[:4]
    return MropeArgs(head_dim, (padded[0], padded[1], padded[2], padded[3]), mode, theta)


def rope_multi_call(
    x: NDArray[Any],
    blocks: NDArray[Any],
    call: tuple[int, tuple[int, int, int, int], int, int, float],
    dtype: str,
    heads: int = 1,
) -> NDArray[Any]:
    """``ggml_rope_multi`` on ``x`` (n, heads·D) as ggml's ``[D, heads, n]`` tensor with the
    (4, n) position ``blocks`` (int32 input ``[4n]``) and ``call`` = (n_dims, sections, mode,
    n_ctx_orig, freq_base) (freq_scale 1, ext 0, attn 1, β 32/1), in ``dtype`` (float32 or
    float16); (n, heads·D) in ``dtype``."""
    ggml = importlib.import_module("ggml")
    n, width = x.shape
    d = width // heads
    n_dims, sections, mode, n_ctx_orig, freq_base = call
    np_dtype = np.float16 if dtype == "float16" else np.float32
    gtype = ggml.GGML_TYPE_F16 if dtype == "float16" else ggml.GGML_TYPE_F32
    ctx = ggml.ggml_init(ggml.ggml_init_params(mem_size=_MEM + 64 * n * width, mem_buffer=None))
    try:
        a = ggml.ggml_new_tensor_3d(ctx, gtype, d, heads, n)
        data = np.ascontiguousarray(np.asarray(x).astype(np_dtype))
        ctypes.memmove(ggml.ggml_get_data(a), data.ctypes.data, data.nbytes)
        pos = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_I32, 4 * n)
        flat = np.ascontiguousarray(np.asarray(blocks, dtype=np.int32).reshape(4, n))
        ctypes.memmove(ggml.ggml_get_data(pos), flat.ctypes.data, flat.nbytes)
        c_sections = (ctypes.c_int * 4)(*sections)
        out = ggml.ggml_rope_multi(
            ctx, a, pos, None, n_dims, c_sections, mode, n_ctx_orig, freq_base,
            1.0, 0.0, 1.0, 32.0, 1.0,
        )  # fmt: skip
        graph = ggml.ggml_new_graph(ctx)
        ggml.ggml_build_forward_expand(graph, out)
        ggml.ggml_graph_compute_with_ctx(ctx, graph, 1)
        result = np.empty((n, width), dtype=np_dtype)
        ctypes.memmove(result.ctypes.data, ggml.ggml_get_data(out), result.nbytes)
    finally:
        ggml.ggml_free(ctx)
    return result


def ggml_rope_multi(
    x: NDArray[Any], positions: NDArray[Any], args: MropeArgs, dtype: str
) -> NDArray[Any]:
    """``x`` (n, head_dim) rotated by ggml's CPU M-RoPE at (t, h, w) ``positions`` (n, 3),
    in ``dtype`` (float32 or float16); (n, head_dim) in ``dtype``."""
    n = x.shape[0]
    blocks = np.zeros((4, n), dtype=np.int32)
    blocks[:3] = np.asarray(positions, dtype=np.int64).T
    call = (args.head_dim, args.sections, args.mode, 0, args.freq_base)
    return rope_multi_call(x, blocks, call, dtype)


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter (family multiaxis-rope): llama.cpp's ``ggml_rope_multi`` for the
    Qwen-VL ``config``; the backend takes (n, D) x and (n, 3) (t, h, w) positions."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a multiaxis-rope preset)")
    args = mrope_args(config)
    importlib.import_module("ggml")

    def backend(x: NDArray[Any], positions: NDArray[Any], chosen: Any) -> NDArray[Any]:
        if x.shape[1] != args.head_dim:
            raise ValueError(f"head_dim {x.shape[1]} differs from llama.cpp's {args.head_dim}")
        return ggml_rope_multi(x, positions, args, dtype)

    return backend
