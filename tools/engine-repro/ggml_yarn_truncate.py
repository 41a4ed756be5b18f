"""llama.cpp's YaRN always truncates the correction range: gpt-oss's ``truncate: false`` is
lost (issue 35).

Reproduction without pespec (needs ggml-python==0.0.45, numpy, mpmath):

    python tools/engine-repro/ggml_yarn_truncate.py

gpt-oss-20b's config.json: rope_theta 150000, head_dim 64, rope_scaling {rope_type yarn,
factor 32, original_max_position_embeddings 4096, beta_fast 32, beta_slow 1, truncate false}.
llama.cpp's converter writes rope.scaling.type yarn, factor 32, original_context_length 4096
(no key for truncate) and ggml's rope computes the correction range as
floor(corr_dim(32)), ceil(corr_dim(1)) (``ggml_rope_yarn_corr_dims``); truncate false means
the range unrounded (transformers' ``_compute_yarn_parameters``). The pairs inside the ramp
then get different frequencies. This prints ω_j measured from ggml's op at position 1 over
the exact ω_j of the config (truncate false) and over the exact ω_j with truncation (mpmath),
then the output error at position 8399.
"""

from __future__ import annotations

import ctypes

import ggml
import mpmath
import numpy as np

mpmath.mp.dps = 50
D, BASE, FACTOR, L0, FAST, SLOW, NEOX = 64, 150000.0, 32.0, 4096, 32.0, 1.0, 2


def ggml_rope(x: np.ndarray, positions: list[int]) -> np.ndarray:
    """ggml_rope_ext (NEOX, YaRN as llama.cpp passes it) on x (n, D) float32, [D, 1, n]."""
    n = len(positions)
    ctx = ggml.ggml_init(ggml.ggml_init_params(mem_size=1 << 24, mem_buffer=None))
    a = ggml.ggml_new_tensor_3d(ctx, ggml.GGML_TYPE_F32, D, 1, n)
    pos = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_I32, n)
    xs, ps = np.ascontiguousarray(x, np.float32), np.asarray(positions, np.int32)
    ctypes.memmove(ggml.ggml_get_data(a), xs.ctypes.data, xs.nbytes)
    ctypes.memmove(ggml.ggml_get_data(pos), ps.ctypes.data, ps.nbytes)
    out = ggml.ggml_rope_ext(
        ctx, a, pos, None, D, NEOX, L0, BASE, 1.0 / FACTOR, 1.0, 1.0, FAST, SLOW
    )
    graph = ggml.ggml_new_graph(ctx)
    ggml.ggml_build_forward_expand(graph, out)
    ggml.ggml_graph_compute_with_ctx(ctx, graph, 1)
    result = np.empty((n, D), np.float32)
    ctypes.memmove(result.ctypes.data, ggml.ggml_get_data(out), result.nbytes)
    ggml.ggml_free(ctx)
    return result


def exact_omega(j: int, truncate: bool) -> mpmath.mpf:
    """YaRN's ω_j (transformers' definition) with or without truncating the range."""

    def corr(rot: float) -> mpmath.mpf:
        return D * mpmath.log(L0 / (rot * 2 * mpmath.pi)) / (2 * mpmath.log(BASE))

    low, high = corr(FAST), corr(SLOW)
    if truncate:
        low, high = mpmath.floor(low), mpmath.ceil(high)
    ramp = min(mpmath.mpf(1), max(mpmath.mpf(0), (j - low) / (high - low)))
    extrap = mpmath.power(BASE, mpmath.mpf(-2 * j) / D)
    return extrap / FACTOR * ramp + extrap * (1 - ramp)


def main() -> None:
    x = np.zeros((1, D), np.float32)
    x[0, : D // 2] = 1.0
    y = ggml_rope(x, [1])[0].astype(np.float64)
    measured = np.arctan2(y[D // 2 :], y[: D // 2])
    print(
        f"attention factor measured {np.hypot(y[0], y[D // 2]):.7f}, 0.1 ln 32 + 1 = "
        f"{float(0.1 * mpmath.log(32) + 1):.7f}"
    )
    print(" pair  ggml/exact(truncate false)  ggml/exact(truncate true)")
    for j in range(7, 17):
        print(
            f"{j:5d}  {float(measured[j] / exact_omega(j, False)):.6f}"
            f"                    {float(measured[j] / exact_omega(j, True)):.6f}"
        )
    p, worst = 8399, 0.0
    x = np.random.default_rng(0).standard_normal((1, D)).astype(np.float32)
    y = ggml_rope(x, [p])[0].astype(np.float64)
    scale = 0.1 * mpmath.log(FACTOR) + 1
    for j in range(D // 2):
        phi = p * exact_omega(j, False)
        a, b = mpmath.mpf(float(x[0, j])), mpmath.mpf(float(x[0, j + D // 2]))
        ref0 = scale * (a * mpmath.cos(phi) - b * mpmath.sin(phi))
        ref1 = scale * (b * mpmath.cos(phi) + a * mpmath.sin(phi))
        worst = max(worst, abs(y[j] - ref0), abs(y[j + D // 2] - ref1))
    print(f"position {p}: max |ggml - exact (truncate false)| = {float(worst):.3f} (x ~ N(0, 1))")


if __name__ == "__main__":
    main()
