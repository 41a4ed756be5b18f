"""The exact float64 rotary reference (SPEC Annex C.6): cos/sin and rotation within a proved bound.

The angles φ_j(p) = p·ω'_j are evaluated with the exact angle kernel of SPEC Annex C
(:mod:`pespec.numerics.turns`, :mod:`pespec.numerics.rotation`): ω'_j as a certified
double-double from the rotary oracle, divided by 2π in exact integer arithmetic and cut into
26-bit pieces, the angle reduced in turns without error, sin and cos from a table and short
polynomials, and consecutive integer positions by the block rotation. Only the pieces differ
from Annex C (they carry ω'_j instead of base^(−k/(d/2 − s))), so Annex C's theorem applies:
each cos and sin is within 2^-52 of the correctly rounded value for |p·ω'_j| ≤ 2^40.

The rotation is then, per pair, y_a = fl(Ã·fl(fl(a·c) − fl(b·s))) and
y_b = fl(Ã·fl(fl(a·s) + fl(b·c))) with Ã = A rounded (the multiplication skipped when Ã = 1);
:func:`rotation_bound` states its error (the proof is in SPEC Annex C.6).

Shapes: positions (n,) (or any shape for :func:`cos_sin`); x (n, head_dim) or
(..., n, head_dim); outputs float64.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.rotation import GRID, SIN_COS_HALVES, Rotator, fill_positions
from pespec.numerics.turns import cut_turn_pieces
from pespec.numerics.validation import check_positions
from pespec.rope.config import RopeConfig
from pespec.rope.oracle import attention_factor, frequencies_dd
from pespec.rope.xpos import element_scales, reference_scale_error

__all__ = ["COS_SIN_BOUND", "MAX_PHASE", "cos_sin", "pair_views", "rotate", "rotation_bound"]

F64 = NDArray[np.float64]

MAX_PHASE: Final = 2.0**40
"""|p|·max(1, max_j ω'_j) must not exceed this (the domain of SPEC Annex C's theorem)."""

COS_SIN_BOUND: Final = 2.0**-52
"""|cos_sin − oracle| ≤ this for every element (SPEC Annex C; 2^-52 + 2^-54 to the exact)."""

_U: Final = 2.0**-53
_ROTATE_ELEMENTS: Final = 1 << 15
"""Pairs per chunk of the rotation (rows × pairs × leading size): 256 KiB per temporary."""


def _check_config(config: Any) -> RopeConfig:
    if not isinstance(config, RopeConfig):
        raise TypeError(f"config must be a pespec.rope.RopeConfig; got {type(config).__name__}")
    return config


@lru_cache(maxsize=32)
def _turn_pieces(config: RopeConfig) -> F64:
    """|ω'_j|/(2π) as 5 truncated 26-bit pieces, shape (d_r/2, 5), like SPEC Annex C.3 step 1."""
    hi, lo = frequencies_dd(config)
    return cut_turn_pieces(hi, lo)


@lru_cache(maxsize=16)
def _rotator(config: RopeConfig) -> Rotator:
    """SPEC Annex C's block rotation on the pieces of ω'_j, sines then cosines of the pairs."""
    rotator = Rotator(_turn_pieces(config), SIN_COS_HALVES)
    rotator.freeze_fine()
    return rotator


def _check_phase(p: NDArray[Any], config: RopeConfig) -> None:
    if p.size == 0:
        return
    largest = float(np.max(np.abs(p)))
    omega_max = max(1.0, float(frequencies_dd(config)[0].max()))
    if largest * omega_max > MAX_PHASE:
        raise ValueError(
            f"positions must satisfy |p|·max(1, max ω') <= 2**40 for the float64 rotary "
            f"reference; got |p| = {largest:g} with max ω' = {omega_max:g} "
            f"(use pespec.rope.oracle beyond)"
        )


def cos_sin(positions: Any, config: RopeConfig) -> tuple[F64, F64]:
    """(cos φ_j(p), sin φ_j(p)), each (*positions.shape, d_r/2), within 2^-52 of the oracle.

    A is not applied. Each element depends on its position alone, bit for bit.
    """
    config = _check_config(config)
    p = check_positions(positions)
    _check_phase(p, config)
    half = config.d_r // 2
    table = np.empty((p.size, 2 * half), dtype=np.float64)
    fill_positions(table, p.reshape(-1), _rotator(config))
    return (table[:, half:].reshape((*p.shape, half)), table[:, :half].reshape((*p.shape, half)))


def _check_x(x: Any, config: RopeConfig) -> F64:
    values = np.asarray(x)
    if values.dtype.kind not in "f" or values.ndim < 2 or values.shape[-1] != config.head_dim:
        raise ValueError(
            f"x must be a float array of shape (n, head_dim) or "
            f"(..., n, head_dim) with head_dim={config.head_dim}; got dtype "
            f"{values.dtype}, shape {values.shape}"
        )
    result: F64 = values.astype(np.float64, copy=False)
    if not np.all(np.isfinite(result)):
        raise ValueError("x must be finite (got NaN or inf)")
    return result


def pair_views(array: F64, config: RopeConfig, output: bool) -> tuple[F64, F64]:
    """The (a_j, b_j) columns of ``array`` for the input (output=False) or output layout."""
    d_r, half = config.d_r, config.d_r // 2
    layout = config.output_pairing if output else config.input_pairing
    if layout == "interleaved":
        return array[..., 0:d_r:2], array[..., 1:d_r:2]
    return array[..., :half], array[..., half:d_r]


def rotate(x: Any, positions: Any, config: RopeConfig) -> F64:
    """Rotated x (SPEC §8.1): x (n, head_dim) or (..., n, head_dim), positions (n,).

    Each component is within :func:`rotation_bound` of the exact value; components
    k ≥ d_r are copied unchanged.
    """
    config = _check_config(config)
    values = _check_x(x, config)
    p = check_positions(positions)
    if p.shape != (values.shape[-2],):
        raise ValueError(
            f"positions must have shape (n,) = ({values.shape[-2]},) to match x; "
            f"got shape {p.shape}"
        )
    _check_phase(p, config)
    attention = attention_factor(config)
    rotator, half = _rotator(config), config.d_r // 2
    out = np.empty(values.shape, dtype=np.float64)
    out[..., config.d_r :] = values[..., config.d_r :]
    a_all, b_all = pair_views(values, config, output=False)
    ya_all, yb_all = pair_views(out, config, output=True)
    n = values.shape[-2]
    rows = max(1, _ROTATE_ELEMENTS // (half * max(1, values[..., 0, 0].size)))
    rows = max(GRID, rows // GRID * GRID)
    table = np.empty((min(n, rows), 2 * half), dtype=np.float64)
    tmp = np.empty((*values.shape[:-2], min(n, rows), half), dtype=np.float64)
    for r0 in range(0, n, rows):  # chunks of rows: the temporaries stay in cache
        r1 = min(n, r0 + rows)
        part = table[: r1 - r0]
        fill_positions(part, p[r0:r1], rotator)
        sin, cos = part[:, :half], part[:, half:]
        a, b = a_all[..., r0:r1, :], b_all[..., r0:r1, :]
        y_a, y_b, t = ya_all[..., r0:r1, :], yb_all[..., r0:r1, :], tmp[..., : r1 - r0, :]
        np.multiply(a, cos, out=y_a)
        np.multiply(b, sin, out=t)
        np.subtract(y_a, t, out=y_a)
        np.multiply(a, sin, out=y_b)
        np.multiply(b, cos, out=t)
        np.add(y_b, t, out=y_b)
        if attention != 1.0:
            np.multiply(y_a, attention, out=y_a)
            np.multiply(y_b, attention, out=y_b)
    if config.xpos_scale_base is not None:  # σ̂_j(p) on each pair (SPEC Annex J)
        out *= element_scales(p, config)
    return out


def rotation_bound(x: Any, config: RopeConfig, positions: Any = None) -> F64:
    """Per-component bound on |rotate − exact| (SPEC Annex C.6), same shape as x.

    With xPos the positions are needed (σ_j(p) scales the bound; SPEC Annex J).

    For the output of pair j: 8u·A·‖(a_j, b_j)‖₂ + 2^-1071·max(1, A) (u = 2^-53, A the
    exact attention factor, bounded here by its float64 times 1 + 2u); 0 for k ≥ d_r.
    """
    config = _check_config(config)
    values = _check_x(x, config)
    a, b = pair_views(values, config, output=False)
    attention = attention_factor(config) * (1 + 2 * _U)
    pair = 8 * _U * attention * np.hypot(a, b) * (1 + 2 * _U) + 2.0**-1071 * max(1.0, attention)
    bound = np.zeros(values.shape, dtype=np.float64)
    y_a, y_b = pair_views(bound, config, output=True)
    y_a[...] = pair
    y_b[...] = pair
    if positions is None and config.xpos_scale_base is not None:
        raise ValueError("positions must be given for an xPos configuration (σ_j(p) scales it)")
    return bound if positions is None else _xpos_bound(bound, values, positions, config)


def _xpos_bound(bound: F64, values: F64, positions: Any, config: RopeConfig) -> F64:
    """With xPos: σ̂(1 + ε)·bound + (ε + u)(1 + ε)·σ̂·A·‖(a_j, b_j)‖₂ (σ̂ within ε·σ of σ,
    then one rounding of the product; SPEC Annex J)."""
    if config.xpos_scale_base is None:
        return bound
    sigma = element_scales(positions, config)
    eps = np.ones_like(sigma)
    a, b = pair_views(values, config, output=False)
    magnitude = np.zeros(values.shape, dtype=np.float64)
    m_a, m_b = pair_views(magnitude, config, output=True)
    m_a[...] = m_b[...] = attention_factor(config) * (1 + 2 * _U) * np.hypot(a, b)
    e_a, e_b = pair_views(eps, config, output=True)
    e_a[...] = e_b[...] = reference_scale_error(positions, config)
    relative = (1 + eps) * (1 + 2 * _U)
    out: F64 = sigma * relative * (bound + (eps + _U) * magnitude)
    return out
