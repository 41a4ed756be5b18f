"""llama.cpp's vision-encoder rotary, ``ggml_rope_multi`` in mode ``GGML_ROPE_TYPE_VISION``
(24), through ggml's C API (issue 35 item 3).

How llama.cpp's multimodal tool calls it for Qwen2-VL and Qwen2.5-VL's vision tower
(ggml-org/llama.cpp; facts, not code):

- ``tools/mtmd/models/qwen2vl.cpp`` (``clip_graph_qwen2vl::build``, shared by
  ``PROJECTOR_TYPE_QWEN2VL`` and ``QWEN25VL``): Q and K reshaped to ``[d_head, n_head,
  n_patches]``; ``mrope_sections = {d_head/4, d_head/4, d_head/4, d_head/4}``;
  ``ggml_rope_multi(ctx0, Q, positions, nullptr, d_head/2, mrope_sections,
  GGML_ROPE_TYPE_VISION, 32768, 10000, 1, 0, 1, 32, 1)``: n_dims = d_head/2, n_ctx_orig 32768,
  freq_base 10000 (a constant, not a GGUF key), freq_scale 1, ext_factor 0, attn_factor 1,
  β_fast 32, β_slow 1. d_head = the vision hidden size / heads the converter writes from
  ``vision_config`` (1280 / 16 = 80 for Qwen2.5-VL-7B).
- ``tools/mtmd/clip.cpp`` (``clip_image_batch_encode``, ``PROJECTOR_TYPE_QWEN25VL``): the
  ``positions`` input holds four blocks of ``num_patches`` int32, ``[y, x, y, x]``: patch
  (y + dy, x + dx) of the 2 × 2 merge block at (y, x) written at row ``idx[block]·4 + ptr % 4``,
  ``idx`` the block's place in window order (windows of ``attn_window_size / patch_size / 2``
  blocks); ``PROJECTOR_TYPE_QWEN2VL``: the same without the window remap.
- ``ggml/src/ggml-cpu/ops.cpp`` (``ggml_compute_forward_rope_flt``): mode 24 asserts n_dims ==
  ne0/2; ``ggml_mrope_cache_init`` with independent sections over ne0/2 pairs: pair k's sector
  ``k mod Σsections``; sector < s0 angle ``p_0·base^(−2k/n_dims)``, s0 ≤ sector < s0 + s1
  ``p_1·base^(−2(k − s0)/n_dims)`` (θ restarts per section); ``rotate_pairs(ne0, n_dims)``
  turns (x_k, x_{k + n_dims}). So pair k < D/4 turns by y, pair D/4 + k by x, each at
  10000^(−2k/(D/2)): the preset ``qwen2.5-vl-vision``'s layout.

Positions arrive as (n, 2) (h, w) rows (the preset's ids in the encoder's token order); the
client writes them as ``[h, w, h, w]`` blocks. Shape classes: ``tokens`` (``[D, 1, n]``) and
``heads`` (``[D, 2, n]``, head 0 holding another token's values, head 1 the checked one: a
head's rows must not see the other's).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.ggml_mrope import rope_multi_call
from pespec.clients.model import Client

__all__ = ["MODE_VISION", "SHAPES", "VisionArgs", "build", "vision_args"]

MODE_VISION = 24
SHAPES = ("tokens", "heads")
_PUBLISHED = Path(__file__).resolve().parent.parent / "rope" / "published"
_SOURCES = {"qwen2.5-vl-vision": "qwen2.5-vl-7b-instruct.json"}
_N_CTX_ORIG = 32768
_FREQ_BASE = 10000.0


@dataclass(frozen=True)
class VisionArgs:
    """``ggml_rope_multi``'s arguments in llama.cpp's Qwen-VL vision graph."""

    head_dim: int
    sections: tuple[int, int, int, int]
    freq_base: float

    @property
    def n_dims(self) -> int:
        return self.head_dim // 2

    def call(self) -> tuple[int, tuple[int, int, int, int], int, int, float]:
        """(n_dims, sections, mode, n_ctx_orig, freq_base) of the call."""
        return (self.n_dims, self.sections, MODE_VISION, _N_CTX_ORIG, self.freq_base)

    def describe(self) -> str:
        """One line for the compare view."""
        return (
            f"mode={MODE_VISION} n_dims={self.n_dims} sections={list(self.sections)} "
            f"base={self.freq_base:g} n_ctx_orig={_N_CTX_ORIG} freq_scale=1 ext=0 attn=1"
        )


def vision_args(preset: str) -> VisionArgs:
    """llama.cpp's vision ``ggml_rope_multi`` arguments for ``preset`` (ValueError when not
    transcribed): d_head from the published ``vision_config``, sections d_head/4 each."""
    if preset not in _SOURCES:
        raise ValueError(f"config must be one of {', '.join(_SOURCES)} for the vision rope; "
                         f"got {preset!r}")  # fmt: skip
    config = json.loads((_PUBLISHED / _SOURCES[preset]).read_text(encoding="utf-8"))
    vision = config["vision_config"]
    d_head = int(vision["hidden_size"]) // int(vision["num_heads"])
    quarter = d_head // 4
    return VisionArgs(d_head, (quarter, quarter, quarter, quarter), _FREQ_BASE)


def vision_blocks(positions: NDArray[Any]) -> NDArray[np.int32]:
    """clip.cpp's four position blocks ``[h, w, h, w]`` of (n, 2) (h, w) rows; (4, n)."""
    p = np.asarray(positions, dtype=np.int64)
    return np.stack([p[:, 0], p[:, 1], p[:, 0], p[:, 1]]).astype(np.int32)


def ggml_rope_vision(
    x: NDArray[Any], positions: NDArray[Any], args: VisionArgs, dtype: str, shape: str = "tokens"
) -> NDArray[Any]:
    """``x`` (n, D) rotated by ggml's CPU vision rope at (h, w) ``positions`` (n, 2) in
    ``dtype`` and shape class ``shape``; (n, D) in ``dtype``."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}; got {shape!r}")
    blocks = vision_blocks(positions)
    if shape == "tokens":
        return rope_multi_call(x, blocks, args.call(), dtype)
    n, d = x.shape
    other = np.asarray(x)[(np.arange(n) + 1) % n]
    both = np.concatenate([other, np.asarray(x)], axis=1)  # head 0: another token's values
    return rope_multi_call(both, blocks, args.call(), dtype, heads=2)[:, d:]


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter (family multiaxis-rope): llama.cpp's vision ``ggml_rope_multi`` for
    the ``config`` preset; the backend takes (n, D) x and (n, 2) (h, w) positions."""
    if config is None:
        raise ValueError(f"client {client.name} needs --config (a multiaxis-rope preset)")
    args = vision_args(config)
    shape = str(client.options.get("shape", "tokens"))
    importlib.import_module("ggml")

    def backend(x: NDArray[Any], positions: NDArray[Any], chosen: Any) -> NDArray[Any]:
        if x.shape[1] != args.head_dim:
            raise ValueError(f"head_dim {x.shape[1]} differs from llama.cpp's {args.head_dim}")
        return ggml_rope_vision(x, positions, args, dtype, shape)

    return backend
