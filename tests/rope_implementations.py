"""Rotary implementations for the suite's meta-tests: correct stacks and one-stage bugs.

Each is a rotary backend ``fn(x, positions, rope) -> array`` (SPEC §8.8). The correct ones
are written independently of pespec's built-ins (their own frequency code, or the real
library); the bugs are float32 pipelines with exactly one stage or parameter wrong, as in the
published reports cited in issue 17 and 20. Only ``numpy``/``ml_dtypes`` here; torch and the
libraries are imported inside the functions that need them.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from pespec.rope import PRESET_SOURCES, RopeConfig, frequencies

DATA = Path(__file__).parent.parent / "pespec" / "rope" / "published"
Fn = Callable[[np.ndarray, np.ndarray, RopeConfig], Any]


def _pairs(array: Any, rope: RopeConfig, output: bool) -> tuple[Any, Any]:
    d_r, half = rope.d_r, rope.d_r // 2
    if (rope.output_pairing if output else rope.input_pairing) == "interleaved":
        return array[..., 0:d_r:2], array[..., 1:d_r:2]
    return array[..., :half], array[..., half:d_r]


def pipeline32(
    omega: np.ndarray,
    attention: float,
    *,
    pairing: str | None = None,
    position_dtype: Any = np.float32,
    phase_dtype: Any = np.float32,
    out_dtype: Any = np.float32,
) -> Fn:
    """A NumPy pipeline: ω' given (rounded to the phase dtype), positions cast to
    ``position_dtype`` then the phase dtype, cos/sin × A in the phase dtype, the cache and the
    rotation in ``out_dtype``. ``pairing`` overrides the configuration's (a layout bug)."""

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> np.ndarray:
        layout = rope if pairing is None else dataclasses.replace(rope, pairing=pairing)
        w = omega.astype(phase_dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            p = positions.astype(position_dtype).astype(phase_dtype)
            phase = p[:, None] * w[None, :]
            a32 = np.asarray(attention, dtype=phase_dtype)
            cos = (np.cos(phase) * a32).astype(out_dtype)
            sin = (np.sin(phase) * a32).astype(out_dtype)
        xs = np.asarray(x).astype(out_dtype)
        out = xs.copy()
        a, b = _pairs(xs, layout, output=False)
        ya, yb = _pairs(out, layout, output=True)
        ya[...], yb[...] = a * cos - b * sin, a * sin + b * cos
        return out

    return fn


# ---------------------------------------------------------------------------------------------
# Correct stacks written independently of the built-ins


def meta_complex64(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
    """Meta's LLaMA reference style: ω = 1/θ^(arange(0, d, 2)/d) in float32 (default schedule),
    freqs_cis = polar(1, outer(t, ω)) in complex64, x viewed as complex pairs (interleaved)."""
    torch = importlib.import_module("torch")
    assert rope.rope_type == "default" and rope.pairing == "interleaved"
    d = rope.d_r
    freqs = 1.0 / (rope.theta ** (torch.arange(0, d, 2)[: d // 2].float() / d))
    t = torch.from_numpy(positions).float()
    cis = torch.polar(torch.ones(positions.shape[0], d // 2), torch.outer(t, freqs))
    xs = torch.from_numpy(np.ascontiguousarray(x[:, :d])).float()
    rotated = torch.view_as_real(torch.view_as_complex(xs.reshape(-1, d // 2, 2)) * cis)
    out = torch.from_numpy(x).float().clone()
    out[:, :d] = rotated.flatten(1)
    return out


def gptj_numpy(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> np.ndarray:
    """GPT-J style in float32 NumPy: a sin/cos table by einsum, rotate_every_two."""
    d = rope.d_r
    inv = 1.0 / (rope.theta ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))
    inv = inv.astype(np.float32)
    sinusoid = np.einsum("i,j->ij", positions.astype(np.float32), inv).astype(np.float32)
    sin = np.repeat(np.sin(sinusoid), 2, axis=1)
    cos = np.repeat(np.cos(sinusoid), 2, axis=1)
    rot = x[:, :d].astype(np.float32)
    every_two = np.stack((-rot[:, 1::2], rot[:, ::2]), axis=-1).reshape(rot.shape)
    out = x.astype(np.float32)
    out[:, :d] = rot * cos + every_two * sin
    return out


def halves_float64(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> np.ndarray:
    """The rotate_half formula in float64 NumPy, ω' from pespec's certified frequencies."""
    omega, attention = frequencies(rope)
    phase = positions.astype(np.float64)[:, None] * omega[None, :]
    cos, sin = np.cos(phase) * attention, np.sin(phase) * attention
    out = x.astype(np.float64).copy()
    a, b = _pairs(x, rope, output=False)
    ya, yb = _pairs(out, rope, output=True)
    ya[...], yb[...] = a * cos - b * sin, a * sin + b * cos
    return out


# ---------------------------------------------------------------------------------------------
# transformers' own modules


def hf_config(copy: str) -> Any:
    transformers = importlib.import_module("transformers")
    data = json.loads((DATA / copy).read_text(encoding="utf-8"))
    config = transformers.AutoConfig.for_model(**data)
    text = getattr(config, "text_config", None)
    return config if text is None else text


def transformers_backend(
    config: Any, dtype_name: str, layer_type: str | None = None, interleave: bool = False
) -> Fn:
    """transformers' rotary module (built in float32, as the model builds it) and its
    ``apply_rotary_pos_emb`` (or ``apply_rotary_pos_emb_interleave``) on x in ``dtype_name``."""
    torch = importlib.import_module("torch")
    model_type = config.model_type.removesuffix("_text")
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    rotary_class = next(
        getattr(module, a)
        for a in dir(module)
        if a.endswith("RotaryEmbedding") and not a.startswith("_")
    )
    rotary = rotary_class(config)
    apply = module.apply_rotary_pos_emb_interleave if interleave else module.apply_rotary_pos_emb
    dtype = getattr(torch, dtype_name)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        q = torch.from_numpy(x).to(dtype)[None, None]
        ids = torch.from_numpy(positions)[None]
        with torch.no_grad():
            cos, sin = rotary(q, ids, layer_type) if layer_type else rotary(q, ids)
            q_embed, _ = apply(q, q, cos, sin)
        return q_embed[0, 0]

    return fn


def transformers_for_preset(name: str, dtype_name: str) -> Fn:
    source = PRESET_SOURCES[name]
    config = hf_config(source.copy)
    interleave = name == "DeepSeek-V3"
    return transformers_backend(config, dtype_name, source.layer_type, interleave)


def transformers_longrope(name: str, dtype_name: str) -> Fn:
    """transformers' Phi-3 rotary module with ℓ forced: its inverse frequencies from
    ``ROPE_INIT_FUNCTIONS["longrope"]`` at the preset's ℓ, and its forward called without the
    ``dynamic_rope_update`` wrapper (which would pick ℓ from each call's positions)."""
    import inspect

    torch = importlib.import_module("torch")
    rope_utils = importlib.import_module("transformers.modeling_rope_utils")
    module = importlib.import_module("transformers.models.phi3.modeling_phi3")
    source = PRESET_SOURCES[name]
    config = hf_config(source.copy)
    rotary = module.Phi3RotaryEmbedding(config)
    inv_freq, attention = rope_utils.ROPE_INIT_FUNCTIONS["longrope"](
        config, None, seq_len=source.seq_len
    )
    rotary.inv_freq, rotary.attention_scaling = inv_freq, attention
    forward = inspect.unwrap(module.Phi3RotaryEmbedding.forward)
    dtype = getattr(torch, dtype_name)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        q = torch.from_numpy(x).to(dtype)[None, None]
        ids = torch.from_numpy(positions)[None]
        with torch.no_grad():
            cos, sin = forward(rotary, q, ids)
            return module.apply_rotary_pos_emb(q, q, cos, sin)[0][0, 0]

    return fn


def gptj_transformers(dtype_name: str) -> Fn:
    """transformers' GPT-J: create_sinusoidal_positions and apply_rotary_pos_emb."""
    torch = importlib.import_module("torch")
    gptj = importlib.import_module("transformers.models.gptj.modeling_gptj")
    dtype = getattr(torch, dtype_name)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        d = rope.d_r
        table = gptj.create_sinusoidal_positions(int(positions.max()) + 1, d)
        rows = table[torch.from_numpy(positions)]
        sin, cos = torch.split(rows[None], rows.shape[-1] // 2, dim=-1)
        k = torch.from_numpy(x).to(dtype)[None, :, None, :]  # (batch, seq, heads, head_dim)
        k_rot = gptj.apply_rotary_pos_emb(k[..., :d], sin, cos)
        return torch.cat([k_rot, k[..., d:]], dim=-1)[0, :, 0]

    return fn


def rotary_embedding_torch(dtype_name: str) -> Fn:
    """rotary-embedding-torch's RotaryEmbedding (interleaved pairs) at explicit positions."""
    torch = importlib.import_module("torch")
    ret = importlib.import_module("rotary_embedding_torch")
    dtype = getattr(torch, dtype_name)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        assert rope.pairing == "interleaved" and rope.rope_type == "default"
        module = ret.RotaryEmbedding(dim=rope.d_r, theta=rope.theta, cache_if_possible=False)
        t = torch.from_numpy(positions).float()
        freqs = module(t)
        xs = torch.from_numpy(x).to(dtype)
        with torch.no_grad():
            return ret.apply_rotary_emb(freqs, xs)

    return fn


def rotary_embedding_torch_xpos(
    dtype_name: str,
    *,
    gamma: float | None = None,
    scale_base: float | None = None,
    invert_key: bool = True,
) -> Fn:
    """rotary-embedding-torch's RotaryEmbedding(use_xpos=True) at explicit positions: its
    ``forward`` (freqs), ``get_scale`` (ζ^((t − len(t)//2)/b)), the key's ``scale ** -1`` and
    ``apply_rotary_emb(..., scale=...)``, as ``rotate_queries_and_keys`` does for
    t = 0..n − 1. ``gamma`` / ``scale_base`` / ``invert_key=False``: one parameter wrong (the
    module's ζ rebuilt with another γ, another b, the key scaled as a query)."""
    torch = importlib.import_module("torch")
    ret = importlib.import_module("rotary_embedding_torch")
    dtype = getattr(torch, dtype_name)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        assert rope.pairing == "interleaved" and rope.xpos_scale_base is not None
        module = ret.RotaryEmbedding(
            dim=rope.d_r,
            theta=rope.theta,
            use_xpos=True,
            xpos_scale_base=rope.xpos_scale_base if scale_base is None else scale_base,
            cache_if_possible=False,
        )
        if gamma is not None:  # the module's own formula with another constant
            dim = rope.d_r
            module.scale = (torch.arange(0, dim, 2) + gamma * dim) / ((1 + gamma) * dim)
        t = torch.from_numpy(positions).float()
        with torch.no_grad():
            freqs = module(t)
            scale = module.get_scale(t)
            if rope.xpos_role == "key" and invert_key:
                scale = scale**-1
            xs = torch.from_numpy(x).to(dtype)
            return ret.apply_rotary_emb(freqs, xs, scale=scale.to(dtype))

    return fn


# ---------------------------------------------------------------------------------------------
# One-stage bugs (issue 17's list)


def bug_bf16_inv_freq(rope: RopeConfig) -> Fn:
    omega, attention = frequencies(rope)
    return pipeline32(
        omega.astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float32), attention
    )


def bug_fp16_cache(rope: RopeConfig) -> Fn:
    omega, attention = frequencies(rope)
    return pipeline32(omega, attention, phase_dtype=np.float16, out_dtype=np.float16)


def bug_bf16_positions(rope: RopeConfig) -> Fn:
    omega, attention = frequencies(rope)
    return pipeline32(omega, attention, position_dtype=ml_dtypes.bfloat16)


def bug_schedule(wrong: RopeConfig) -> Fn:
    """The frequencies and A of ``wrong`` (a parameter read wrongly) under the right config."""
    omega, attention = frequencies(wrong)
    return pipeline32(omega, attention)


def bug_partial_over_head_dim(rope: RopeConfig) -> Fn:
    j = np.arange(rope.d_r // 2, dtype=np.float64)
    omega = rope.theta ** (-2 * j / rope.head_dim)
    return pipeline32(omega, 1.0)


def bug_pairing(rope: RopeConfig, pairing: str) -> Fn:
    omega, attention = frequencies(rope)
    return pipeline32(omega, attention, pairing=pairing)


def bug_deepseek_attention(rope: RopeConfig) -> Fn:
    omega, _ = frequencies(rope)
    assert rope.factor is not None
    return pipeline32(omega, 0.1 * math.log(rope.factor) + 1.0)
