"""The position ids multi-axis rotary models build, so users need not (SPEC §9.7).

Qwen2-VL (transformers ``get_rope_index``): a text token at sequence index i has
(t, h, w) = (i, i, i) after the previous block's largest id + 1; a vision block of
(T, H, W) merged patches starting at s has (s + t·step, s + h, s + w), row-major
(t slowest, w fastest); the text after it continues from the block's largest id + 1.
Qwen2.5-VL multiplies t by ``tokens_per_second · second_per_grid_t`` (``t_step``, an
integer there after truncation; 1 for images). Flux (diffusers ``_prepare_latent_image_ids``):
image tokens (0, i_h, i_w) over the packed latent grid, text tokens (0, 0, 0).
Qwen2-VL / Qwen2.5-VL vision encoder (transformers 5.24 ``vision_utils.
get_vision_position_ids`` and ``get_vision_window_index``): patch (h, w) in blocks of
``merge`` × ``merge`` patches (the merger's), blocks row-major; Qwen2.5-VL then reorders the
blocks window by window (``window`` × ``window`` blocks each, windows row-major, blocks
row-major inside).
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import NDArray

__all__ = ["flux_positions", "qwen_vision_positions", "qwen_vl_positions", "vision_grid"]


def _count(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low:
        raise ValueError(f"{name} must be an int >= {low}; got {value!r}")
    return int(value)


def vision_grid(sizes: tuple[int, ...], start: int = 0, t_step: int = 1) -> NDArray[np.int64]:
    """A (T, H, W) block at ``start``: rows (start + t·t_step, start + h, start + w), shape
    (T·H·W, 3), t slowest."""
    t_size, h_size, w_size = (_count(f"grid[{i}]", v, 1) for i, v in enumerate(sizes))
    t, h, w = np.meshgrid(
        np.arange(t_size, dtype=np.int64) * _count("t_step", t_step, 0),
        np.arange(h_size, dtype=np.int64),
        np.arange(w_size, dtype=np.int64),
        indexing="ij",
    )
    return np.stack([t.ravel(), h.ravel(), w.ravel()], axis=1) + _count("start", start, 0)


def qwen_vl_positions(
    text_before: int, grid: tuple[int, int, int], text_after: int = 0, t_step: int = 1
) -> NDArray[np.int64]:
    """``text_before`` text tokens, one vision block of ``grid`` = (T, H, W) merged
    patches, ``text_after`` text tokens: the (n, 3) Qwen-VL position ids."""
    before = _count("text_before", text_before, 0)
    head = np.repeat(np.arange(before, dtype=np.int64)[:, None], 3, axis=1)
    block = vision_grid(grid, start=before, t_step=t_step)
    after_start = int(block.max()) + 1
    tail = np.arange(after_start, after_start + _count("text_after", text_after, 0), dtype=np.int64)
    return np.concatenate([head, block, np.repeat(tail[:, None], 3, axis=1)])


def flux_positions(height: int, width: int, text: int = 0) -> NDArray[np.int64]:
    """Flux's ids: ``text`` rows (0, 0, 0) then the (height × width) latent patches
    (0, i_h, i_w), w fastest; shape (text + height·width, 3)."""
    grid = vision_grid((1, height, width))
    return np.concatenate([np.zeros((_count("text", text, 0), 3), dtype=np.int64), grid])


def qwen_vision_positions(
    height: int, width: int, merge: int = 2, window: int | None = None
) -> NDArray[np.int64]:
    """The (h, w) of each patch of a ``height`` × ``width`` patch grid in the Qwen-VL vision
    encoder's token order: ``merge`` × ``merge`` blocks (w fastest inside), and with
    ``window`` (Qwen2.5-VL's window attention) the blocks grouped window by window, edge
    windows cut short; shape (height·width, 2)."""
    m = _count("merge", merge, 1)
    h_size, w_size = _count("height", height, 1), _count("width", width, 1)
    if h_size % m or w_size % m:
        raise ValueError(f"the patch grid {h_size} × {w_size} must be a multiple of merge {m}")
    bh, bw = h_size // m, w_size // m
    blocks = [(i, j) for i in range(bh) for j in range(bw)]
    if window is not None:
        size = _count("window", window, 1)
        blocks = sorted(blocks, key=lambda b: (b[0] // size, b[1] // size, b[0], b[1]))
    rows = [(i * m + dy, j * m + dx) for i, j in blocks for dy in range(m) for dx in range(m)]
    return np.array(rows, dtype=np.int64)
