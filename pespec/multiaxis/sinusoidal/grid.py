"""The position ids of a grid, as the 2-D/3-D sin-cos embeddings build them (SPEC §9.3).

diffusers' ``get_2d_sincos_pos_embed(embed_dim, grid_size, base_size=b,
interpolation_scale=s)`` puts coordinate i of an axis of size g at i / (g / b) / s: the
grid is stretched to ``base_size`` and divided by the interpolation scale (SD3: g = 192,
b = 64, so i/3; PixArt-α 1024: s = 2, so i/2). MAE and DiT use the indices i themselves
(b = g, s = 1). CogVideoX's ``get_3d_sincos_pos_embed`` divides t by its temporal and h, w
by its spatial interpolation scale (1.875 for CogVideoX-2b), with no base_size. Rows are in
row-major order over the axes, the last axis fastest: row
r = i_h·W + i_w of a (H, W) grid, as both flatten their grids.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

__all__ = ["axis_values", "grid_positions", "per_axis"]


def per_axis(scale: float | Sequence[float], axes: int) -> tuple[float, ...]:
    """``scale`` as one value per axis (a single number repeated); ValueError naming a list
    of the wrong length."""
    if isinstance(scale, Sequence) and not isinstance(scale, (str, bytes)):
        if len(scale) != axes:
            raise ValueError(
                f"interpolation_scale must be a number or a list of {axes}; got {list(scale)!r}"
            )
        return tuple(float(v) for v in scale)
    return (float(scale),) * axes


def _positive(name: str, value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float)):
        raise ValueError(f"{name} must be a positive number; got {value!r}")
    exact = Fraction(float(value)) if isinstance(value, float) else Fraction(int(value))
    if not exact > 0:
        raise ValueError(f"{name} must be a positive number; got {value!r}")
    return exact


def axis_values(
    size: int, *, base_size: float | None = None, interpolation_scale: float = 1.0
) -> NDArray[np.float64] | NDArray[np.int64]:
    """The coordinates of one axis of ``size`` points: i·b/(g·s), i = 0 .. g−1, each the
    float64 nearest the exact rational value (int64 when all are integers); shape (g,)."""
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
        raise ValueError(f"grid size must be an int >= 1; got {size!r}")
    b = Fraction(int(size)) if base_size is None else _positive("base_size", base_size)
    step = b / (Fraction(int(size)) * _positive("interpolation_scale", interpolation_scale))
    exact = [i * step for i in range(int(size))]
    if all(v.denominator == 1 for v in exact):
        return np.array([int(v) for v in exact], dtype=np.int64)
    return np.array([float(v) for v in exact], dtype=np.float64)  # float(Fraction) rounds once


def grid_positions(
    sizes: Sequence[int],
    *,
    base_size: float | None = None,
    interpolation_scale: float | Sequence[float] = 1.0,
) -> NDArray[np.float64] | NDArray[np.int64]:
    """Positions (n, k) of a k-axis grid of ``sizes`` (n = Π sizes), last axis fastest; each
    axis scaled as :func:`axis_values` (``base_size`` None: no stretching;
    ``interpolation_scale`` one for every axis or one per axis, as CogVideoX's t and h, w)."""
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or not sizes:
        raise ValueError(f"sizes must be a non-empty list of ints; got {sizes!r}")
    scales = per_axis(interpolation_scale, len(sizes))
    axes = [
        axis_values(g, base_size=base_size, interpolation_scale=s)
        for g, s in zip(sizes, scales, strict=True)
    ]
    mesh = np.meshgrid(*axes, indexing="ij")  # row-major: the last axis fastest
    stacked = np.stack([m.ravel() for m in mesh], axis=1)
    if all(a.dtype == np.int64 for a in axes):
        return stacked.astype(np.int64)
    return stacked.astype(np.float64)
