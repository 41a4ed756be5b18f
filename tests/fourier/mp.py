"""An independent mpmath transcription of the Fourier encodings as their sources write them.

Written from the cited code and papers (not from pespec's layout tables), at 400 bits; each
value then rounded to float64 by mpmath (round to nearest; a double rounding could only
differ within 2^-400 of a float64 midpoint), a residue below 2^-300 read as the exact zero it
stands for. B (the given matrices) is data, read from the presets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath

from pespec.fourier.presets import PRESETS

PREC = 400


ZERO = mpmath.mpf(2) ** -300
"""Below this a 400-bit value is read as the residue of an exact zero (sin kπ, cos (k + ½)π,
with π rounded to 400 bits: residues near 2^-400·|a|). Sound only with a gap: :func:`_f`
refuses a value between 2^-300 and 2^-100, so no true value can hide below the threshold
unnoticed."""


def _f(values: list[Any]) -> list[float]:
    out = []
    for v in values:
        if ZERO <= abs(v) < mpmath.mpf(2) ** -100:
            raise ArithmeticError(f"{v} lies in the gap (2^-300, 2^-100): zero or not?")
        out.append(0.0 if abs(v) < ZERO else float(v))
    return out


def nerf_row(x: Sequence[float], pi: bool) -> list[float]:
    """bmild/nerf get_embedder (multires 10): x, then per freq 2^j: sin(x·2^j), cos(x·2^j)
    (with pi: the paper's γ, sin(2^j·π·x))."""
    with mpmath.workprec(PREC):
        c = mpmath.pi if pi else mpmath.mpf(1)
        xs = [mpmath.mpf(v) for v in x]
        row = list(xs)
        for j in range(10):
            row += [mpmath.sin(v * 2**j * c) for v in xs]
            row += [mpmath.cos(v * 2**j * c) for v in xs]
        return _f(row)


def nerfstudio_row(x: Sequence[float]) -> list[float]:
    """nerfstudio NeRFEncoding(3, 10, 0.0, 8.0, include_input=True): s = 2π·x_i·2^(8j/9),
    (input_dim, num_scales) flattened, sin(cat([s, s + π/2])), then x."""
    with mpmath.workprec(PREC):
        xs = [mpmath.mpf(v) for v in x]
        s = [
            2 * mpmath.pi * v * mpmath.power(2, mpmath.mpf(8 * j) / 9)
            for v in xs
            for j in range(10)
        ]
        return _f([mpmath.sin(a) for a in s] + [mpmath.sin(a + mpmath.pi / 2) for a in s] + xs)


def matrix_row(x: Sequence[float], name: str, cos_first: bool, log: bool = False) -> list[float]:
    """[sin(2πBx), cos(2πBx)] (diffusers GaussianFourierProjection), or [cos, sin] (Tancik's
    γ(v), diffusers with flip_sin_to_cos); with ``log`` of log x (its log=True)."""
    b = PRESETS[name].matrix
    with mpmath.workprec(PREC):
        xs = [mpmath.log(mpmath.mpf(v)) if log else mpmath.mpf(v) for v in x]
        sums = [mpmath.fsum(mpmath.mpf(w) * v for w, v in zip(r, xs, strict=True)) for r in b]
        a = [2 * mpmath.pi * t for t in sums]
        sin, cos = [mpmath.sin(t) for t in a], [mpmath.cos(t) for t in a]
        return _f(cos + sin if cos_first else sin + cos)


def timm_row(x: Sequence[float], linear: bool) -> list[float]:
    """timm build_fourier_pos_embed(in_pixels=False, num_bands=64): grid[..., None]·bands,
    (2, 64) flattened per sin and cos; bands 1/10000^(j/64), or linspace(1, 112, 64)·π."""
    with mpmath.workprec(PREC):
        if linear:
            bands = [(1 + mpmath.mpf(j) * 111 / 63) * mpmath.pi for j in range(64)]
        else:
            bands = [1 / mpmath.power(10000, mpmath.mpf(j) / 64) for j in range(64)]
        a = [mpmath.mpf(v) * w for v in x for w in bands]
        return _f([mpmath.sin(t) for t in a] + [mpmath.cos(t) for t in a])


ROWS: dict[str, Callable[[Sequence[float]], list[float]]] = {
    "nerf": lambda x: nerf_row(x, False),
    "nerf-paper": lambda x: nerf_row(x, True),
    "nerfstudio-nerf": nerfstudio_row,
    "rff-tancik": lambda x: matrix_row(x, "rff-tancik", True),
    "diffusers-gaussian-fourier": lambda x: matrix_row(x, "diffusers-gaussian-fourier", False),
    "diffusers-gaussian-fourier-flip": lambda x: matrix_row(
        x, "diffusers-gaussian-fourier-flip", True
    ),
    "diffusers-gaussian-fourier-log": lambda x: matrix_row(
        x, "diffusers-gaussian-fourier-log", False, log=True
    ),
    "diffusers-gaussian-fourier-log-flip": lambda x: matrix_row(
        x, "diffusers-gaussian-fourier-log-flip", True, log=True
    ),
    "timm-fourier": lambda x: timm_row(x, False),
    "timm-fourier-linear": lambda x: timm_row(x, True),
}
"""The transcription of each preset, by name."""
