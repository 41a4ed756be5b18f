"""The arguments llama.cpp passes to ``ggml_rope_ext`` for a model's ``config.json`` (issue 35).

llama.cpp reaches the rotary op in two steps: its converter (``convert_hf_to_gguf.py``) writes
GGUF keys and tensors from ``config.json``, and its loader and graph (``src/llama-model.cpp``,
``src/llama-context.cpp``, ``src/llama-graph.cpp``) turn them into the op's arguments. The
converter cannot run here without the model's weights, so both steps are transcribed below,
each line citing the file of ggml-org/llama.cpp it follows (facts, not code):

- ``rope_theta`` -> ``{arch}.rope.freq_base`` (``convert_hf_to_gguf.py``,
  ``TextModel.set_gguf_parameters``); the loader's ``rope_freq_base_train``.
- ``rope_scaling`` linear / yarn -> ``rope.scaling.type``, ``rope.scaling.factor``,
  ``rope.scaling.original_context_length``; loader: ``freq_scale = 1/factor``
  (``llama-model.cpp``, ``load_hparams``), ``ext_factor = 1`` for YaRN else 0,
  ``attn_factor = 1``, ``beta_fast = 32``, ``beta_slow = 1`` (``llama-context.cpp``, the
  context defaults ``yarn_*``; a config's ``beta_*`` and ``truncate`` are not read).
- ``rope_scaling`` llama3 -> no scaling keys; the tensor ``rope_freqs.weight`` of d_r/2
  factors (``LlamaModel.generate_extra_tensors``), passed as ``ggml_rope_ext``'s ``c``.
- Gemma 3's sliding-window layers: ``freq_base 10000, freq_scale 1`` hard-coded by the
  loader (``LLM_ARCH_GEMMA3`` in ``llama-model.cpp``).
- The mode: ``LLAMA_ROPE_TYPE_NORM`` (0, adjacent pairs) for ``llama``, whose converter
  permutes the q/k projection rows of each head (``LlamaModel.permute``: row ``h·d/2 + i``
  goes to ``2i + h``), so halves pairs of the HF layout become adjacent pairs;
  ``LLAMA_ROPE_TYPE_NEOX`` (2, halves) for ``qwen2``, ``gemma3``, ``gpt-oss``
  (``llama_model_rope_type`` in ``llama-model.cpp``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["MODE_NEOX", "MODE_NORMAL", "GgmlRopeArgs", "llama3_freq_factors", "rope_args"]

MODE_NORMAL = 0
MODE_NEOX = 2
_PUBLISHED = Path(__file__).resolve().parent.parent / "rope" / "published"
# Preset name -> (published config.json copy, layer kind) for the configurations ggml runs.
_SOURCES = {
    "Llama-2-7B": ("llama-2-7b-hf.json", None),
    "Llama-3.1-8B": ("llama-3.1-8b.json", None),
    "Qwen2.5-7B-Instruct": ("qwen2.5-7b-instruct.json", None),
    "gpt-oss-20b": ("gpt-oss-20b.json", None),
    "Gemma-3-4B global layers": ("gemma-3-4b-it.json", "global"),
    "Gemma-3-4B local layers": ("gemma-3-4b-it.json", "local"),
}
# architectures[0] -> (GGUF arch, rope mode, q/k rows permuted by the converter)
_ARCHS = {
    "LlamaForCausalLM": ("llama", MODE_NORMAL, True),
    "Qwen2ForCausalLM": ("qwen2", MODE_NEOX, False),
    "GptOssForCausalLM": ("gpt-oss", MODE_NEOX, False),
    "Gemma3ForConditionalGeneration": ("gemma3", MODE_NEOX, False),
}
# Defaults of the configuration classes for keys a file leaves out (transformers' config
# classes; llama.cpp's converter reads them through AutoConfig).
_DEFAULTS = {"llama": 10000.0, "qwen2": 10000.0, "gpt-oss": 10000.0, "gemma3": 1000000.0}
_GEMMA3_HEAD_DIM = 256  # Gemma3TextConfig's default head_dim (the file has none)


@dataclass(frozen=True)
class GgmlRopeArgs:
    """``ggml_rope_ext(ctx, a, pos, freq_factors, n_dims, mode, n_ctx_orig, freq_base,
    freq_scale, ext_factor, attn_factor, beta_fast, beta_slow)`` for one layer, plus
    ``head_dim`` and ``permuted`` (the converter's q/k row permutation, NORMAL mode)."""

    head_dim: int
    n_dims: int
    mode: int
    n_ctx_orig: int
    freq_base: float
    freq_scale: float
    ext_factor: float
    attn_factor: float
    beta_fast: float
    beta_slow: float
    freq_factors: tuple[float, ...] | None
    permuted: bool

    def describe(self) -> str:
        """The measured parameters, one line (the compare view's column)."""
        text = (
            f"mode={self.mode} n_dims={self.n_dims} base={self.freq_base:g} "
            f"freq_scale={self.freq_scale:g} ext={self.ext_factor:g} attn={self.attn_factor:g}"
        )
        if self.ext_factor:
            text += f" n_ctx_orig={self.n_ctx_orig} beta={self.beta_fast:g}/{self.beta_slow:g}"
        if self.freq_factors is not None:
            text += f" freq_factors[{len(self.freq_factors)}]"
        return text


def llama3_freq_factors(hf: dict[str, Any], head_dim: int, base: float) -> tuple[float, ...]:
    """``rope_freqs.weight`` as the converter writes it for ``rope_type`` llama3 (float32
    tensor; ``LlamaModel.generate_extra_tensors``): 1 above the high-frequency wavelength,
    ``factor`` below the low one, ``1/((1-s)/factor + s)`` between."""
    import numpy as np

    rs = hf["rope_scaling"]
    factor, lo = float(rs["factor"]), float(rs["low_freq_factor"])
    hi = float(rs["high_freq_factor"])
    old = float(rs["original_max_position_embeddings"])
    low_wavelen, high_wavelen = old / lo, old / hi
    freqs = 1.0 / (base ** (np.arange(0, head_dim, 2, dtype=np.float32) / head_dim))
    out = []
    for freq in freqs.tolist():
        wavelen = 2 * math.pi / freq
        if wavelen < high_wavelen:
            out.append(1.0)
        elif wavelen > low_wavelen:
            out.append(factor)
        else:
            smooth = (old / wavelen - lo) / (hi - lo)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return tuple(float(v) for v in np.asarray(out, dtype=np.float32))


def _hf_config(preset: str) -> tuple[dict[str, Any], str | None]:
    if preset not in _SOURCES:
        raise ValueError(
            f"config must be one of {', '.join(_SOURCES)} for llama.cpp's parameters; "
            f"got {preset!r}"
        )
    name, layer = _SOURCES[preset]
    data = json.loads((_PUBLISHED / name).read_text(encoding="utf-8"))
    return data, layer


def rope_args(preset: str) -> GgmlRopeArgs:
    """The ``ggml_rope_ext`` arguments llama.cpp uses for ``preset``'s published config.json
    (ValueError for a configuration not transcribed here)."""
    top, layer = _hf_config(preset)
    arch, mode, permuted = _ARCHS[top["architectures"][0]]
    hf = top.get("text_config", top)
    head_dim = int(hf.get("head_dim") or 0) or (
        _GEMMA3_HEAD_DIM if arch == "gemma3" else hf["hidden_size"] // hf["num_attention_heads"]
    )
    base = float(hf.get("rope_theta", _DEFAULTS[arch]))
    rs = hf.get("rope_scaling") or {}
    kind = rs.get("rope_type", rs.get("type"))
    n_ctx_train = int(hf.get("max_position_embeddings", 0))
    freq_scale, ext, factors, n_ctx_orig = 1.0, 0.0, None, n_ctx_train
    if layer == "local":  # LLM_ARCH_GEMMA3: rope_freq_base_train_swa = 10000, scale 1
        base = 10000.0
    elif kind == "linear":
        freq_scale = 1.0 / float(rs["factor"])
    elif kind == "yarn":
        freq_scale, ext = 1.0 / float(rs["factor"]), 1.0
        n_ctx_orig = int(rs.get("original_max_position_embeddings", n_ctx_train))
    elif kind == "llama3":
        factors = llama3_freq_factors(hf, head_dim, base)
    elif kind not in (None, "default"):
        raise ValueError(f"rope_type {kind!r} of {preset!r} is not transcribed for llama.cpp")
    return GgmlRopeArgs(
        head_dim=head_dim,
        n_dims=head_dim,
        mode=mode,
        n_ctx_orig=n_ctx_orig,
        freq_base=base,
        freq_scale=freq_scale,
        ext_factor=ext,
        attn_factor=1.0,
        beta_fast=32.0,
        beta_slow=1.0,
        freq_factors=factors,
        permuted=permuted,
    )
