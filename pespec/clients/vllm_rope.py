"""vLLM's rotary embedding as vLLM serves it (issue 35): ``get_rope`` built from the model's
``config.json`` through vLLM's own config code, called through ``forward_native`` (torch) or
``forward_cpu`` (the C++ op ``_C.rotary_embedding``, in place), and on a GPU (clients with
``device="cuda"``, issue 35 item 5) through ``forward_cuda`` (the CUDA op
``_C.rotary_embedding``, in place; M-RoPE: ``triton_mrope``), the module built under
``torch.device("cuda")`` as vLLM's loader builds a model, tensors on the GPU.

The configuration is read by ``vllm.transformers_utils.config.get_config`` (which runs
``patch_rope_parameters``) on a folder holding the published ``config.json``; the ``get_rope``
call is the model file's (``vllm/model_executor/models/{llama,qwen2,gpt_oss,gemma3}.py``, the
``self.rotary_emb = get_rope(...)`` line), inside ``set_current_vllm_config(VllmConfig())``
and under the model's dtype as default dtype, as vLLM's loader builds a model
(``model_loader/base_loader.py``: ``set_default_torch_dtype(model_config.dtype)``): the
cos/sin cache is computed in float32 and stored in that dtype (bfloat16 rows), except where
the model file passes ``dtype`` (gpt-oss: float32).

LongRoPE (Phi-3.5) needs vLLM's ``ModelConfig``: ``Phi3LongRoPEScaledRotaryEmbedding`` takes
short or long factors for every position by ``max_model_len > original_max_position_embeddings``
(``phi3_long_rope_scaled_rope.py``), so its rows build ``ModelConfig(model=FOLDER,
max_model_len=ℓ)`` (ℓ the preset's sequence length, or the client's
``options["max_model_len"]``) and check positions below ℓ only (a served sequence never
passes ``max_model_len``). DeepSeek-V3's rope type is rewritten by its model file
(``deepseek_v2.py``: ``deepseek_yarn`` unless ``attention_factor`` is 1) and built with
``is_neox_style=False`` (interleaved pairs in and out). Qwen2.5-VL's and Qwen3-VL's text
models (``qwen2.py``, ``qwen3.py``) build ``MRotaryEmbedding`` from ``mrope_section`` (and
``mrope_interleaved``): :func:`build_mrope`, positions ``[3, tokens]``.

Layout ``[tokens, heads·head_dim]``; shape classes (``options["shape"]``): ``tokens`` (query
and key contiguous ``[n, head_dim]``; prefill, and the one-token decode of n sequences each at
its own position, are this same call in vLLM's flattened batch), ``view`` (query and key
non-contiguous column slices of a fused ``[n, 3·head_dim]`` qkv tensor, as ``qkv.split``
gives them; the C++ op writes in place), ``heads`` (query ``[n, 4·head_dim]``, four heads,
key one head, as grouped-query attention; the last query head returned), and ``offsets``
(decode steps of several sequences, each at its own position) and ``compiled``
(``torch.compile`` of the path) of :mod:`pespec.clients.engine_shapes`. DeepSeek's MLA
passes ``[n, heads, d]`` (its ``forward_static`` broadcasts cos/sin as ``[n, 1, d]``).
"""

from __future__ import annotations

import importlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.engine_shapes import SHAPES, compiled, run_shape
from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["LONGROPE", "PATHS", "build", "build_mrope", "rotary_module"]

PATHS = ("forward_native", "forward_cpu", "forward", "forward_cuda")
_PUBLISHED = Path(__file__).resolve().parent.parent / "rope" / "published"
_SOURCES = {  # preset -> (published copy, Gemma 3 layer type)
    "Llama-2-7B": ("llama-2-7b-hf.json", None),
    "Llama-3.1-8B": ("llama-3.1-8b.json", None),
    "Qwen2.5-7B-Instruct": ("qwen2.5-7b-instruct.json", None),
    "gpt-oss-20b": ("gpt-oss-20b.json", None),
    "Gemma-3-4B global layers": ("gemma-3-4b-it.json", "full_attention"),
    "Gemma-3-4B local layers": ("gemma-3-4b-it.json", "sliding_attention"),
    "DeepSeek-V3-interleaved-outputs": ("deepseek-v3.json", None),
    "Phi-3.5-mini-instruct-seq-len-4096": ("phi-3.5-mini-instruct.json", None),
    "Phi-3.5-mini-instruct-seq-len-131072": ("phi-3.5-mini-instruct.json", None),
    "qwen2.5-vl-7b": ("qwen2.5-vl-7b-instruct.json", None),
    "qwen3-vl-4b": ("qwen3-vl-4b-instruct.json", None),
}
LONGROPE = {
    "Phi-3.5-mini-instruct-seq-len-4096": 4096,
    "Phi-3.5-mini-instruct-seq-len-131072": 131072,
}
"""LongRoPE presets and their sequence length ℓ: the ``max_model_len`` their rows serve at."""


def _vllm_config(preset: str, max_model_len: int | None) -> tuple[Any, Any, str | None]:
    """vLLM's reading of ``preset``'s published config.json (the text config of a VLM), the
    ``VllmConfig`` to build its rotary module under, and its Gemma 3 layer type."""
    if preset not in _SOURCES:
        raise ValueError(f"config must be one of {', '.join(_SOURCES)} for vLLM; got {preset!r}")
    name, layer = _SOURCES[preset]
    config_module = importlib.import_module("vllm.transformers_utils.config")
    vllm_config = importlib.import_module("vllm.config")
    folder = Path(tempfile.mkdtemp(prefix="pespec-vllm-"))
    try:
        shutil.copyfile(_PUBLISHED / name, folder / "config.json")
        if max_model_len is None:
            config = config_module.get_config(str(folder), trust_remote_code=False)
            return getattr(config, "text_config", config), vllm_config.VllmConfig(), layer
        model = vllm_config.ModelConfig(  # LongRoPE reads max_model_len from here
            model=str(folder),
            tokenizer=str(folder),
            skip_tokenizer_init=True,
            max_model_len=max_model_len,
        )
        return model.hf_text_config, vllm_config.VllmConfig(model_config=model), layer
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _model_file_call(arch: str, config: Any, layer: str | None) -> tuple[int, Any, dict[str, Any]]:
    """(head size, rope_parameters, other keyword arguments) of the model file's ``get_rope``."""
    head_dim = getattr(config, "head_dim", None) or (
        config.hidden_size // config.num_attention_heads
    )
    params = config.rope_parameters
    kwargs: dict[str, Any] = {"is_neox_style": True}
    if arch == "GptOssForCausalLM":  # gpt_oss.py: its own dict, dtype float32
        keys = ("rope_theta", "factor", "original_max_position_embeddings", "beta_fast")
        params = {k: params[k] for k in (*keys, "beta_slow")} | {
            "rope_type": "yarn",
            "truncate": params.get("truncate", True),
        }
        kwargs["dtype"] = importlib.import_module("torch").float32
    elif arch == "DeepseekV3ForCausalLM":  # deepseek_v2.py, DeepseekV2MLAAttention.__init__
        head_dim, params = config.qk_rope_head_dim, dict(params)
        if params["rope_type"] != "default":
            yarn = params.get("attention_factor") != 1.0
            params["rope_type"] = "deepseek_yarn" if yarn else "deepseek_llama_scaling"
        kwargs["is_neox_style"] = False
    elif layer is not None:  # gemma3.py: config.rope_parameters[layer_type]
        params = params[layer]
    return head_dim, params, kwargs


def rotary_module(
    preset: str, dtype: str, max_model_len: int | None = None, device: str = "cpu"
) -> Any:
    """The rotary module vLLM's model file builds for ``preset``, its default dtype ``dtype``
    (LongRoPE: served at ``max_model_len``, by default the preset's ℓ), on ``device`` (vLLM's
    loader builds the model under ``torch.device(device)``: on a GPU the cos/sin cache is
    computed there)."""
    torch = importlib.import_module("torch")
    rotary = importlib.import_module("vllm.model_executor.layers.rotary_embedding")
    vllm_config = importlib.import_module("vllm.config")
    if preset in LONGROPE and max_model_len is None:
        max_model_len = LONGROPE[preset]
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, dtype))
    try:
        config, serving, layer = _vllm_config(preset, max_model_len)
        arch = json.loads((_PUBLISHED / _SOURCES[preset][0]).read_text())["architectures"][0]
        head_dim, params, kwargs = _model_file_call(arch, config, layer)
        with vllm_config.set_current_vllm_config(serving), torch.device(device):
            return rotary.get_rope(
                head_dim,
                max_position=config.max_position_embeddings,
                rope_parameters=params,
                **kwargs,
            )
    finally:
        torch.set_default_dtype(previous)


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: vLLM's rotary module for ``config`` through the client's path
    (``options["path"]``) in shape class ``options["shape"]``."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a published model)")
    torch = importlib.import_module("torch")
    served, device = client.options.get("max_model_len"), client.device
    module = rotary_module(config, dtype, None if served is None else int(str(served)), device)
    path, shape = str(client.options["path"]), str(client.options.get("shape", "tokens"))
    work = getattr(torch, dtype)
    if not hasattr(module, path):  # LongRoPE: an nn.Module, no CustomOp paths
        raise ValueError(
            f"client {client.name}: vLLM's {type(module).__name__} for --config {config!r} "
            f"has no {path} (its forward is what vLLM runs on every device)"
        )
    if shape in SHAPES:  # tokens, offsets, compiled (engine_shapes)
        return _shaped(module, path, shape, work, device)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        return _layouts(module, path, shape, x, positions, work, device).cpu()

    return fn


def _layouts(
    module: Any, path: str, shape: str, x: NDArray[Any], positions: Any, work: Any, device: str
) -> Any:
    """``module``'s ``path`` on ``x`` in shape class ``view`` or ``heads`` (on ``device``)."""
    torch = importlib.import_module("torch")
    n, d = x.shape
    data = torch.from_numpy(np.asarray(x)).to(device=device, dtype=work)
    pos = torch.from_numpy(np.asarray(positions)).to(device=device, dtype=torch.int64)
    if shape == "heads":  # four query heads, one key head (grouped-query attention)
        with torch.no_grad():
            out, _ = getattr(module, path)(pos, data.repeat(1, 4), data.clone())
        return out[:, 3 * d :]
    if shape == "view":
        qkv = torch.zeros((n, 3 * d), dtype=work, device=device)
        qkv[:, :d], qkv[:, d : 2 * d] = data, data
        query, key = qkv[:, :d], qkv[:, d : 2 * d]
    elif type(module).__name__.startswith("Deepseek"):  # MLA: q_pe [tokens, heads, d]
        query, key = data.clone()[:, None, :], data.clone()[:, None, :]
    else:
        query, key = data.clone(), data.clone()
    with torch.no_grad():
        out, _ = getattr(module, path)(pos, query, key)
    if out.dim() == 3:
        return out[:, 0, :]
    if shape == "view" and path in ("forward_cpu", "forward_cuda"):
        return qkv[:, :d].clone()  # in place: read back from the fused buffer
    return out


def _shaped(module: Any, path: str, shape: str, work: Any, device: str = "cpu") -> Any:
    """The backend of ``module``'s ``path`` on contiguous ``[tokens, d]`` query and key (MLA:
    ``[tokens, 1, d]``) in an :mod:`engine_shapes` class."""
    torch = importlib.import_module("torch")
    method = getattr(module, path)
    method = compiled(method) if shape == "compiled" else method
    mla = type(module).__name__.startswith("Deepseek")

    def call(pos: Any, data: Any) -> Any:
        query = data.clone()[:, None, :] if mla else data.clone()
        with torch.no_grad():
            out, _ = method(pos, query, query.clone())
        return out.reshape(data.shape)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(device=device, dtype=work)
        pos = torch.from_numpy(np.asarray(positions)).to(device=device, dtype=torch.int64)
        return run_shape(call, data, pos, shape).cpu()

    return fn


def build_mrope(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter of family multiaxis-rope: vLLM's ``MRotaryEmbedding`` for the
    Qwen-VL ``config`` through ``options["path"]``; the backend takes (n, D) x and (n, 3)
    (t, h, w) positions, passed as vLLM's ``[3, n]``."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a multiaxis-rope preset)")
    torch = importlib.import_module("torch")
    device = client.device
    module = rotary_module(config, dtype, device=device)
    path, work = str(client.options["path"]), getattr(torch, dtype)
    shape = str(client.options.get("shape", "tokens"))
    method = compiled(getattr(module, path)) if shape == "compiled" else getattr(module, path)

    def call(pos: Any, data: Any) -> Any:
        with torch.no_grad():
            out, _ = method(pos, data.clone(), data.clone())
        return out

    def backend(x: NDArray[Any], positions: NDArray[Any], chosen: Any) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(device=device, dtype=work)
        pos = torch.from_numpy(np.ascontiguousarray(np.asarray(positions).T))
        return run_shape(call, data, pos.to(device=device, dtype=torch.int64), shape, 1).cpu()

    return backend
