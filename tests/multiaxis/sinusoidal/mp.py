"""An independent mpmath transcription of the published 2-D sin-cos formulas (400 bits).

Written from the sources, not from pespec: diffusers/MAE put, for D columns and a position
(h, w), sin(w·ω_k) in columns k, cos(w·ω_k) in D/4 + k, sin(h·ω_k) in D/2 + k and
cos(h·ω_k) in 3D/4 + k, with ω_k = 10000^(−k/(D/4)), k = 0 .. D/4 − 1. timm's default
grouped layout [sin h, sin w, cos h, cos w] is the other arrangement.
"""

from __future__ import annotations

from typing import Any

import mpmath

PREC = 400


def omega(k: int, quarter: int) -> Any:
    """10000^(−k/quarter) at 400 bits."""
    with mpmath.workprec(PREC):
        return mpmath.power(10000, -mpmath.mpf(k) / quarter)


def diffusers_row(h: float, w: float, dim: int) -> list[float]:
    """One row of diffusers' / MAE's get_2d_sincos_pos_embed at the exact position (h, w),
    each value correctly rounded to float64 from 400 bits."""
    quarter = dim // 4
    with mpmath.workprec(PREC):
        hh, ww = mpmath.mpf(h), mpmath.mpf(w)
        row = [mpmath.sin(ww * omega(k, quarter)) for k in range(quarter)]
        row += [mpmath.cos(ww * omega(k, quarter)) for k in range(quarter)]
        row += [mpmath.sin(hh * omega(k, quarter)) for k in range(quarter)]
        row += [mpmath.cos(hh * omega(k, quarter)) for k in range(quarter)]
        return [float(v) for v in row]


def grouped_row(h: float, w: float, dim: int) -> list[float]:
    """timm's default: [sin h | sin w | cos h | cos w], D/4 columns each, same ω_k."""
    quarter = dim // 4
    with mpmath.workprec(PREC):
        hh, ww = mpmath.mpf(h), mpmath.mpf(w)
        row = [mpmath.sin(hh * omega(k, quarter)) for k in range(quarter)]
        row += [mpmath.sin(ww * omega(k, quarter)) for k in range(quarter)]
        row += [mpmath.cos(hh * omega(k, quarter)) for k in range(quarter)]
        row += [mpmath.cos(ww * omega(k, quarter)) for k in range(quarter)]
        return [float(v) for v in row]


def cogvideox_row(t: float, h: float, w: float, dim: int) -> list[float]:
    """diffusers' get_3d_sincos_pos_embed: [1-D of t (D/4) | 1-D of w (3D/8) | 1-D of h
    (3D/8)], each 1-D part [sin | cos] with ω_k = 10000^(−k/(d/2)) for its own width d."""

    def one_d(p: float, d: int) -> list[Any]:
        half = d // 2
        pp = mpmath.mpf(p)
        return [mpmath.sin(pp * omega(k, half)) for k in range(half)] + [
            mpmath.cos(pp * omega(k, half)) for k in range(half)
        ]

    with mpmath.workprec(PREC):
        row = one_d(t, dim // 4) + one_d(w, 3 * dim // 8) + one_d(h, 3 * dim // 8)
        return [float(v) for v in row]


def big_vision_row(h: float, w: float, dim: int) -> list[float]:
    """big_vision posemb_sincos_2d: [sin x | cos x | sin y | cos y] (x = w), ω_k =
    10000^(−k/(D/4 − 1))."""
    quarter = dim // 4
    with mpmath.workprec(PREC):
        hh, ww = mpmath.mpf(h), mpmath.mpf(w)
        row = []
        for p, f in ((ww, mpmath.sin), (ww, mpmath.cos), (hh, mpmath.sin), (hh, mpmath.cos)):
            row += [f(p * omega(k, quarter - 1)) for k in range(quarter)]
        return [float(v) for v in row]
