"""NumPy reproductions of real rotary bugs and correct stacks (SPEC Annex D.8, informative).

Each builder returns a rotary backend ``backend(x, positions, rope)`` that computes what a
real stack computes: its inverse frequencies, positions, phase, cos/sin table and rotation
in the stated dtypes, written from the published code's formulas (transformers'
``rotate_half`` layout, its YaRN and dynamic-NTK schedules). The correct ones take ω' from
the certified oracle, so their only error is the stack's own precision. The test suite
diagnoses each of them, and :func:`pespec.specblocks.diagnosis.rope_bugs_table` writes the
guide's table of what the diagnosis says for each bug.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig, pair_layouts
from pespec.rope.diagnosis.formats import round_to
from pespec.rope.schedules import frequencies

F64 = NDArray[np.float64]
Backend = Callable[[F64, NDArray[np.int64], RopeConfig], NDArray[Any]]


def rotate_pairs(
    x: NDArray[Any],
    cos: NDArray[Any],
    sin: NDArray[Any],
    d_r: int,
    pairing: str,
    output_layout: str | None = None,
) -> NDArray[Any]:
    """y = (a cos − b sin, a sin + b cos) per pair, in x's dtype; cos, sin (n, d_r/2);
    read by ``pairing``, written as ``output_layout`` (None: as the pairing implies)."""
    half = d_r // 2
    read, write = pair_layouts(pairing, output_layout)
    y: NDArray[Any] = x.copy()
    if read == "halves":
        a, b = x[:, :half], x[:, half:d_r]
    else:
        a, b = x[:, 0:d_r:2], x[:, 1:d_r:2]
    ya, yb = a * cos - b * sin, a * sin + b * cos
    if write == "interleaved":
        y[:, 0:d_r:2], y[:, 1:d_r:2] = ya, yb
    else:
        y[:, :half], y[:, half:d_r] = ya, yb
    return y


def numpy_backend(dtype: type, *, pairing: str | None = None) -> Backend:
    """A correct NumPy stack: everything in ``dtype`` (ω' correctly rounded to it)."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> NDArray[Any]:
        omegas, attention = frequencies(rope)
        phase: NDArray[Any] = positions.astype(dtype)[:, None] * omegas.astype(dtype)[None, :]
        cos, sin = np.cos(phase) * dtype(attention), np.sin(phase) * dtype(attention)
        layout = (pairing, None) if pairing else (rope.pairing, rope.output_layout)
        return rotate_pairs(x.astype(dtype), cos, sin, rope.d_r, *layout)

    return backend


def table_backend(omegas: F64, attention: float, pairing: str | None = None) -> Backend:
    """A float32 stack with given float64 frequencies and attention factor (a port's slip)."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> NDArray[Any]:
        phase = positions.astype(np.float32)[:, None] * omegas.astype(np.float32)[None, :]
        a = np.float32(attention)
        return rotate_pairs(
            x.astype(np.float32),
            np.cos(phase) * a,
            np.sin(phase) * a,
            rope.d_r,
            *((pairing, None) if pairing else (rope.pairing, rope.output_layout)),
        )

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


def fp16_cache_backend(max_positions: int = 1 << 20) -> Backend:
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
            return rotate_pairs(x.astype(np.float32), c, s, d, rope.pairing, rope.output_layout)

    return backend


def fast_math_backend() -> Backend:
    """float32 cos/sin after a cheap range reduction by 2π rounded to float16 (6.28125),
    as a fast-math intrinsic does: exact for |φ| ≤ π, the error growing with |φ| beyond."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> NDArray[Any]:
        omegas, _ = frequencies(rope)
        phase = positions.astype(np.float32)[:, None] * omegas.astype(np.float32)[None, :]
        two_pi = np.float32(np.float16(2 * math.pi))
        reduced = phase - two_pi * np.round(phase / two_pi)
        return rotate_pairs(
            x.astype(np.float32),
            np.cos(reduced),
            np.sin(reduced),
            rope.d_r,
            rope.pairing,
            rope.output_layout,
        )

    return backend


def bfloat16_stack(*, inv_freq_bf16: bool = False, positions_bf16: bool = False) -> Backend:
    """transformers' stack in a bfloat16 model, in NumPy: float32 phase, cos/sin cast to
    bfloat16, rotation in bfloat16 (each product and sum rounded, as torch does);
    ``inv_freq_bf16``: the inverse-frequency buffer cast by ``module.to(torch.bfloat16)``;
    ``positions_bf16``: position ids made by an ``arange`` under a bfloat16 default dtype.
    Returns float32 arrays holding bfloat16 values."""

    def backend(x: F64, positions: NDArray[np.int64], rope: RopeConfig) -> NDArray[Any]:
        omegas, attention = frequencies(rope)
        inv_freq = omegas.astype(np.float32)
        if inv_freq_bf16:
            inv_freq = round_to(inv_freq.astype(np.float64), "bfloat16").astype(np.float32)
        p = positions.astype(np.float64)
        if positions_bf16:
            p = round_to(p, "bfloat16")
        phase = p.astype(np.float32)[:, None] * inv_freq[None, :]
        cos = round_to((np.cos(phase) * np.float32(attention)).astype(np.float64), "bfloat16")
        sin = round_to((np.sin(phase) * np.float32(attention)).astype(np.float64), "bfloat16")
        q = round_to(x, "bfloat16")
        half = rope.d_r // 2
        out = q.copy()
        halves = (slice(0, half), slice(half, rope.d_r))
        interleaved = (slice(0, rope.d_r, 2), slice(1, rope.d_r, 2))
        read = halves if rope.input_pairing == "halves" else interleaved
        slots = halves if rope.output_pairing == "halves" else interleaved
        a, b = q[:, read[0]], q[:, read[1]]

        def bf(values: F64) -> F64:
            return round_to(values, "bfloat16")

        out[:, slots[0]] = bf(bf(a * cos) - bf(b * sin))
        out[:, slots[1]] = bf(bf(a * sin) + bf(b * cos))
        result: NDArray[np.float32] = out.astype(np.float32)
        return result

    return backend


def _neox() -> RopeConfig:
    return RopeConfig(head_dim=96, rotary_dim=24, theta=10000.0)


def _dynamic() -> RopeConfig:
    return RopeConfig(
        head_dim=128,
        theta=10000.0,
        rope_type="dynamic",
        factor=4.0,
        max_position_embeddings=4096,
        seq_len=4096,
    )


def bugs() -> list[tuple[str, str, RopeConfig, Backend]]:
    """(bug, configuration, config, backend) for each bug of the guide's table."""
    from pespec.rope.presets import PRESETS

    llama, oss, deepseek = PRESETS["Llama-3.1-8B"], PRESETS["gpt-oss-20b"], PRESETS["DeepSeek-V3"]
    ds_omegas, _ = frequencies(deepseek)
    assert deepseek.factor is not None
    neox, dynamic = _neox(), _dynamic()
    return [
        (
            "inv_freq buffer cast to bfloat16 by module.to(torch.bfloat16)",
            "Llama-3.1-8B",
            llama,
            bfloat16_stack(inv_freq_bf16=True),
        ),
        (
            "cos/sin cache built in float16 (arange, inv_freq, product)",
            "default, θ = 1e6",
            RopeConfig(head_dim=128, theta=1e6),
            fp16_cache_backend(1 << 17),
        ),
        (
            "positions handed over as bfloat16 (bfloat16 model)",
            "Llama-3.1-8B",
            llama,
            bfloat16_stack(positions_bf16=True),
        ),
        (
            "YaRN truncate ignored",
            "gpt-oss-20b (truncate false)",
            oss,
            table_backend(*yarn_port(oss, truncate=True)),
        ),
        (
            "dynamic NTK collapsed to ℓ = s·L",
            "dynamic, s 4, L 4096, ℓ 4096",
            dynamic,
            table_backend(dynamic_port(dynamic, 16384), 1.0),
        ),
        (
            "partial rotary with ω over head_dim",
            "GPT-NeoX style, d_r 24 of 96",
            neox,
            table_backend(1.0 / 10000.0 ** (np.arange(0, 24, 2) / 96), 1.0),
        ),
        (
            "halves and interleaved swapped",
            "Llama-3.1-8B",
            llama,
            numpy_backend(np.float32, pairing="interleaved"),
        ),
        (
            "DeepSeek attention factor as 0.1·ln s + 1",
            "DeepSeek-V3",
            deepseek,
            table_backend(ds_omegas, 0.1 * math.log(deepseek.factor) + 1.0),
        ),
        (
            "fast-math sine (range reduction by 2π in float16)",
            "Llama-3.1-8B",
            llama,
            fast_math_backend(),
        ),
    ]
