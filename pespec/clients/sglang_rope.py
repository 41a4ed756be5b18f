"""SGLang's rotary embedding as SGLang serves it on CPU (issue 35): ``get_rope`` from
``sglang.srt.layers.rotary_embedding`` with the arguments SGLang's model files pass, called
through ``forward_native`` (torch).

SGLang selects its CPU code by ``SGLANG_USE_CPU_ENGINE=1`` (``sglang.srt.utils.is_cpu``);
without it ``RotaryEmbedding.__init__`` imports ``vllm._custom_ops``. The adapter sets it
before SGLang is imported. ``forward_cpu`` calls ``torch.ops.sgl_kernel`` (the CPU kernel
package, not installed: a CUDA-era build), so only ``forward_native`` is a row.

Configuration: transformers' ``AutoConfig`` on the published ``config.json`` (transformers
5.19.0, the version sglang 0.5.23 pins), then SGLang's rule, transcribed because its module
cannot be imported here (``sglang/srt/utils/hf_transformers/common.py::get_rope_config``
imports ``sglang.srt.configs``, which imports torchvision, whose registry build needs CUDA:
"operator torchvision::nms does not exist"): ``rope_theta = rope_parameters["rope_theta"]``,
``rope_scaling = rope_parameters`` (the whole dict, ``truncate`` included); the model files
(``models/llama.py``, ``qwen2.py``, ``gpt_oss.py``) pass ``get_rope(head_dim,
rotary_dim=head_dim, max_position=max_position_embeddings, base=rope_theta,
rope_scaling=rope_scaling)``, under the model dtype as default dtype (the cos/sin cache is
cast to it on CPU: ``base.py``).

Layout ``[tokens, heads·head_dim]``, shape class ``tokens`` (prefill and one-token decode of
several sequences, each at its own position, are this one flattened call).
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["build", "rotary_module"]

_PUBLISHED = Path(__file__).resolve().parent.parent / "rope" / "published"
_SOURCES = {
    "Llama-2-7B": "llama-2-7b-hf.json",
    "Llama-3.1-8B": "llama-3.1-8b.json",
    "Qwen2.5-7B-Instruct": "qwen2.5-7b-instruct.json",
    "gpt-oss-20b": "gpt-oss-20b.json",
}


def _hf_config(preset: str) -> Any:
    """transformers' reading of ``preset``'s published config.json."""
    if preset not in _SOURCES:
        raise ValueError(f"config must be one of {', '.join(_SOURCES)} for SGLang; got {preset!r}")
    transformers = importlib.import_module("transformers")
    folder = Path(tempfile.mkdtemp(prefix="pespec-sglang-"))
    try:
        shutil.copyfile(_PUBLISHED / _SOURCES[preset], folder / "config.json")
        config = transformers.AutoConfig.from_pretrained(str(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return getattr(config, "text_config", config)


def rotary_module(preset: str, dtype: str) -> Any:
    """The rotary module SGLang's model file builds for ``preset`` under default dtype ``dtype``."""
    os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")  # before sglang is imported
    torch = importlib.import_module("torch")
    rotary = importlib.import_module("sglang.srt.layers.rotary_embedding")
    config = _hf_config(preset)
    head_dim = getattr(config, "head_dim", None) or (
        config.hidden_size // config.num_attention_heads
    )
    scaling = config.rope_parameters  # get_rope_config: (rope_parameters["rope_theta"], it)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, dtype))
    try:
        return rotary.get_rope(
            head_dim,
            rotary_dim=head_dim,
            max_position=config.max_position_embeddings,
            base=scaling.get("rope_theta", 10000),
            rope_scaling=scaling,
        )
    finally:
        torch.set_default_dtype(previous)


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: SGLang's rotary module for ``config`` through ``forward_native``."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a published model)")
    torch = importlib.import_module("torch")
    module = rotary_module(config, dtype)
    work = getattr(torch, dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        data = torch.from_numpy(np.asarray(x)).to(work)
        pos = torch.from_numpy(np.asarray(positions)).to(torch.int64)
        with torch.no_grad():
            out, _ = module.forward_native(pos, data.clone(), data.clone())
        return out

    return fn
