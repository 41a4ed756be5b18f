"""Per-pair frequencies measured from a saved sinusoidal table (issue 39 item 3).

A saved table at consecutive integer positions carries each pair's angular rate: φ_k(p) =
atan2(sin, cos) unwrapped along p rises by ω̂_k per row (|ω_k| ≤ 1 < π, so consecutive rows
never wrap ambiguously). :func:`measured_omegas` fits the slope by least squares over the
first rows (before a coarse stage or a running sum bends the line); :func:`frequency_law`
names how ω̂ relates to the convention's ω: every ratio 1, one ratio c for every pair (c =
base^(−2/d): the index off by one), or a power law base^(−2k/d′) over another width d′
(the exponent k/d is d′ = 2d). Ratios are printed only when they differ from 1 beyond the
fit's precision (four standard errors of the slope, from the line's residual).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.conventions import Convention

__all__ = ["frequency_law", "measured_omegas"]

F64 = NDArray[np.float64]
ROWS = 64
"""Rows used for the slope: enough for a precise rate, few enough to stay before a bend."""


def measured_omegas(
    y: F64, p: F64, convention: Convention, d_model: int, unit: float = 2.0**-24
) -> tuple[F64, F64, F64] | None:
    """(ω̂_k, its precision σ_k, the line's value at p = 0) (each (d/2,)) from the first
    :data:`ROWS` consecutive integer rows, or None. σ_k is four standard errors of the
    slope (from the line's own residual) plus 4·``unit``·|ω̂_k| (ω itself rounded in the
    table's format, unit roundoff ``unit``)."""
    if p.size < 8 or not np.all(p == np.round(p)):
        return None
    steps = np.diff(p[:ROWS])
    if not np.all(steps == 1):
        return None
    rows = slice(0, min(ROWS, p.size))
    sin = y[rows, convention.sin_columns(d_model)]
    cos = y[rows, convention.cos_columns(d_model)]
    with np.errstate(invalid="ignore"):
        phase = np.unwrap(np.arctan2(sin, cos), axis=0)
    if not np.all(np.isfinite(phase)):
        return None
    x = p[rows].astype(np.float64)
    spread = float((x - x.mean()) @ (x - x.mean()))
    slope = (x - x.mean()) @ (phase - phase.mean(axis=0)) / spread
    intercept = phase.mean(axis=0) - slope * x.mean()
    residual = phase - (intercept[None, :] + slope[None, :] * x[:, None])
    rms = np.sqrt(np.mean(residual**2, axis=0))
    precision = 4 * rms / math.sqrt(spread) + 4 * unit * np.abs(slope)
    scale = float(convention.argument_scale)
    return (
        np.asarray(slope / scale, dtype=np.float64),
        np.asarray(precision / abs(scale), dtype=np.float64),
        np.asarray(intercept, dtype=np.float64),
    )


def frequency_law(
    measured: F64, sigma: F64, d_model: int, base: float, convention: Convention
) -> str | None:
    """How ω̂ (precision σ) relates to the convention's ω_k; None when every ratio is 1
    within its precision."""
    k = np.arange(d_model // 2, dtype=np.float64)
    declared = base ** (-k / convention.denominator(d_model))
    ratio = measured / declared
    tolerance = sigma / declared + 1e-12
    if np.all(np.abs(ratio - 1) <= tolerance):
        return None
    middle = float(np.median(ratio))
    if middle > 0 and np.all(np.abs(ratio - middle) <= tolerance):
        text = f"every frequency measured {middle:.6g}× the convention's"
        step = base ** (-2.0 / d_model)
        if abs(middle - step) <= float(np.min(tolerance)):
            text += (
                f" (base^(−2/d) = {step:.6g}: the exponent 2(i+1)/d instead of 2i/d, the index "
                "off by one)"
            )
        return text
    if np.all(measured > 0):
        slope, start = np.polyfit(k, np.log(measured), 1)
        fitted = np.exp(start + slope * k)
        if np.all(np.abs(measured - fitted) <= sigma) and slope < 0:
            width = 2 * math.log(base) / -slope
            own = 2 * convention.denominator(d_model)
            text = (
                f"the frequencies measured ω̂_k = {math.exp(start):.6g}·base^(−2k/{width:.4g}) "
                f"where the convention has base^(−2k/{own:g}); equally, the base measured "
                f"{math.exp(-slope * own / 2):.6g} where the file's base is {base:g}"
            )
            if abs(width - 2 * d_model) < 1e-2 * d_model and abs(start) < 1e-3:
                text += " (the exponent i/d instead of 2i/d)"
            return text
    worst = int(np.argmax(np.abs(np.log(np.abs(ratio) + 1e-300))))
    if float(np.max(np.abs(ratio - 1))) < 1e-3:  # the phase bends, no rate is wrong: the
        return None  # growth law names it
    if np.any(ratio <= 0):
        return f"the per-pair rates fit no law tried (pair {worst} departs most)"
    return (
        f"per-pair frequency ratios ω̂/ω from {float(np.min(ratio)):.6g} to "
        f"{float(np.max(ratio)):.6g} (largest departure at pair {worst}); no law tried fits"
    )
