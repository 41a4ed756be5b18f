"""SGLang's rotary embedding as SGLang serves it on CPU (issue 35): ``get_rope`` from
``sglang.srt.layers.rotary_embedding`` with the arguments SGLang's model files pass.

SGLang selects its CPU code by ``SGLANG_USE_CPU_ENGINE=1`` (``sglang.srt.utils.is_cpu``);
without it ``RotaryEmbedding.__init__`` imports ``vllm._custom_ops``. The adapter sets it
before SGLang is imported. Paths (``options["path"]``): ``forward_native`` (torch);
``forward_torch_compile`` (``BaseFusedOp``'s ``torch.compile(self.forward_native)``, the
path SGLang's compiled model runs); ``forward`` (LongRoPE's ``Phi3LongRoPEScaledRotaryEmbedding``
is a plain ``nn.Module``: no ``forward_native``; its ``forward`` is torch and is what runs on
CPU); ``forward_cpu``: ``torch.ops.sgl_kernel.rotary_embedding_cpu`` only when
``cpu_has_amx_support()`` (``torch.cpu._is_amx_tile_supported()`` and an importable CPU build of
``sgl_kernel``), else ``forward_native``; its row refuses to run where that is not so
(:func:`cpu_kernel_reason`), since it would check ``forward_native`` twice. Tried (issue 35):
the registry's ``sgl-kernel==0.3.21 --no-deps`` (29 s, 1.6 GB) is a CUDA build, ``import
sgl_kernel`` fails with "ImportError: libnvrtc.so.12: cannot open shared object file"; the
registry has no CPU build, and this machine's CPU has no AMX, so SGLang would not call it.
On a GPU (clients with ``device="cuda"``, issue 35 item 5, ``SGLANG_USE_CPU_ENGINE`` unset):
``forward_cuda`` (``apply_rope_with_cos_sin_cache_inplace`` of ``sglang.kernels.ops.attention.
rope``, a JIT-compiled CUDA kernel, for head sizes 64, 128, 256, 512, else its
``rotary_embedding`` fallback; M-RoPE: ``forward_triton``), the module built under
``torch.device("cuda")``.

Configuration: transformers' ``AutoConfig`` on the published ``config.json`` (transformers
5.19.0, the version sglang 0.5.23 pins), then SGLang's rules, transcribed because its module
cannot be imported here (``sglang/srt/utils/hf_transformers/common.py::get_rope_config``
imports ``sglang.srt.configs``, which imports torchvision, whose registry build needs CUDA:
"operator torchvision::nms does not exist"); :func:`_model_file_call` cites each model file.

LongRoPE chooses short or long factors per call: long for every token when any position in
the call exceeds ``original_max_position_embeddings`` (``rope_variant.py``,
``torch.any(positions > k)``). A preset of sequence length ℓ is the prefill of a sequence
of ℓ tokens, whose last token (position ℓ - 1) is in the same forward: the adapter appends
that token to each call and drops its output.

Layout ``[tokens, heads·head_dim]`` (DeepSeek's MLA: ``[tokens, heads, d]``; M-RoPE:
positions ``[3, tokens]``); shape classes (``options["shape"]``): those of
:mod:`pespec.clients.engine_shapes`, and ``view`` and ``heads`` (:data:`_LAYOUTS`).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.engine_shapes import compiled, run_shape
from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["LONGROPE", "build", "build_mrope", "cpu_kernel_reason", "rotary_module"]

_PUBLISHED = Path(__file__).resolve().parent.parent / "rope" / "published"
_SOURCES = {
    "Llama-2-7B": "llama-2-7b-hf.json",
    "Llama-3.1-8B": "llama-3.1-8b.json",
    "Qwen2.5-7B-Instruct": "qwen2.5-7b-instruct.json",
    "gpt-oss-20b": "gpt-oss-20b.json",
    "DeepSeek-V3-interleaved-outputs": "deepseek-v3.json",
    "Phi-3.5-mini-instruct-seq-len-4096": "phi-3.5-mini-instruct.json",
    "Phi-3.5-mini-instruct-seq-len-131072": "phi-3.5-mini-instruct.json",
    "qwen2.5-vl-7b": "qwen2.5-vl-7b-instruct.json",
    "qwen3-vl-4b": "qwen3-vl-4b-instruct.json",
}
LONGROPE = {
    "Phi-3.5-mini-instruct-seq-len-4096": 4096,
    "Phi-3.5-mini-instruct-seq-len-131072": 131072,
}
"""LongRoPE presets and their sequence length ℓ."""


def _hf_config(preset: str) -> tuple[str, Any]:
    """(architecture, transformers' reading of ``preset``'s published config.json: the text
    config of a VLM)."""
    if preset not in _SOURCES:
        raise ValueError(f"config must be one of {', '.join(_SOURCES)} for SGLang; got {preset!r}")
    transformers = importlib.import_module("transformers")
    source = _PUBLISHED / _SOURCES[preset]
    folder = Path(tempfile.mkdtemp(prefix="pespec-sglang-"))
    try:
        shutil.copyfile(source, folder / "config.json")
        config = transformers.AutoConfig.from_pretrained(str(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    arch = str(json.loads(source.read_text(encoding="utf-8"))["architectures"][0])
    return arch, getattr(config, "text_config", config)


def _model_file_call(
    arch: str, config: Any, device: str = "cpu"
) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """(factory name, positional and keyword arguments) of the model file's ``get_rope``
    call, from SGLang 0.5.23's ``sglang/srt/models/*.py`` (``device``: the server's, which
    DeepSeek's file passes)."""
    params = dict(config.rope_parameters)
    theta = params.get("rope_theta", 10000)
    head_dim = getattr(config, "head_dim", None) or (
        config.hidden_size // config.num_attention_heads
    )
    max_position = config.max_position_embeddings
    if arch == "DeepseekV3ForCausalLM":  # deepseek_v2.py: DeepseekV2DecoderLayer, ...MLA
        scaling: dict[str, Any] | None = params if params.get("rope_type") != "default" else None
        if scaling:
            scaling["rope_type"] = "deepseek_yarn"
        d = config.qk_rope_head_dim
        neox = not getattr(config, "rope_interleave", True)
        kwargs = {"rotary_dim": d, "max_position": max_position, "base": theta}
        kwargs |= {"rope_scaling": scaling, "is_neox_style": neox, "device": device}
        return "get_rope_wrapper", (d,), kwargs
    kwargs = {"max_position": max_position, "base": theta, "rope_scaling": params}
    if arch in ("LlamaForCausalLM", "Phi3ForCausalLM"):  # llama.py: LlamaDecoderLayer
        original = getattr(config, "original_max_position_embeddings", None)
        if original:
            params["original_max_position_embeddings"] = original
        kwargs["is_neox_style"] = getattr(config, "rope_is_neox_style", True)
        rotary_dim = int(getattr(config, "partial_rotary_factor", 1) * head_dim)
        return "get_rope", (head_dim,), {"rotary_dim": rotary_dim, **kwargs}
    # qwen2.py (Qwen2.5, Qwen2.5-VL's text model), qwen3.py (Qwen3-VL's), gpt_oss.py:
    # get_rope(head_dim, rotary_dim=head_dim, max_position, base, rope_scaling)
    return "get_rope", (head_dim,), {"rotary_dim": head_dim, **kwargs}


def rotary_module(preset: str, dtype: str, device: str = "cpu") -> Any:
    """The rotary module SGLang's model file builds for ``preset`` under default dtype
    ``dtype`` on ``device`` (a GPU: SGLang's CUDA code, built under ``torch.device``, as its
    model loader builds a model)."""
    if device == "cpu":
        os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")  # before sglang is imported
    elif os.environ.get("SGLANG_USE_CPU_ENGINE", "0") not in ("", "0", "false"):
        raise ValueError(
            f"SGLang's {device} path: SGLANG_USE_CPU_ENGINE is set "
            f"({os.environ['SGLANG_USE_CPU_ENGINE']!r}), which selects its CPU code"
        )
    torch = importlib.import_module("torch")
    rotary = importlib.import_module("sglang.srt.layers.rotary_embedding")
    factory, args, kwargs = _model_file_call(*_hf_config(preset), device)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, dtype))
    try:
        with torch.device(device):
            return getattr(rotary, factory)(*args, **kwargs)
    finally:
        torch.set_default_dtype(previous)


def cpu_kernel_reason() -> str | None:
    """Why SGLang's ``forward_cpu`` would not reach ``torch.ops.sgl_kernel`` here, or None."""
    torch = importlib.import_module("torch")
    why = []
    if not torch.cpu._is_amx_tile_supported():
        why.append("this CPU has no AMX tiles (torch.cpu._is_amx_tile_supported() is False)")
    # a probe, not a dependency: sgl_kernel is SGLang's, and the registry's is a CUDA build
    spec = importlib.util.find_spec("sgl_kernel")
    if spec is None:
        why.append("sgl_kernel does not import (ModuleNotFoundError: No module named 'sgl_kernel')")
    else:
        try:
            importlib.import_module(spec.name)
        except Exception as error:
            why.append(f"sgl_kernel does not import ({type(error).__name__}: {error})")
    if not why:
        return None
    return (
        "forward_cpu calls torch.ops.sgl_kernel.rotary_embedding_cpu only when "
        "cpu_has_amx_support(); here it is forward_native (its own row): " + "; ".join(why)
    )


def _method(module: Any, path: str) -> Any:
    """The module's method for ``path`` (``forward_cpu`` refused where it is native)."""
    if path == "forward_cpu":
        why = cpu_kernel_reason()
        if why is not None:
            raise ValueError(why)
    if path == "forward_torch_compile" and not hasattr(module, path):
        return compiled(module.forward)  # LongRoPE: an nn.Module, compiled as SGLang would
    if not hasattr(module, path):  # LongRoPE's forward_cuda: none, its forward runs
        raise ValueError(
            f"SGLang's {type(module).__name__} has no {path} (its forward is what runs)"
        )
    return getattr(module, path)


_LAYOUTS = ("view", "heads")
"""Shape classes of one call on another query/key layout (as vLLM's rows): ``view``, query
and key non-contiguous column slices of a fused ``[n, 3·head_dim]`` qkv tensor; ``heads``,
query four heads ``[n, 4·head_dim]`` and key one (grouped-query attention), the last query
head returned."""


def _query_key(torch: Any, data: Any, shape: str, mla: bool) -> tuple[Any, Any]:
    """(query, key) of one call on ``data`` ``[n, d]`` in ``shape`` (MLA: ``[n, 1, d]``)."""
    n, d = data.shape
    if shape == "view":
        qkv = torch.zeros((n, 3 * d), dtype=data.dtype, device=data.device)
        qkv[:, :d], qkv[:, d : 2 * d] = data, data
        return qkv[:, :d], qkv[:, d : 2 * d]
    if shape == "heads":
        return data.repeat(1, 4), data.clone()
    query = data.clone()[:, None, :] if mla else data.clone()
    return query, query.clone()


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: SGLang's rotary module for ``config`` through ``options["path"]``
    in shape class ``options["shape"]``."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a published model)")
    torch = importlib.import_module("torch")
    device = client.device
    module = rotary_module(config, dtype, device)
    path = str(client.options.get("path", "forward_native"))
    method = _method(module, path)
    shape, work = str(client.options.get("shape", "tokens")), getattr(torch, dtype)
    last = LONGROPE.get(config)  # the prefill's last token, position ℓ - 1
    mla = type(module).__name__.startswith("Deepseek")  # q_pe [tokens, heads, d]

    def call(pos: Any, data: Any) -> Any:
        if last is not None:
            pos = torch.cat([pos, torch.tensor([last - 1], dtype=pos.dtype, device=pos.device)])
            data = torch.cat([data, data[-1:]])
        query, key = _query_key(torch, data, shape, mla)
        with torch.no_grad():
            out, _ = method(pos, query, key)
        out = out[:, -data.shape[1] :] if shape == "heads" else out.reshape(data.shape)
        return out if last is None else out[:-1]

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(device=device, dtype=work)
        pos = torch.from_numpy(np.asarray(positions)).to(device=device, dtype=torch.int64)
        return run_shape(call, data, pos, "tokens" if shape in _LAYOUTS else shape).cpu()

    return fn


def build_mrope(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter of family multiaxis-rope: SGLang's ``MRotaryEmbedding`` for the
    Qwen-VL ``config``; the backend takes (n, D) x and (n, 3) (t, h, w) positions, passed
    as SGLang's ``[3, n]``."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a multiaxis-rope preset)")
    torch = importlib.import_module("torch")
    device = client.device
    module = rotary_module(config, dtype, device)
    method = _method(module, str(client.options.get("path", "forward_native")))
    shape, work = str(client.options.get("shape", "tokens")), getattr(torch, dtype)

    def call(pos: Any, data: Any) -> Any:
        with torch.no_grad():
            out, _ = method(pos, data.clone(), data.clone())
        return out

    def backend(x: NDArray[Any], positions: NDArray[Any], chosen: Any) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(device=device, dtype=work)
        pos = torch.from_numpy(np.ascontiguousarray(np.asarray(positions).T))
        return run_shape(call, data, pos.to(device=device, dtype=torch.int64), shape, 1).cpu()

    return backend
