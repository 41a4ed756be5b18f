"""A port of transformers' Llama rotary module and ``apply_rotary_pos_emb`` in torch, with
the bugs of issue 20 that live in torch (a bfloat16 inv_freq buffer, bfloat16 positions);
the NumPy ports are in :mod:`pespec.rope.diagnosis.examples`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope import RopeConfig, frequencies

F64 = NDArray[np.float64]


def torch_backend(model_dtype: Any, *, module_cast: bool = False, positions_dtype: Any = None):  # type: ignore[no-untyped-def]
    """A port of transformers' Llama rotary module and ``apply_rotary_pos_emb``.

    inv_freq is computed in float32 from the certified ω' (the module's buffer);
    ``module_cast`` casts that buffer to ``model_dtype`` as ``module.to(model_dtype)`` does;
    positions go through ``positions_dtype`` (a bfloat16 ``arange``) before ``.float()``;
    the phase and cos/sin are float32, cast to the model dtype, the rotation in it.
    """
    import torch

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> Any:
        omegas, attention = frequencies(rope)
        inv_freq = torch.tensor(omegas, dtype=torch.float32)
        if module_cast:
            inv_freq = inv_freq.to(model_dtype)
        p = torch.from_numpy(positions)
        if positions_dtype is not None:
            p = p.to(positions_dtype)
        freqs = p[:, None].float() * inv_freq.float()[None, :]
        d_r = rope.d_r
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = (emb.cos() * attention).to(model_dtype)
        sin = (emb.sin() * attention).to(model_dtype)
        q = torch.from_numpy(x).to(model_dtype)
        rot, rest = q[:, :d_r], q[:, d_r:]
        half = torch.cat((-rot[:, d_r // 2 :], rot[:, : d_r // 2]), dim=-1)  # rotate_half
        return torch.cat(((rot * cos) + (half * sin), rest), dim=-1)

    return backend


def ntk_port(exponent: str = "d_r"):  # type: ignore[no-untyped-def]
    """A float32 NumPy port of static NTK as rotary-embedding-torch writes it.

    ``theta *= theta_rescale_factor ** (dim / (dim - 2))`` in Python floats, then
    ``1 / theta ** (arange(0, dim, 2) / dim)`` in float32, the phase, cos/sin and the rotation
    in float32 (rotary_embedding_torch.py, ``RotaryEmbedding.__init__``). ``exponent`` is the
    one parameter a wrong port gets wrong: ``"d_r"`` (correct), ``"none"`` (θ·s, diffusers'
    ``ntk_factor`` read as the NTK factor) or ``"head_dim"`` (the exponent over head_dim).
    """

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> Any:
        assert rope.factor is not None
        d_r = rope.d_r
        dim = {"d_r": d_r, "head_dim": rope.head_dim}.get(exponent)
        power = 1.0 if dim is None else dim / (dim - 2)
        theta = rope.theta * rope.factor**power
        return _float32_rotation(x, positions, rope, _float32_inv_freq(theta, d_r, d_r))

    return backend


def _float32_inv_freq(theta: float, count: int, denominator: int) -> NDArray[np.float32]:
    """1 / θ ** (arange(0, count, 2) / denominator), every step in float32 (torch's order)."""
    exponents = np.arange(0, count, 2, dtype=np.float32) / np.float32(denominator)
    return np.float32(1.0) / np.power(np.float32(theta), exponents)


def _float32_rotation(
    x: F64,
    positions: NDArray[np.int64],
    rope: RopeConfig,
    inv_freq: NDArray[np.float32],
    attention: float = 1.0,
) -> Any:
    """The phase p·ω', cos/sin (times A) and the rotation in float32 (rotate_pairs' layout)."""
    from pespec.rope.diagnosis.examples import rotate_pairs

    phase = positions.astype(np.float32)[:, None] * inv_freq[None, :]
    a = np.float32(attention)
    cos, sin = np.cos(phase) * a, np.sin(phase) * a
    return rotate_pairs(x.astype(np.float32), cos, sin, rope.d_r, rope.pairing, rope.output_layout)


def proportional_port(denominator: str = "d_r", extra_pairs: int = 0):  # type: ignore[no-untyped-def]
    """A float32 NumPy port of transformers' ``_compute_proportional_rope_parameters``.

    ``1 / θ ** (arange(0, 2k, 2) / head_dim)`` in float32 for the k rotated pairs, zeros for
    the rest, divided by ``factor``; the phase, cos/sin and ``rotate_half`` over the full head
    in float32. A wrong port: ``denominator="2k"`` (ω over the rotated width, as partial
    rotary), or ``extra_pairs`` more pairs rotated than k.
    """

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> Any:
        assert rope.rotated_pairs is not None
        k = rope.rotated_pairs + extra_pairs
        width = rope.d_r if denominator == "d_r" else 2 * k
        rotated = _float32_inv_freq(rope.theta, 2 * k, width)
        inv_freq = np.concatenate([rotated, np.zeros(rope.d_r // 2 - k, dtype=np.float32)])
        inv_freq = inv_freq / np.float32(1.0 if rope.factor is None else rope.factor)
        return _float32_rotation(x, positions, rope, inv_freq.astype(np.float32))

    return backend


def custom_port(order: str = "given"):  # type: ignore[no-untyped-def]
    """A float32 port handed the frequency list (ONNX ``RotaryEmbedding`` with its cos/sin
    cache built from it): ω cast to float32, the phase, cos/sin times A, the rotation in
    float32. A wrong port: ``order="reversed"`` (the list applied backwards)."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> Any:
        assert rope.omegas is not None
        given = rope.omegas if order == "given" else tuple(reversed(rope.omegas))
        inv_freq = np.asarray(given, dtype=np.float32)
        attention = 1.0 if rope.attention_factor is None else rope.attention_factor
        return _float32_rotation(x, positions, rope, inv_freq, attention)

    return backend


def _call_length(positions: NDArray[np.int64], rope: RopeConfig, mode: str) -> int:
    """ℓ as a model finds it: the call's largest position + 1 (``seq_len_rule="per-call"``),
    else the configuration's ``seq_len``; ``mode="fixed"`` keeps the configuration's context."""
    if mode == "fixed" or rope.seq_len_rule is None:
        return rope.seq_len or rope.context_length or 1
    return int(np.max(positions)) + 1 if positions.size else 1


def longrope_port(mode: str = "correct"):  # type: ignore[no-untyped-def]
    """A float32 NumPy port of LongRoPE as transformers' PhiMoE module runs it.

    ``1 / (ext_factors * base ** (arange(0, dim, 2) / dim))`` in float32 with the long factors
    once ℓ > L0 (``_compute_longrope_parameters``), A = long_mscale / short_mscale by the
    same test (``PhimoeRotaryEmbedding.forward``), else attention_factor or √(1 + ln s/ln L0).
    Wrong ports: ``"swap-mscale"`` (the other regime's mscale), ``"always-long"`` (the long
    factors and mscale at every ℓ), ``"fixed"`` (ℓ = the context, not the call's).
    """
    import math

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> Any:
        l0 = rope.original_max_position_embeddings
        assert l0 is not None and rope.short_factor and rope.long_factor
        long = mode == "always-long" or _call_length(positions, rope, mode) > l0
        factors = np.asarray(rope.long_factor if long else rope.short_factor, np.float32)
        exponents = np.arange(0, rope.d_r, 2, dtype=np.float32) / np.float32(rope.d_r)
        inv_freq = np.float32(1.0) / (factors * np.power(np.float32(rope.theta), exponents))
        if rope.short_mscale is not None and rope.long_mscale is not None:
            attention = rope.long_mscale if long != (mode == "swap-mscale") else rope.short_mscale
        elif rope.attention_factor is not None:
            attention = rope.attention_factor
        else:
            s = rope.factor or (rope.max_position_embeddings or l0) / l0
            attention = math.sqrt(1 + math.log(s) / math.log(l0)) if s > 1 else 1.0
        return _float32_rotation(x, positions, rope, inv_freq, attention)

    return backend


def dynamic_port(mode: str = "correct"):  # type: ignore[no-untyped-def]
    """A float32 NumPy port of transformers' dynamic NTK (``_compute_dynamic_ntk_parameters``):
    θ' = θ·(s·ℓ/L − (s − 1))^(d_r/(d_r − 2)) in Python floats once ℓ > L, then inv_freq, the
    phase and the rotation in float32. Wrong port: ``"fixed"`` (ℓ = the context, not the
    call's)."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> Any:
        s, big_l, d_r = rope.factor, rope.max_position_embeddings, rope.d_r
        assert s is not None and big_l is not None
        length = max(_call_length(positions, rope, mode), big_l)
        theta = rope.theta * (s * length / big_l - (s - 1)) ** (d_r / (d_r - 2))
        return _float32_rotation(x, positions, rope, _float32_inv_freq(theta, d_r, d_r))

    return backend
