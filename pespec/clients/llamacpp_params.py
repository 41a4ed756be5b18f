"""The arguments llama.cpp passes to ``ggml_rope_ext`` for a model's ``config.json`` (issue 35).

llama.cpp reaches the rotary op in two steps: its converter (``convert_hf_to_gguf.py`` and
``conversion/*.py``) writes GGUF keys and tensors from ``config.json``, and its loader and
graph (``src/llama-model.cpp``, ``src/llama-context.cpp``, ``src/models/*.cpp``) turn them into
the op's arguments. The converter cannot run here without the model's weights, so both steps
are transcribed below (facts, not code). Files and lines are those of llama.cpp as vendored in
llama-cpp-python 0.3.36 (``pip download llama-cpp-python==0.3.36 --no-binary :all:``,
``vendor/llama.cpp/``; a ``fetch`` of ggml-org/llama.cpp was refused, 1.47 GB):

- ``rope_theta`` -> ``{arch}.rope.freq_base`` (``conversion/base.py`` 1505-1506); the loader's
  ``rope_freq_base_train`` (``llama-model.cpp`` 1414-1415).
- ``rope_scaling`` linear / yarn -> ``rope.scaling.type``, ``.factor``,
  ``.original_context_length`` (``conversion/base.py`` 1461-1483); loader: ``freq_scale =
  1/factor``, type "linear" and factor 1 when the keys are absent (``llama-model.cpp``
  1410-1431); ``ext_factor = 1`` for YaRN else 0 (``llama-context.cpp`` 173-175);
  ``beta_fast 32``, ``beta_slow 1``: the hparams defaults (``llama-hparams.h`` 159-162; the
  converter's ``yarn_beta_*`` keys are read only by other architectures); no key for
  ``truncate``.
- YaRN's attention factor (``llama-context.cpp`` 177-214, float32): ``get_mscale(s, m) = 0.1
  m ln s + 1``; with ``rope_yarn_log_mul`` (DeepSeek: ``0.1·mscale_all_dim`` written by
  ``conversion/deepseek.py`` 382-386, divided by 0.1 again in ``models/deepseek2.cpp`` 34-38)
  ``get_mscale(s, 1)/get_mscale(s, log_mul)``, else ``get_mscale(s, 1)``; then times
  ``1/(1 + 0.1 ln s)`` (ggml's rope multiplies that back in when ``ext_factor != 0``) and times
  ``rope.scaling.attn_factor`` (default 1). DeepSeek's softmax scale ``mscale²``
  (``models/deepseek2.cpp`` 439-443) is outside the rotary op.
- ``rope_scaling`` llama3 -> no scaling keys; the tensor ``rope_freqs.weight`` of d_r/2
  factors (``LlamaModel.generate_extra_tensors``), passed as ``ggml_rope_ext``'s ``c``.
- LongRoPE (Phi-3): ``Phi3MiniModel`` (``conversion/phi.py`` 148-211) writes no scaling type
  (so freq_scale 1, ext_factor 0), ``rope.scaling.attn_factor = sqrt(1 + ln(L/L0)/ln L0)``
  and the float32 tensors ``rope_factors_long``/``rope_factors_short``; the graph passes one
  of them as ``c`` (``models/phi3.cpp`` 96-115) chosen by ``get_rope_factors``
  (``llama-model.cpp`` 2337-2350): long when the allocated context per sequence ``n_ctx_seq``
  (``n_ctx`` padded to 256, ``llama-context.cpp`` 289-296) exceeds ``n_ctx_orig_yarn`` (L0),
  short otherwise, whatever the sequence's length.
- Gemma 3's sliding-window layers: ``freq_base 10000, freq_scale 1`` hard-coded by the
  loader (``LLM_ARCH_GEMMA3`` in ``llama-model.cpp``).
- The mode (``llama_model_rope_type``, ``llama-model.cpp`` 3023-3127):
  ``LLAMA_ROPE_TYPE_NORM`` (0, adjacent pairs) for ``llama``, whose converter permutes the
  q/k projection rows of each head (``LlamaModel.permute``: row ``h·d/2 + i`` goes to
  ``2i + h``), so halves pairs of the HF layout become adjacent pairs, and for ``deepseek2``
  (no permutation: DeepSeek-V3's ``q_pe``/``k_pe`` rows are interleaved pairs already, and the
  output stays interleaved, the ``DeepSeek-V3-interleaved-outputs`` declaration);
  ``LLAMA_ROPE_TYPE_NEOX`` (2, halves) for ``qwen2``, ``gemma3``, ``gpt-oss``, ``phi3``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "LONGROPE_LENGTHS",
    "MODE_NEOX",
    "MODE_NORMAL",
    "GgmlRopeArgs",
    "llama3_freq_factors",
    "rope_args",
    "yarn_attn_factor",
]

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
    "DeepSeek-V3-interleaved-outputs": ("deepseek-v3.json", None),
    "Phi-3.5-mini-instruct-seq-len-4096": ("phi-3.5-mini-instruct.json", None),
    "Phi-3.5-mini-instruct-seq-len-131072": ("phi-3.5-mini-instruct.json", None),
}
LONGROPE_LENGTHS = {
    "Phi-3.5-mini-instruct-seq-len-4096": 4096,
    "Phi-3.5-mini-instruct-seq-len-131072": 131072,
}
"""LongRoPE presets and their sequence length ℓ: the ``n_ctx`` their rows allocate unless the
client says otherwise (llama.cpp chooses the factors by the allocated context)."""
# architectures[0] -> (GGUF arch, rope mode, q/k rows permuted by the converter)
_ARCHS = {
    "LlamaForCausalLM": ("llama", MODE_NORMAL, True),
    "Qwen2ForCausalLM": ("qwen2", MODE_NEOX, False),
    "GptOssForCausalLM": ("gpt-oss", MODE_NEOX, False),
    "Gemma3ForConditionalGeneration": ("gemma3", MODE_NEOX, False),
    "DeepseekV3ForCausalLM": ("deepseek2", MODE_NORMAL, False),
    "Phi3ForCausalLM": ("phi3", MODE_NEOX, False),
}
# Defaults of the configuration classes for keys a file leaves out (transformers' config
# classes; llama.cpp's converter reads them through AutoConfig).
_DEFAULTS = {
    "llama": 10000.0,
    "qwen2": 10000.0,
    "gpt-oss": 10000.0,
    "gemma3": 1000000.0,
    "deepseek2": 10000.0,
    "phi3": 10000.0,
}
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
    n_ctx: int | None = None

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
        if self.n_ctx is not None:
            which = "long" if self.n_ctx > self.n_ctx_orig else "short"
            text += f" n_ctx={self.n_ctx} ({which} factors at every position)"
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


def yarn_attn_factor(factor: float, mscale_all_dim: float | None) -> float:
    """The ``attn_factor`` llama.cpp passes for YaRN of scaling ``factor`` (float32, as
    ``llama-context.cpp`` 177-214 computes it): ``get_mscale(s, 1)/get_mscale(s, log_mul)``
    when the GGUF has ``yarn_log_multiplier`` (DeepSeek: ``0.1·mscale_all_dim`` written,
    divided by 0.1 on load), else ``get_mscale(s, 1)``; times ``1/(1 + 0.1 ln s)``, which
    ggml's rope multiplies back in."""
    import numpy as np

    f32 = np.float32
    scale = f32(1.0) / (f32(1.0) / f32(factor))  # 1/rope_freq_scale, both float32

    def get_mscale(m: Any) -> Any:
        return f32(1.0) if scale <= 1 else f32(0.1) * f32(m) * np.log(scale) + f32(1.0)

    if mscale_all_dim is None:
        attn = get_mscale(f32(1.0))
    else:
        log_mul = f32(f32(0.1 * mscale_all_dim) / f32(0.1))
        attn = get_mscale(f32(1.0)) / get_mscale(log_mul)
    return float(f32(attn) * (f32(1.0) / (f32(1.0) + f32(0.1) * np.log(scale))))


def _longrope(hf: dict[str, Any], top: dict[str, Any], n_ctx: int) -> tuple[Any, ...]:
    """(factors, attn_factor, n_ctx_orig) of Phi-3's LongRoPE in llama.cpp at context
    ``n_ctx``: long factors when ``n_ctx_seq`` (``n_ctx`` padded to 256) exceeds L0."""
    import numpy as np

    rs, length = hf["rope_scaling"], int(hf["max_position_embeddings"])
    orig = int(rs.get("original_max_position_embeddings", top["original_max_position_embeddings"]))
    scale = length / orig
    attn = math.sqrt(1 + math.log(scale) / math.log(orig)) if scale > 1.0 else 1.0
    n_ctx_seq = -(-n_ctx // 256) * 256
    chosen = rs["long_factor"] if n_ctx_seq > orig else rs["short_factor"]
    factors = tuple(float(v) for v in np.asarray(chosen, dtype=np.float32))
    return factors, float(np.float32(attn)), orig


def _head_dim(hf: dict[str, Any], arch: str) -> int:
    if arch == "deepseek2":  # the rotated part of MLA's heads (rope.dimension_count)
        return int(hf["qk_rope_head_dim"])
    return int(hf.get("head_dim") or 0) or (
        _GEMMA3_HEAD_DIM if arch == "gemma3" else hf["hidden_size"] // hf["num_attention_heads"]
    )


def rope_args(preset: str, n_ctx: int | None = None) -> GgmlRopeArgs:
    """The ``ggml_rope_ext`` arguments llama.cpp uses for ``preset``'s published config.json
    at allocated context ``n_ctx`` (LongRoPE only; default the preset's ℓ) (ValueError for a
    configuration not transcribed here)."""
    top, layer = _hf_config(preset)
    arch, mode, permuted = _ARCHS[top["architectures"][0]]
    hf = top.get("text_config", top)
    head_dim = _head_dim(hf, arch)
    base = float(hf.get("rope_theta", _DEFAULTS[arch]))
    rs = hf.get("rope_scaling") or {}
    kind = rs.get("rope_type", rs.get("type"))
    n_ctx_orig = int(hf.get("max_position_embeddings", 0))
    freq_scale, ext, attn, factors, served = 1.0, 0.0, 1.0, None, None
    if layer == "local":  # LLM_ARCH_GEMMA3: rope_freq_base_train_swa = 10000, scale 1
        base = 10000.0
    elif kind == "linear":
        freq_scale = 1.0 / float(rs["factor"])
    elif kind == "yarn":
        freq_scale, ext = 1.0 / float(rs["factor"]), 1.0
        n_ctx_orig = int(rs.get("original_max_position_embeddings", n_ctx_orig))
        mscale_all = rs.get("mscale_all_dim") if arch == "deepseek2" else None
        attn = yarn_attn_factor(float(rs["factor"]), mscale_all)
    elif kind == "llama3":
        factors = llama3_freq_factors(hf, head_dim, base)
    elif kind == "longrope":
        served = n_ctx if n_ctx is not None else LONGROPE_LENGTHS[preset]
        factors, attn, n_ctx_orig = _longrope(hf, top, served)
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
        attn_factor=attn,
        beta_fast=32.0,
        beta_slow=1.0,
        freq_factors=factors,
        permuted=permuted,
        n_ctx=served,
    )
