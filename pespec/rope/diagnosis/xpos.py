"""The xPos diagnosis (SPEC Annex J, informative): γ, b, the role's sign and c measured.

One backend call rotates, at n = 33 spread positions, a vector whose every pair is (1, 0);
pair j's output norm is A·σ_j(p) = A·ζ_j^(s(p − c)/b) (a rotation keeps the norm), so
ln(norm/A) is linear in p with slope k_j = s·ln ζ_j / b and root c. The ratios k_j/k_0 =
ln ζ_j(γ)/ln ζ_0(γ) give γ (a grid, then a finer one), k_0 gives b and s (s = +1 for
queries), the root gives c. Each measured value that differs from the declaration is a
cause, named by its field. When none differs, the backend's output divided by the declared
σ̂ goes to the rotary diagnosis of the configuration without xPos (the schedule, pairing and
stage formats are found there).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.probes import to_float64
from pespec.rope.diagnosis.report import STAGES, RopeDiagnosis
from pespec.rope.diagnosis.stages import UNDETERMINED
from pespec.rope.oracle import attention_factor
from pespec.rope.reference import pair_views
from pespec.rope.xpos import center, element_scales

__all__ = ["descaled", "measure_xpos", "plain", "xpos_causes", "xpos_diagnosis"]

F64 = NDArray[np.float64]

PROBE_ROWS: Final = 33
RELATIVE: Final = 1e-3
"""A measured γ or b further than this (relative) from the declared value is a cause."""


def _log_zeta(gamma: F64, d_r: int) -> F64:
    """ln ζ_j(γ) for each γ (rows) and pair j (columns)."""
    j = np.arange(d_r // 2, dtype=np.float64)[None, :]
    g = np.asarray(gamma, dtype=np.float64)[:, None]
    out: F64 = np.log((2 * j + g * d_r) / ((1 + g) * d_r))
    return out


def _fit_gamma(ratios: F64, d_r: int) -> float:
    """γ whose ln ζ_j/ln ζ_0 is closest to ``ratios`` (least squares on a grid over
    [1e-3, 1e3], then twice on a finer grid around the best)."""
    grid = np.geomspace(1e-3, 1e3, 6001)
    for step in range(3):
        logs = _log_zeta(grid, d_r)
        misfit = np.sum((logs / logs[:, :1] - ratios[None, :]) ** 2, axis=1)
        best = int(np.argmin(misfit))
        if step == 2:
            break
        grid = np.linspace(grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)], 2001)
    return float(grid[best])


def measure_xpos(
    backend: Callable[..., Any], config: RopeConfig, max_position: float | None
) -> dict[str, Any] | None:
    """{"xpos_gamma", "xpos_scale_base", "xpos_role", "xpos_center", "scaled"} measured
    with one call, or None when the call fails or gives no usable amplitudes."""
    assert config.xpos_scale_base is not None
    top = int(min(8 * config.xpos_scale_base, 2**20 if max_position is None else max_position))
    positions = np.unique(np.linspace(0, top, PROBE_ROWS).astype(np.int64))
    if positions.size < 3:  # no slope and root to measure inside the domain
        return None
    x = np.zeros((positions.size, config.head_dim))
    a, _ = pair_views(x, config, output=False)
    a[...] = 1.0
    try:
        y, _ = to_float64(backend(x.copy(), positions.copy(), config))
    except Exception:  # advice only: a failing call leaves the xPos part unmeasured
        return None
    if y.shape != x.shape:
        return None
    y_a, y_b = pair_views(y, config, output=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(np.hypot(y_a, y_b) / attention_factor(config))
    if not np.all(np.isfinite(logs)):
        return None
    slope, intercept = np.polyfit(positions.astype(np.float64), logs, 1)
    if float(np.max(np.abs(slope))) * positions.max() < 1e-4:
        return {"scaled": False}
    gamma = _fit_gamma(slope / slope[0], config.d_r)
    rate = float(_log_zeta(np.array([gamma]), config.d_r)[0, 0])
    sign = 1 if rate / float(slope[0]) > 0 else -1
    return {
        "scaled": True,
        "xpos_gamma": gamma,
        "xpos_scale_base": abs(rate / float(slope[0])),
        "xpos_role": "query" if sign > 0 else "key",
        "xpos_center": float(np.median(-intercept / slope)),
        "probe_rows": int(positions.size),
    }


def xpos_causes(config: RopeConfig, found: dict[str, Any]) -> list[str]:
    """One phrase per xPos parameter the measurement contradicts (empty: none)."""
    if not found["scaled"]:
        return ["the xPos scale is missing (each pair's norm is A at every position)"]
    out = []
    gamma, base = config.xpos_gamma, config.xpos_scale_base
    assert gamma is not None and base is not None
    if abs(found["xpos_gamma"] / gamma - 1) > RELATIVE:
        out.append(
            f"xpos_gamma: ζ_j = (2j + γ·d_r)/((1 + γ)·d_r) with γ = {found['xpos_gamma']:.4g}, "
            f"not the declared {gamma:g}"
        )
    if abs(found["xpos_scale_base"] / base - 1) > RELATIVE:
        out.append(
            f"xpos_scale_base: the power (p − c)/b with b = {found['xpos_scale_base']:.6g}, "
            f"not the declared {base:g}"
        )
    if found["xpos_role"] != config.xpos_role:
        power = "−" if found["xpos_role"] == "key" else "+"
        out.append(
            f"xpos_role: the {config.xpos_role}'s power is not "
            f"{'inverted' if config.xpos_role == 'key' else 'as declared'} (the backend scales "
            f"by ζ^({power}(p − c)/b), as for a {found['xpos_role']})"
        )
    c = center(config, found.get("probe_rows", PROBE_ROWS))
    if abs(found["xpos_center"] - c) > 0.5:
        declared = "n//2" if config.xpos_center is None else "declared"
        out.append(
            f"xpos_center: the power is zero at p = {found['xpos_center']:.4g}, not the "
            f"{declared} centre {c}"
        )
    return out


def descaled(backend: Callable[..., Any], config: RopeConfig) -> Callable[..., Any]:
    """``backend`` with the declared σ̂ divided out, for the configuration without xPos."""

    def call(x: F64, positions: NDArray[Any], rope: RopeConfig) -> NDArray[Any]:
        result = backend(x, positions, config)
        y, name = to_float64(result)
        descaled = y / element_scales(positions, config)
        kept = {"float32": np.float32, "float16": np.float16}.get(name, np.float64)
        out: NDArray[Any] = descaled.astype(kept)  # the backend's format kept
        return out

    return call


def xpos_diagnosis(config: RopeConfig, found: dict[str, Any] | None, calls: int) -> RopeDiagnosis:
    """The diagnosis of the xPos causes found (or of the unmeasured scale)."""
    causes = (
        xpos_causes(config, found)
        if found is not None
        else ["the xPos probe call failed or gave non-finite norms"]
    )
    text = "The backend's xPos scale differs from the declaration: " + "; ".join(causes) + "."
    parameters = {k: v for k, v in (found or {}).items() if k.startswith("xpos_")}
    return RopeDiagnosis(
        config.pairing,
        config.rope_type,
        parameters,
        dict.fromkeys(STAGES, UNDETERMINED),
        None,
        text,
        found is not None,
        calls,
        tuple(causes),
    )


def plain(config: RopeConfig) -> RopeConfig:
    """``config`` without xPos."""
    return dataclasses.replace(
        config, xpos_scale_base=None, xpos_gamma=None, xpos_center=None, xpos_role=None
    )
