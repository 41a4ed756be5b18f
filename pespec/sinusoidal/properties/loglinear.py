"""The angle term of a log-linear frequency computation (SPEC §4.1 A8, Annex A.8).

mlx's ``nn.SinusoidalPositionalEncoding`` computes its frequencies in T_work as

    t̂ = fl(k/N),  ẑ = fl(1 − t̂),  ω̂_k = exp(fl(fl(ẑ·L̂) − L̂)),  N = d/2 − s,  L̂ ≈ ln base,

(a linspace from 1 down to 0, times ln(max/min) = ln base, plus ln(min_freq) = −L̂ since
ln(max_freq) = 0), not base^(−k/N). The exponent is a difference of two numbers near ln base
for small k, so its absolute error is about 2u_w·ln base whatever λ_k: above the relative
error (2c_f + 2)(1 + λ_k)·u_w that A3 grants a pair of small λ_k. Annex A.8 derives

    |L̂ − L| ≤ η·L,  η = (1 + u/((1 − u)·L))·(1 + 2c_f·u)·(1 + u) − 1,
    Δa = (1 + u)·[λ_k·((1 + η)(1 + u) − 1) + L·(1 + η)·u·(2 + u)·z̄_k] + u·λ_k,
    z̄_k = |1 − k/N| + u·k/N ≥ |1 − t̂|,
    ρ_k = e^Δa·(1 + 2c_f·u) − 1 ≥ |ω̂_k/ω_k − 1|,  g_k = (1 + ρ_k)(1 + u) − 1,

so |θ̂ − θ| ≤ g_k·|θ| + ω_k·Δq·(1 + g_k), the form of §4.2 with g_k in place of γ(K_θ(k)).
Pair 0 is exact (t̂ = 0, ẑ = 1, fl(L̂ − L̂) = 0, exp(0) = 1). Float64 NumPy, shape (d/2,).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import FUNCTION_ULPS
from pespec.sinusoidal.properties.base import Level
from pespec.sinusoidal.reference.conventions import Convention
from pespec.sinusoidal.reference.validation import check_base, check_d_model

__all__ = ["log_linear_gamma"]


def log_linear_gamma(
    level: Level, d_model: int, base: float, convention: Convention
) -> NDArray[np.float64]:
    """g_k ≥ |fl(q̂·ω̂_k)/(q̂·ω_k) − 1| per pair for a log-linear backend (module docstring),
    shape (d/2,); pair 0 is 0. ``convention`` gives N = d/2 − s (an integer). Every
    (1 + a)(1 + b) − 1 is summed as a + b + a·b (no cancellation: evaluation error ≪ 2^-45)."""
    d = check_d_model(d_model)
    b = check_base(base)
    u = level.u_work
    two_cf_u = 2.0 * FUNCTION_ULPS[level.working_dtype] * u
    n = convention.denominator(d)
    ln_base = math.log(b)
    t = np.arange(d // 2, dtype=np.float64) / n
    lam = t * ln_base
    eta = _compose(_compose(u / ((1.0 - u) * ln_base), two_cf_u), u)
    z_bar = np.abs(1.0 - t) + u * t
    product = lam * _compose(eta, u) + ln_base * (1.0 + eta) * u * (2.0 + u) * z_bar
    delta_a = (1.0 + u) * product + u * lam
    rho = _compose(np.expm1(delta_a), two_cf_u)
    g: NDArray[np.float64] = _compose(rho, u)
    g[:1] = 0.0
    return g


def _compose(a: Any, b: float) -> Any:
    """(1 + a)(1 + b) − 1 for a, b ≥ 0, as a + b + a·b (no cancellation)."""
    return a + b + a * b
