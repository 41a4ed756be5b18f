"""Hand ports of the 2-D sin-cos embeddings for the multi-axis tests: one correct numpy
transcription and the documented bug classes (h/w swapped, grid scaling left out, positions
in float32)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def _one_d(d: int, pos: NDArray[Any]) -> NDArray[np.float64]:
    """MAE's/diffusers' 1-D part: ω_k = 1/10000^(k/(d/2)), [sin | cos], in float64."""
    omega = np.arange(d // 2, dtype=np.float64) / (d / 2.0)
    omega = 1.0 / 10000**omega
    out = np.outer(pos.astype(np.float64), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def correct(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """[1-D of w | 1-D of h] at the positions given (h = column 0, w = column 1)."""
    d = config.d_model // 2
    return np.concatenate([_one_d(d, positions[:, 1]), _one_d(d, positions[:, 0])], axis=1)


def h_first(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """The slip: the h coordinate feeds the first half."""
    d = config.d_model // 2
    return np.concatenate([_one_d(d, positions[:, 0]), _one_d(d, positions[:, 1])], axis=1)


def correct_float32(positions: NDArray[Any], config: Any) -> NDArray[np.float32]:
    """:func:`correct` rounded to float32 (a float32-level output)."""
    return correct(positions, config).astype(np.float32)


def correct_3d(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """CogVideoX's layout: [1-D of t (D/4) | 1-D of w (3D/8) | 1-D of h (3D/8)], (t, h, w)."""
    quarter, spatial = config.d_model // 4, 3 * config.d_model // 8
    t, h, w = positions[:, 0], positions[:, 1], positions[:, 2]
    return np.concatenate([_one_d(quarter, t), _one_d(spatial, w), _one_d(spatial, h)], axis=1)


def big_vision(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """big_vision's posemb_sincos_2d transcribed at the positions given: omega =
    arange(D/4)/(D/4 − 1), [sin x | cos x | sin y | cos y], x = w."""
    quarter = config.d_model // 4
    omega = 1.0 / 10000 ** (np.arange(quarter, dtype=np.float64) / (quarter - 1))
    y = np.outer(positions[:, 0].astype(np.float64), omega)
    x = np.outer(positions[:, 1].astype(np.float64), omega)
    return np.concatenate([np.sin(x), np.cos(x), np.sin(y), np.cos(y)], axis=1)


def timm_float32(positions: NDArray[Any], config: Any) -> NDArray[np.float32]:
    """timm's build_sincos2d_pos_embed transcribed in float32 at the positions given:
    bands 1/10000^(k/(D/4)) in float32, [sin h | sin w | cos h | cos w]."""
    quarter = config.d_model // 4
    exponent = np.arange(quarter, dtype=np.float32) / np.float32(quarter)
    bands = np.float32(1.0) / np.float32(10000.0) ** exponent
    pos = positions.astype(np.float32)[:, :, None] * bands[None, None, :]  # (n, 2, D/4)
    return np.stack([np.sin(pos), np.cos(pos)], axis=1).reshape(len(positions), -1)


def cogvideox_permuted(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """The sections permuted: [w (3D/8) | h (3D/8) | t (D/4)] instead of [t | w | h]."""
    quarter, spatial = config.d_model // 4, 3 * config.d_model // 8
    t, h, w = positions[:, 0], positions[:, 1], positions[:, 2]
    return np.concatenate([_one_d(spatial, w), _one_d(spatial, h), _one_d(quarter, t)], axis=1)


def cogvideox_thirds(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """The t/h/w split computed another way: D/3 each, order [t | w | h] kept."""
    third = config.d_model // 3
    t, h, w = positions[:, 0], positions[:, 1], positions[:, 2]
    return np.concatenate([_one_d(third, t), _one_d(third, w), _one_d(third, h)], axis=1)


def bfloat16_positions(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """:func:`correct` with the grid coordinates cast to bfloat16 first (autocast)."""
    import ml_dtypes

    low = positions.astype(np.float64).astype(ml_dtypes.bfloat16).astype(np.float64)
    return correct(low, config)


def mae_cls_table(dim: int, size: int) -> NDArray[np.float64]:
    """MAE's get_2d_sincos_pos_embed(dim, size, cls_token=True) transcribed: a row of zeros,
    then the grid rows (h-major), each [1-D of w | 1-D of h]."""
    h, w = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    grid = np.stack([h.ravel(), w.ravel()], axis=1)
    half = dim // 2
    body = np.concatenate([_one_d(half, grid[:, 1]), _one_d(half, grid[:, 0])], axis=1)
    return np.concatenate([np.zeros((1, dim)), body], axis=0)


def mae_cls_unskipped(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """The cls offset: MAE's cls_token=True table indexed by h·W + w without skipping the
    leading zeros row (row r of the answer is grid row r − 1)."""
    table = mae_cls_table(config.d_model, 14)
    p = np.asarray(positions).astype(np.int64)
    return table[p[:, 0] * 14 + p[:, 1]]
