"""ggml's interleaved M-RoPE (``GGML_ROPE_TYPE_IMROPE``, Qwen3-VL) rotates pairs 61 and 62 of
a 128-wide head by the fourth ("e") position, where Qwen3-VL's definition rotates them by t
(issue 35).

Reproduction without pespec (needs ggml-python==0.0.45, numpy, mpmath):

    python tools/engine-repro/ggml_imrope_sections.py

Qwen3-VL-4B's config.json: head_dim 128, rope_theta 5000000, mrope_section [24, 20, 20],
mrope_interleaved true. transformers' ``apply_interleaved_mrope`` starts from t for every
pair and gives h to pairs 1, 4, ..., 58 (``slice(1, 3·20, 3)``) and w to pairs 2, 5, ..., 59:
pairs 60-63 keep t. llama.cpp writes sections [24, 20, 20, 0]; ggml's rope picks, for pair
``i`` and ``sector = i % 64``: h if ``sector % 3 == 1 and sector < 3·20``, w if ``sector % 3
== 2 and sector < 3·20``, t if ``sector % 3 == 0 and sector < 3·24``, else e: pairs 61 and 62
get e. This runs ``ggml_rope_multi`` (mode 40) on the unit vector of each pair 58-63 at
t = h = w = 63 and e = 0, then e = 63, and prints the angle each pair turned by beside
mpmath's 63·ω_j (ω_j = 5e6^(-2j/128)).
"""

from __future__ import annotations

import ctypes

import ggml
import mpmath
import numpy as np

mpmath.mp.dps = 40
D, BASE, IMROPE, P = 128, 5000000.0, 40, 63


def rope_multi(x: np.ndarray, t: int, e: int) -> np.ndarray:
    """ggml_rope_multi on x (n, D) float32 at (t, t, t, e) for every row."""
    n = len(x)
    ctx = ggml.ggml_init(ggml.ggml_init_params(mem_size=1 << 24, mem_buffer=None))
    a = ggml.ggml_new_tensor_3d(ctx, ggml.GGML_TYPE_F32, D, 1, n)
    pos = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_I32, 4 * n)
    xs = np.ascontiguousarray(x, np.float32)
    ps = np.concatenate([np.full(3 * n, t), np.full(n, e)]).astype(np.int32)
    ctypes.memmove(ggml.ggml_get_data(a), xs.ctypes.data, xs.nbytes)
    ctypes.memmove(ggml.ggml_get_data(pos), ps.ctypes.data, ps.nbytes)
    sections = (ctypes.c_int * 4)(24, 20, 20, 0)
    out = ggml.ggml_rope_multi(ctx, a, pos, None, D, sections, IMROPE, 0, BASE, 1.0, 0.0, 1.0,
                               32.0, 1.0)  # fmt: skip
    graph = ggml.ggml_new_graph(ctx)
    ggml.ggml_build_forward_expand(graph, out)
    ggml.ggml_graph_compute_with_ctx(ctx, graph, 1)
    result = np.empty((n, D), np.float32)
    ctypes.memmove(result.ctypes.data, ggml.ggml_get_data(out), result.nbytes)
    ggml.ggml_free(ctx)
    return result


def main() -> None:
    pairs = list(range(58, 64))
    x = np.zeros((len(pairs), D))
    for row, j in enumerate(pairs):
        x[row, j] = 1.0  # halves layout: pair j is (j, j + 64)
    for e in (0, P):
        y = rope_multi(x, P, e).astype(np.float64)
        print(f"t = h = w = {P}, e = {e}:")
        for row, j in enumerate(pairs):
            got = np.arctan2(y[row, j + D // 2], y[row, j])
            want = P * mpmath.power(BASE, mpmath.mpf(-2 * j) / D)
            print(f"  pair {j}: ggml {got:.6e} rad, definition (t) {float(want):.6e} rad")


if __name__ == "__main__":
    main()
