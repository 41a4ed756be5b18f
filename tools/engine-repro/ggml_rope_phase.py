"""ggml's float32 rope: ω_j = theta_scale^j by repeated float32 multiplication (issue 35).

Reproduction without pespec (needs ggml-python==0.0.45, numpy, mpmath):

    python tools/engine-repro/ggml_rope_phase.py

ggml's CPU rope computes theta_scale = powf(freq_base, -2/n_dims) once and the phase of pair j
as p·theta_scale^j, multiplying the running float32 value by theta_scale once per pair: the
rounding of theta_scale is raised to the j-th power and j more roundings accumulate, so ω_j
carries a relative error growing with j, where a float32 implementation that rounds
θ^(-2j/d) once per pair has one rounding. This prints, for Qwen2.5-7B's θ = 1e6, d = 128:
ω_j measured from the op at position 1 (atan2 of its output), the same from an emulation of
the float32 loop, and the exact ω_j (mpmath, 50 digits); then the output error at position
16383 against the exact rotation and against the one-rounding float32 model.
"""

from __future__ import annotations

import ctypes

import ggml
import mpmath
import numpy as np

mpmath.mp.dps = 50
D, BASE, NEOX = 128, 1_000_000.0, 2


def ggml_rope(x: np.ndarray, positions: list[int]) -> np.ndarray:
    """ggml_rope_ext (NEOX, no scaling) on x (n, D) float32 in ggml's [D, 1, n] layout."""
    n = len(positions)
    ctx = ggml.ggml_init(ggml.ggml_init_params(mem_size=1 << 24, mem_buffer=None))
    a = ggml.ggml_new_tensor_3d(ctx, ggml.GGML_TYPE_F32, D, 1, n)
    pos = ggml.ggml_new_tensor_1d(ctx, ggml.GGML_TYPE_I32, n)
    xs, ps = np.ascontiguousarray(x, np.float32), np.asarray(positions, np.int32)
    ctypes.memmove(ggml.ggml_get_data(a), xs.ctypes.data, xs.nbytes)
    ctypes.memmove(ggml.ggml_get_data(pos), ps.ctypes.data, ps.nbytes)
    out = ggml.ggml_rope_ext(ctx, a, pos, None, D, NEOX, 0, BASE, 1.0, 0.0, 1.0, 32.0, 1.0)
    graph = ggml.ggml_new_graph(ctx)
    ggml.ggml_build_forward_expand(graph, out)
    ggml.ggml_graph_compute_with_ctx(ctx, graph, 1)
    result = np.empty((n, D), np.float32)
    ctypes.memmove(result.ctypes.data, ggml.ggml_get_data(out), result.nbytes)
    ggml.ggml_free(ctx)
    return result


def exact_omega(j: int) -> mpmath.mpf:
    return mpmath.power(BASE, mpmath.mpf(-2 * j) / D)


def emulated_omega() -> list[float]:
    """ggml's loop: theta = p; theta *= theta_scale per pair (float32), here at p = 1."""
    scale = np.float32(mpmath.power(BASE, mpmath.mpf(-2) / D))  # powf, correctly rounded
    theta, out = np.float32(1.0), []
    for _ in range(D // 2):
        out.append(float(theta))
        theta = np.float32(theta * scale)
    return out


def main() -> None:
    x = np.zeros((1, D), np.float32)
    x[0, : D // 2] = 1.0  # pair j = (x_j, x_{j+D/2}) = (1, 0): the output is (cos φ_j, sin φ_j)
    y = ggml_rope(x, [1])[0]
    measured = np.arctan2(y[D // 2 :].astype(np.float64), y[: D // 2].astype(np.float64))
    emulated = emulated_omega()
    print(" pair  measured/exact-1  emulated/exact-1  one-rounding fl32(ω_j)/exact-1")
    for j in (1, 8, 13, 20, 30, 40, 50, 63):
        w = exact_omega(j)
        one = np.float32(w)
        print(
            f"{j:5d}  {float(measured[j] / w - 1):+.3e}        {float(emulated[j] / w - 1):+.3e}"
            f"        {float(mpmath.mpf(float(one)) / w - 1):+.3e}"
        )
    p = 16383
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, D)).astype(np.float32)
    y = ggml_rope(x, [p])[0].astype(np.float64)
    worst = model = 0.0
    for j in range(D // 2):
        a, b = mpmath.mpf(float(x[0, j])), mpmath.mpf(float(x[0, j + D // 2]))
        phi = p * exact_omega(j)
        ref = (a * mpmath.cos(phi) - b * mpmath.sin(phi), b * mpmath.cos(phi) + a * mpmath.sin(phi))
        worst = max(worst, abs(y[j] - ref[0]), abs(y[j + D // 2] - ref[1]))
        # the one-rounding float32 model: phase fl32(p · fl32(ω_j)), then exact cos/sin
        phi32 = mpmath.mpf(float(np.float32(np.float32(p) * np.float32(exact_omega(j)))))
        alt = (
            a * mpmath.cos(phi32) - b * mpmath.sin(phi32),
            b * mpmath.cos(phi32) + a * mpmath.sin(phi32),
        )
        model = max(model, abs(alt[0] - ref[0]), abs(alt[1] - ref[1]))
    print(
        f"position {p}: max |ggml - exact| = {float(worst):.3e}; the one-rounding float32 phase "
        f"alone: {float(model):.3e} (x ~ N(0, 1))"
    )


if __name__ == "__main__":
    main()
