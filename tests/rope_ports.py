"""Faithful NumPy ports of rotary implementations, correct and buggy, for the diagnosis tests.

Each port computes what a real stack computes (its inverse frequencies, positions, phase,
cos/sin table and rotation in the stated dtypes), written from the published code's
formulas (transformers' ``rotate_half`` layout, its YaRN/dynamic-NTK schedules); the
correct ones take ω' from the certified oracle, so the only error is the stack's own.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope import RopeConfig, frequencies

F64 = NDArray[np.float64]


def rotate_pairs(x: NDArray[Any], cos: NDArray[Any], sin: NDArray[Any], d_r: int,
                 pairing: str) -> NDArray[Any]:
    """y = (a cos − b sin, a sin + b cos) per pair, in x's dtype; cos, sin (n, d_r/2)."""
    half = d_r // 2
    y = x.copy()
    if pairing == "halves":
        a, b = x[:, :half], x[:, half:d_r]
    else:
        a, b = x[:, 0:d_r:2], x[:, 1:d_r:2]
    ya, yb = a * cos - b * sin, a * sin + b * cos
    if pairing == "interleaved":
        y[:, 0:d_r:2], y[:, 1:d_r:2] = ya, yb
    else:
        y[:, :half], y[:, half:d_r] = ya, yb
    return y


def numpy_backend(dtype: type, *, pairing: str | None = None):  # type: ignore[no-untyped-def]
    """A correct NumPy stack: everything in ``dtype`` (ω' correctly rounded to it)."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> NDArray[Any]:
        omegas, attention = frequencies(rope)
        phase = positions.astype(dtype)[:, None] * omegas.astype(dtype)[None, :]
        cos, sin = np.cos(phase) * dtype(attention), np.sin(phase) * dtype(attention)
        return rotate_pairs(x.astype(dtype), cos, sin, rope.d_r, pairing or rope.pairing)

    return backend


def table_backend(omegas: F64, attention: float, pairing: str | None = None):  # type: ignore[no-untyped-def]
    """A float32 stack with given float64 frequencies and attention factor (a port's slip)."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> NDArray[Any]:
        phase = positions.astype(np.float32)[:, None] * omegas.astype(np.float32)[None, :]
        a = np.float32(attention)
        return rotate_pairs(x.astype(np.float32), np.cos(phase) * a, np.sin(phase) * a,
                            rope.d_r, pairing or rope.pairing)

    return backend


def yarn_port(rope: RopeConfig, truncate: bool) -> tuple[F64, float]:
    """transformers-style YaRN frequencies in float64 with ``truncate`` as given."""
    assert rope.factor is not None and rope.original_max_position_embeddings is not None
    assert rope.beta_fast is not None and rope.beta_slow is not None
    d, base, s = rope.d_r, rope.theta, rope.factor
    l0 = rope.original_max_position_embeddings

    def dim(beta: float) -> float:
        return (d * math.log(l0 / (beta * 2 * math.pi))) / (2 * math.log(base))

    low, high = dim(rope.beta_fast), dim(rope.beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    pos_freqs = base ** (np.arange(0, d, 2) / d)
    extra, inter = 1.0 / pos_freqs, 1.0 / (s * pos_freqs)
    omegas = inter * ramp + extra * (1 - ramp)  # ramp 1 for slow pairs: interpolation
    return omegas, 0.1 * math.log(s) + 1.0


def dynamic_port(rope: RopeConfig, seq_len: int) -> F64:
    """Dynamic NTK frequencies built at ``seq_len`` (float64, transformers' formula)."""
    assert rope.factor is not None and rope.max_position_embeddings is not None
    d, s, big_l = rope.d_r, rope.factor, rope.max_position_embeddings
    base = rope.theta
    if seq_len > big_l:
        base = base * ((s * seq_len / big_l) - (s - 1)) ** (d / (d - 2))
    omegas: F64 = 1.0 / base ** (np.arange(0, d, 2) / d)
    return omegas


def fp16_cache_backend(max_positions: int = 1 << 20):  # type: ignore[no-untyped-def]
    """A cos/sin cache built in float16 (arange, inv_freq and the product in float16),
    applied in float32: positions beyond 65504 are inf, their cos/sin NaN."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> NDArray[Any]:
        d = rope.d_r
        inv_freq = (1.0 / rope.theta ** (np.arange(0, d, 2) / d)).astype(np.float16)
        with np.errstate(over="ignore", invalid="ignore"):
            t = np.arange(max_positions, dtype=np.float16)
            freqs = np.outer(t, inv_freq).astype(np.float16)
            cos, sin = np.cos(freqs), np.sin(freqs)  # float16 cache
            c, s = cos[positions].astype(np.float32), sin[positions].astype(np.float32)
            return rotate_pairs(x.astype(np.float32), c, s, d, rope.pairing)

    return backend


def torch_backend(model_dtype: Any, *, module_cast: bool = False,
                  positions_dtype: Any = None):  # type: ignore[no-untyped-def]
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
        half = torch.cat((-rot[:, d_r // 2:], rot[:, : d_r // 2]), dim=-1)  # rotate_half
        return torch.cat(((rot * cos) + (half * sin), rest), dim=-1)

    return backend


def fast_math_backend():  # type: ignore[no-untyped-def]
    """float32 cos/sin after a cheap range reduction by 2π rounded to float16 (6.28125),
    as a fast-math intrinsic does: exact for |φ| ≤ π, the error growing with |φ| beyond."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> NDArray[Any]:
        omegas, _ = frequencies(rope)
        phase = positions.astype(np.float32)[:, None] * omegas.astype(np.float32)[None, :]
        two_pi = np.float32(np.float16(2 * math.pi))
        reduced = phase - two_pi * np.round(phase / two_pi)
        return rotate_pairs(x.astype(np.float32), np.cos(reduced), np.sin(reduced), rope.d_r,
                            rope.pairing)

    return backend
