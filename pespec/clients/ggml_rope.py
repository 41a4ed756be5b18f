"""llama.cpp's CPU rotary op, ``ggml_rope_ext``, called through ggml's C API (issue 35).

ggml-python (``ggml``) is ctypes bindings of ggml's shared library: the functions below are
the C functions themselves (``ggml_init``, ``ggml_rope_ext``, ``ggml_graph_compute_with_ctx``).
The arguments are llama.cpp's for the configuration (:mod:`pespec.clients.llamacpp_params`),
the tensor is in ggml's native layout ``[D, H, T]`` (``ne0`` = head_dim fastest), positions
int32 per token. Shape classes (a row column, issue 35 item 8), each one graph:

- ``tokens``: ``a`` contiguous ``[D, 1, n]``; a llama.cpp batch holds prefill tokens and the
  one-token decode steps of several sequences (each its own position) in this one layout;
- ``view``: ``a`` a non-contiguous view (``ggml_view_3d``) of a fused ``[3D, 1, n]`` buffer at
  offset D, as the k part of a fused qkv projection;
- ``inplace``: ``ggml_rope_ext_inplace`` on that view (llama.cpp's context shift), read back
  from the buffer;
- ``batch``: ``a`` ``[D, 2, n]``, the tokens of two sequences interleaved (the second half
  of the checked tokens, then one of the first half, and so on: positions per token neither
  sorted nor starting at 0, each sequence its own), two heads per token (head 0 another
  token's values, head 1 the checked one).

LongRoPE: the factors are llama.cpp's choice at the allocated context ``n_ctx`` (the
client's ``options["n_ctx"]``, by default the preset's ℓ).

Llama's converter permutes each head's q/k rows so that halves pairs become adjacent
(``MODE_NORMAL``); the adapter applies that permutation to x and its inverse to the output,
as a converted model's weights and attention scores do.
"""

from __future__ import annotations

import ctypes
import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.llamacpp_params import GgmlRopeArgs, rope_args
from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["SHAPES", "build", "ggml_rope"]

SHAPES = ("tokens", "view", "inplace", "batch")
_MEM = 1 << 28


def _permutation(head_dim: int) -> NDArray[np.intp]:
    """Index map of the converter's permute: ggml row ``2i + h`` holds HF row ``h·d/2 + i``."""
    half = head_dim // 2
    return np.array([h * half + i for i in range(half) for h in (0, 1)], dtype=np.intp)


def batch_order(n: int) -> NDArray[np.intp]:
    """Token order of the ``batch`` shape class: the second half of the tokens (one
    sequence, its positions not starting where the first's do) interleaved with the first."""
    half = n // 2
    second, first = np.arange(half, n), np.arange(0, half)
    out = np.empty(n, dtype=np.intp)
    out[: 2 * half : 2], out[1 : 2 * half : 2] = second[:half], first
    out[2 * half :] = second[half:]
    return out


def _copy_in(ggml: Any, tensor: Any, data: NDArray[Any]) -> None:
    data = np.ascontiguousarray(data)
    assert ggml.ggml_nbytes(tensor) == data.nbytes, (ggml.ggml_nbytes(tensor), data.nbytes)
    ctypes.memmove(ggml.ggml_get_data(tensor), data.ctypes.data, data.nbytes)


def _copy_out(ggml: Any, tensor: Any, dtype: Any, shape: tuple[int, ...]) -> NDArray[Any]:
    out = np.empty(shape, dtype=dtype)
    ctypes.memmove(out.ctypes.data, ggml.ggml_get_data(tensor), out.nbytes)
    return out


def _input(ggml: Any, ctx: Any, rows: NDArray[Any], np_dtype: Any, shape: str) -> Any:
    """(buffer, a): the tensor the op reads, in shape class ``shape`` (rows in op order)."""
    n, d = rows.shape
    gtype = ggml.GGML_TYPE_F16 if np_dtype == np.float16 else ggml.GGML_TYPE_F32
    if shape in ("tokens", "batch"):
        heads = 2 if shape == "batch" else 1
        buf = ggml.ggml_new_tensor_3d(ctx, gtype, d, heads, n)
        data = rows[:, None, :] if heads == 1 else np.stack([np.roll(rows, 1, 0), rows], 1)
        _copy_in(ggml, buf, data.astype(np_dtype))
        return buf, buf
    # a view of the k slice of a fused [3D, 1, n] qkv buffer
    buf = ggml.ggml_new_tensor_3d(ctx, gtype, 3 * d, 1, n)
    fused = np.zeros((n, 3 * d), dtype=np_dtype)
    fused[:, d : 2 * d] = rows
    _copy_in(ggml, buf, fused)
    item = np.dtype(np_dtype).itemsize
    return buf, ggml.ggml_view_3d(ctx, buf, d, 1, n, 3 * d * item, 3 * d * item, d * item)


def _output(ggml: Any, buf: Any, out: Any, np_dtype: Any, shape: str, n: int, d: int) -> Any:
    if shape == "inplace":
        return _copy_out(ggml, buf, np_dtype, (n, 3 * d))[:, d : 2 * d]
    if shape == "batch":
        return _copy_out(ggml, out, np_dtype, (n, 2, d))[:, 1, :]
    return _copy_out(ggml, out, np_dtype, (n, d))


def ggml_rope(
    x: NDArray[Any], positions: NDArray[Any], args: GgmlRopeArgs, dtype: str, shape: str
) -> NDArray[Any]:
    """``x`` (n, head_dim) rotated by ggml's CPU rope op at ``positions`` (n,), in ``dtype``
    (float32 or float16) and shape class ``shape``; (n, head_dim) in ``dtype``."""
    ggml = importlib.import_module("ggml")
    n, d = x.shape
    np_dtype = np.float16 if dtype == "float16" else np.float32
    order = batch_order(n) if shape == "batch" else np.arange(n)
    rows = np.asarray(x)[:, _permutation(d)] if args.permuted else np.asarray(x)
    ctx = ggml.ggml_init(ggml.ggml_init_params(mem_size=_MEM + 64 * n * d, mem_buffer=None))
    try:
        pos = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_I32, n)
        _copy_in(ggml, pos, np.asarray(positions, dtype=np.int32)[order])
        factors = None
        if args.freq_factors is not None:
            factors = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_F32, len(args.freq_factors))
            _copy_in(ggml, factors, np.asarray(args.freq_factors, dtype=np.float32))
        buf, a = _input(ggml, ctx, rows[order], np_dtype, shape)
        op = ggml.ggml_rope_ext_inplace if shape == "inplace" else ggml.ggml_rope_ext
        out = op(
            ctx, a, pos, factors, args.n_dims, args.mode, args.n_ctx_orig, args.freq_base,
            args.freq_scale, args.ext_factor, args.attn_factor, args.beta_fast, args.beta_slow,
        )  # fmt: skip
        graph = ggml.ggml_new_graph(ctx)
        ggml.ggml_build_forward_expand(graph, out)
        ggml.ggml_graph_compute_with_ctx(ctx, graph, 1)
        result = np.empty((n, d), dtype=np_dtype)
        result[order] = _output(ggml, buf, out, np_dtype, shape, n, d)
    finally:
        ggml.ggml_free(ctx)
    if args.permuted:
        back = np.empty_like(result)
        back[:, _permutation(d)] = result
        result = back
    return result


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: llama.cpp's arguments for ``config`` (refused, ValueError, when not
    transcribed), the op in ``dtype`` and the client's shape class."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a published model)")
    n_ctx = client.options.get("n_ctx")
    args = rope_args(config, None if n_ctx is None else int(str(n_ctx)))
    shape = str(client.options.get("shape", "tokens"))
    importlib.import_module("ggml")

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> NDArray[Any]:
        if rope.head_dim != args.head_dim:
            raise ValueError(f"head_dim {rope.head_dim} differs from llama.cpp's {args.head_dim}")
        return ggml_rope(x, positions, args, dtype, shape)

    return fn
