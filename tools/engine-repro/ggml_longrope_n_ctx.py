"""llama.cpp takes LongRoPE's long factors for every position when the allocated context
exceeds ``original_max_position_embeddings``: Phi-3.5-mini run with ``-c 0`` (n_ctx = the
model's 131072) rotates a 4096-token sequence with the long factors, where the model's
definition (transformers: the factors chosen by the sequence's length) uses the short ones
(issue 35).

Reproduction without pespec (needs ggml-python==0.0.45, numpy, mpmath):

    python tools/engine-repro/ggml_longrope_n_ctx.py [CONFIG.json]

CONFIG.json: microsoft/Phi-3.5-mini-instruct's config.json (default: the published copy in
this repository, pespec/rope/published/phi-3.5-mini-instruct.json). llama.cpp's converter
(``conversion/phi.py``, ``Phi3MiniModel``) writes ``rope_factors_long``/``rope_factors_short``
(float32) and ``rope.scaling.attn_factor`` = sqrt(1 + ln(131072/4096)/ln 4096); the graph
(``src/models/phi3.cpp``) passes one of them as ``ggml_rope_ext``'s freq_factors, chosen by
``llama_model::get_rope_factors`` (``src/llama-model.cpp``): long when n_ctx_seq (n_ctx padded
to 256, one sequence) > n_ctx_orig_yarn (4096). Mode NEOX, n_dims 96, base 10000, no YaRN.
This rotates the unit vector of each pair at position 4095 with the factors of n_ctx 4096
and of n_ctx 131072 (float32), and compares the angle each pair turned by with mpmath's
p·ω_j for the short and the long factors (ω_j = 1 / (factor_j · θ^(2j/d))), and the
amplitude with mpmath's attention factor.
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path
from typing import Any

import ggml
import mpmath
import numpy as np

mpmath.mp.dps = 50
POSITION, NEOX = 4095, 2
DEFAULT = Path(__file__).resolve().parents[2] / "pespec/rope/published/phi-3.5-mini-instruct.json"


def llamacpp_factors(config: dict[str, Any], n_ctx: int) -> list[float]:
    """The factors llama.cpp's get_rope_factors picks at allocated context n_ctx."""
    n_ctx_seq = -(-n_ctx // 256) * 256
    long = n_ctx_seq > config["original_max_position_embeddings"]
    return [float(f) for f in config["rope_scaling"]["long_factor" if long else "short_factor"]]


def ggml_angles(config: dict[str, Any], n_ctx: int) -> tuple[np.ndarray, np.ndarray]:
    """(angle pair j turned by at POSITION, its amplitude) from ggml_rope_ext, float32."""
    d = config["hidden_size"] // config["num_attention_heads"]
    half, base = d // 2, float(config["rope_theta"])
    length, orig = config["max_position_embeddings"], config["original_max_position_embeddings"]
    attn = float(np.float32(np.sqrt(1 + np.log(length / orig) / np.log(orig))))
    x = np.zeros((half, d), np.float32)
    x[np.arange(half), np.arange(half)] = 1.0  # row j: pair j's first element is 1
    factors = np.asarray(llamacpp_factors(config, n_ctx), np.float32)
    ctx = ggml.ggml_init(ggml.ggml_init_params(mem_size=1 << 24, mem_buffer=None))
    a = ggml.ggml_new_tensor_3d(ctx, ggml.GGML_TYPE_F32, d, 1, half)
    pos = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_I32, half)
    ff = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_F32, half)
    ps = np.full(half, POSITION, np.int32)
    for tensor, data in ((a, x), (pos, ps), (ff, factors)):
        ctypes.memmove(ggml.ggml_get_data(tensor), data.ctypes.data, data.nbytes)
    out = ggml.ggml_rope_ext(ctx, a, pos, ff, d, NEOX, orig, base, 1.0, 0.0, attn, 32.0, 1.0)
    graph = ggml.ggml_new_graph(ctx)
    ggml.ggml_build_forward_expand(graph, out)
    ggml.ggml_graph_compute_with_ctx(ctx, graph, 1)
    y = np.empty((half, d), np.float32)
    ctypes.memmove(y.ctypes.data, ggml.ggml_get_data(out), y.nbytes)
    ggml.ggml_free(ctx)
    rows = np.arange(half)
    first, second = y[rows, rows].astype(np.float64), y[rows, half + rows].astype(np.float64)
    return np.arctan2(second, first), np.hypot(first, second)


def exact_angles(config: dict[str, Any], kind: str) -> np.ndarray:
    """mpmath's p·ω_j reduced to (-π, π] for the ``kind`` factors."""
    d = config["hidden_size"] // config["num_attention_heads"]
    out, theta = [], config["rope_theta"]
    for j, factor in enumerate(config["rope_scaling"][kind]):
        phase = POSITION / (mpmath.mpf(factor) * mpmath.power(theta, mpmath.mpf(2 * j) / d))
        out.append(float(phase - 2 * mpmath.pi * mpmath.nint(phase / (2 * mpmath.pi))))
    return np.array(out)


def gap(got: np.ndarray, want: np.ndarray) -> float:
    """Largest angle difference, wrapped to (-π, π]."""
    return float(np.max(np.abs(np.angle(np.exp(1j * (got - want))))))


def main(argv: list[str]) -> None:
    config = json.loads(Path(argv[0] if argv else DEFAULT).read_text(encoding="utf-8"))
    length, orig = config["max_position_embeddings"], config["original_max_position_embeddings"]
    amplitude = mpmath.sqrt(1 + mpmath.log(mpmath.mpf(length) / orig) / mpmath.log(orig))
    short, long = exact_angles(config, "short_factor"), exact_angles(config, "long_factor")
    print(f"position {POSITION} of a {POSITION + 1}-token sequence (the definition: short factors)")
    for n_ctx in (4096, 131072):
        angles, amp = ggml_angles(config, n_ctx)
        worst = float(np.max(np.abs(amp - float(amplitude))))
        print(
            f"n_ctx {n_ctx:6d}: max |angle - mpmath(short)| = {gap(angles, short):.3g} rad, "
            f"max |angle - mpmath(long)| = {gap(angles, long):.3g} rad, "
            f"max |amplitude - {float(amplitude):.7f}| = {worst:.2g}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
