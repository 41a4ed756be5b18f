"""The log-linear frequency term of the error model (SPEC §4.1 A8, Annex A.8): mlx's formula.

A float32 NumPy transcription of mlx's ``SinusoidalPositionalEncoding`` (sigmas =
exp((1 − k/N)·(ln max − ln min) + ln min), N = d/2 − 1, in float32; then sin, cos, ×√(2/d))
runs without mlx. Its frequencies and angles are checked against mpmath (100 bits) within the
term g_k; the port is CONFORMANT against the ``mlx`` preset at every d (it exceeds A3 alone at
d = 1024: the term is needed); ports with one thing wrong still fail; conventions that do not
declare the formula keep their bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.sinusoidal.compare import compare_blocks
from pespec.sinusoidal.properties import errormodel
from pespec.sinusoidal.properties.base import EncodingConfig, parse_level
from pespec.sinusoidal.properties.errormodel import angle_gamma, element_bound_parts
from pespec.sinusoidal.properties.loglinear import log_linear_gamma
from pespec.sinusoidal.reference.conventions import MLX, PRESETS, Convention
from pespec.sinusoidal.reference.exact import scaled_reference_error

FLOAT32 = parse_level("float32")
D_MODELS = [6, 64, 512, 1024, 2078, 4096, 8192]
POSITIONS = np.concatenate(
    [np.arange(0, 600), np.random.default_rng(7).integers(1, 2**24, 400)]
).astype(np.int64)


def mlx_sigmas(
    d: int, base: float, *, index_shift: int = 0, log: Callable[[float], float] = math.log
) -> NDArray[np.float32]:
    """mlx's sigmas in float32 (``1 − arange/(dims//2 − 1)``, the span and offset as Python
    floats taken in float32); ``index_shift``/``log`` make the wrong ports."""
    half = d // 2
    k = np.arange(half, dtype=np.float32) + np.float32(index_shift)
    one_zero = np.float32(1.0) - k / np.float32(half - 1)
    min_freq = log(1.0 / base)
    span, offset = np.float32(0.0 - min_freq), np.float32(min_freq)
    sigmas: NDArray[np.float32] = np.exp(one_zero * span + offset)
    return sigmas


def mlx_port(positions: Any, d: int, base: float, **wrong: Any) -> NDArray[np.float32]:
    """The module's output in float32: concatenate([sin y, cos y]) · fl32(√(2/d))."""
    y = np.asarray(positions, dtype=np.float32)[:, None] * mlx_sigmas(d, base, **wrong)[None, :]
    out: NDArray[np.float32] = np.concatenate([np.sin(y), np.cos(y)], axis=-1)
    return out * np.float32((2.0 / d) ** 0.5)


def exact_omegas(d: int, base: float) -> NDArray[np.float64]:
    """ω_k = base^(−k/(d/2 − 1)) at 100 bits, rounded to float64 (independent of pespec)."""
    den = d // 2 - 1
    with mpmath.workprec(100):
        return np.array(
            [float(mpmath.power(mpmath.mpf(base), mpmath.mpf(-k) / den)) for k in range(d // 2)]
        )


@pytest.mark.parametrize("base", [10000.0, 500000.0, 1.5])
@pytest.mark.parametrize("d_model", D_MODELS)
def test_the_float32_angles_of_the_formula_stay_within_the_term(d_model: int, base: float) -> None:
    omega = exact_omegas(d_model, base)
    sigmas = mlx_sigmas(d_model, base)
    assert sigmas[0] == 1.0  # pair 0 is exact (Annex A.8), so g_0 = 0 is sound
    q = POSITIONS[POSITIONS > 0].astype(np.float32)
    theta_hat = (q[:, None] * sigmas[None, :]).astype(np.float64)  # one float32 product
    theta = q.astype(np.float64)[:, None] * omega[None, :]  # float64: 2^-53 ≪ g_k
    g = log_linear_gamma(FLOAT32, d_model, base, MLX)
    ratio = np.abs(theta_hat - theta)[:, 1:] / (g[1:] * theta[:, 1:])
    assert float(np.max(ratio)) < 1.0, float(np.max(ratio))


def test_a3_alone_is_exceeded_by_the_formula_at_d_1024() -> None:
    """Why the term exists: A3's relative γ(K_θ) is below this formula's absolute error."""
    d, base = 1024, 10000.0
    lam = np.arange(d // 2) * math.log(base) / (d // 2 - 1)
    a3 = angle_gamma(FLOAT32, lam, base)
    q = np.arange(1, 600, dtype=np.float32)
    theta_hat = (q[:, None] * mlx_sigmas(d, base)[None, :]).astype(np.float64)
    theta = q.astype(np.float64)[:, None] * exact_omegas(d, base)[None, :]
    ratio = np.abs(theta_hat - theta)[:, 1:] / (a3[1:] * theta[:, 1:])
    assert float(np.max(ratio)) > 1.0


def _port_ratio(d_model: int, **wrong: Any) -> tuple[float, int]:
    output = mlx_port(POSITIONS, d_model, 10000.0, **wrong)
    worst = compare_blocks(
        output,
        POSITIONS,
        d_model,
        10000.0,
        FLOAT32,
        convention=MLX,
        reference_error=scaled_reference_error(MLX, d_model),
    )
    return float(worst.ratio), worst.violations


@pytest.mark.parametrize("d_model", [64, 512, 1024, 2078, 4096])
def test_the_float32_port_is_within_the_bound_of_the_mlx_preset(d_model: int) -> None:
    ratio, violations = _port_ratio(d_model)
    assert violations == 0 and ratio < 1.0, ratio


@pytest.mark.parametrize("d_model", [64, 1024, 4096])
@pytest.mark.parametrize(
    "wrong",
    [{"index_shift": 1}, {"log": math.log2}, {"log": lambda x: float(np.float16(math.log(x)))}],
    ids=["frequencies-one-index-off", "log2-for-ln", "ln-base-in-float16"],
)
def test_a_port_with_one_thing_wrong_still_fails(d_model: int, wrong: dict[str, Any]) -> None:
    ratio, violations = _port_ratio(d_model, **wrong)
    assert violations > 0 and ratio > 1.0, ratio


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_term_applies_only_to_a_convention_declaring_the_formula(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def spy(*args: Any) -> Any:
        calls.append(name)
        return log_linear_gamma(*args)

    monkeypatch.setattr(errormodel, "log_linear_gamma", spy)
    positions = np.array([0, 1, 287, 65536], dtype=np.int64)
    errormodel.element_bound_parts(EncodingConfig(positions, 64, 10000.0, PRESETS[name]), FLOAT32)
    assert calls == ([name] if name == "mlx" else [])


def test_the_mlx_bound_is_the_larger_of_both_terms() -> None:
    positions = np.array([1, 287, 65536], dtype=np.int64)
    power = Convention(layout="sin_cos_halves", frequency_shift=1, output_scale="sqrt(2/d)")
    assert power == MLX  # the formula does not change x (R3.3)
    log_linear = element_bound_parts(EncodingConfig(positions, 1024, 10000.0, MLX), FLOAT32)
    a3_only = element_bound_parts(EncodingConfig(positions, 1024, 10000.0, power), FLOAT32)
    assert np.all(log_linear.total >= a3_only.total)
    assert np.any(log_linear.total > 2 * a3_only.total)  # small k: ~(2L + 9)u against ~10u
