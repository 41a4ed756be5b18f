"""vLLM's rotary embedding as vLLM serves it (issue 35): ``get_rope`` built from the model's
``config.json`` through vLLM's own config code, called through ``forward_native`` (torch) or
``forward_cpu`` (the C++ op ``_C.rotary_embedding``, in place).

The configuration is read by ``vllm.transformers_utils.config.get_config`` (which runs
``patch_rope_parameters``) on a folder holding the published ``config.json``; the ``get_rope``
call is the model file's (``vllm/model_executor/models/{llama,qwen2,gpt_oss,gemma3}.py``, the
``self.rotary_emb = get_rope(...)`` line), inside ``set_current_vllm_config(VllmConfig())``
and under the model's dtype as default dtype, as vLLM's loader builds a model
(``model_loader/base_loader.py``: ``set_default_torch_dtype(model_config.dtype)``): the
cos/sin cache is computed in float32 and stored in that dtype (bfloat16 rows), except where
the model file passes ``dtype`` (gpt-oss: float32).

Layout ``[tokens, heads·head_dim]``; shape classes (``options["shape"]``): ``tokens`` (query
and key contiguous ``[n, head_dim]``; prefill and multi-sequence decode are the same call in
vLLM's flattened batch), ``view`` (query and key non-contiguous column slices of a fused
``[n, 3·head_dim]`` qkv tensor, as ``qkv.split`` gives them; the C++ op writes in place).
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

from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["PATHS", "build", "rotary_module"]

PATHS = ("forward_native", "forward_cpu")
_PUBLISHED = Path(__file__).resolve().parent.parent / "rope" / "published"
_SOURCES = {  # preset -> (published copy, Gemma 3 layer type)
    "Llama-2-7B": ("llama-2-7b-hf.json", None),
    "Llama-3.1-8B": ("llama-3.1-8b.json", None),
    "Qwen2.5-7B-Instruct": ("qwen2.5-7b-instruct.json", None),
    "gpt-oss-20b": ("gpt-oss-20b.json", None),
    "Gemma-3-4B global layers": ("gemma-3-4b-it.json", "full_attention"),
    "Gemma-3-4B local layers": ("gemma-3-4b-it.json", "sliding_attention"),
}


def _vllm_config(preset: str) -> tuple[Any, str | None]:
    """vLLM's reading of ``preset``'s published config.json (the text config of a VLM)."""
    if preset not in _SOURCES:
        raise ValueError(f"config must be one of {', '.join(_SOURCES)} for vLLM; got {preset!r}")
    name, layer = _SOURCES[preset]
    config_module = importlib.import_module("vllm.transformers_utils.config")
    folder = Path(tempfile.mkdtemp(prefix="pespec-vllm-"))
    try:
        shutil.copyfile(_PUBLISHED / name, folder / "config.json")
        config = config_module.get_config(str(folder), trust_remote_code=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return getattr(config, "text_config", config), layer


def rotary_module(preset: str, dtype: str) -> Any:
    """The rotary module vLLM's model file builds for ``preset``, its default dtype ``dtype``."""
    torch = importlib.import_module("torch")
    rotary = importlib.import_module("vllm.model_executor.layers.rotary_embedding")
    vllm_config = importlib.import_module("vllm.config")
    config, layer = _vllm_config(preset)
    arch = json.loads((_PUBLISHED / _SOURCES[preset][0]).read_text())["architectures"][0]
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
        kwargs["dtype"] = torch.float32
    elif layer is not None:  # gemma3.py: config.rope_parameters[layer_type]
        params = params[layer]
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, dtype))
    try:
        with vllm_config.set_current_vllm_config(vllm_config.VllmConfig()):
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
    module = rotary_module(config, dtype)
    path, shape = str(client.options["path"]), str(client.options.get("shape", "tokens"))
    work = getattr(torch, dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        n, d = x.shape
        data = torch.from_numpy(np.asarray(x)).to(work)
        pos = torch.from_numpy(np.asarray(positions)).to(torch.int64)
        if shape == "view":
            qkv = torch.zeros((n, 3 * d), dtype=work)
            qkv[:, :d], qkv[:, d : 2 * d] = data, data
            query, key = qkv[:, :d], qkv[:, d : 2 * d]
        else:
            query, key = data.clone(), data.clone()
        with torch.no_grad():
            out, _ = getattr(module, path)(pos, query, key)
        if shape == "view" and path == "forward_cpu":
            return qkv[:, :d].clone()  # in place: read back from the fused buffer
        return out

    return fn
