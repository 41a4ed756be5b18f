"""Shape classes of the flattened-token engines, vLLM and SGLang (issue 35 item 8).

Both engines call their rotary op on ``[tokens, heads·head_dim]`` with a ``positions``
tensor holding each token's own position. Besides one call on the check's rows
(``tokens``: a prefill) two shape classes are built here, shared by both adapters:

- ``offsets``: the decode phase. The n rows are :data:`DECODE_BATCH` sequences (contiguous
  runs of the check's positions, so each sequence starts at its own position, not 0), and
  each call is one decode step: one token of every sequence that has one left, each at its
  own position (a ``[B, heads·head_dim]`` call, B ≤ :data:`DECODE_BATCH`).
- ``compiled``: the op's ``forward_native`` under ``torch.compile`` (what the engine's
  compiled model runs), one call on the check's rows.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["DECODE_BATCH", "SHAPES", "compiled", "decode_steps", "run_shape"]

DECODE_BATCH = 8
"""Sequences decoded together in the ``offsets`` class."""
SHAPES = ("tokens", "offsets", "compiled")
"""The shape classes :func:`run_shape` knows (vLLM's adapter adds ``view`` and ``heads``)."""


def decode_steps(n: int, batch: int = DECODE_BATCH) -> list[NDArray[np.intp]]:
    """Row indices of each decode step: rows ``0..n-1`` split into ``batch`` contiguous
    sequences; step s holds row s of every sequence that has one."""
    sequences = np.array_split(np.arange(n, dtype=np.intp), max(1, min(batch, n)))
    steps = max((len(s) for s in sequences), default=0)
    return [np.array([s[k] for s in sequences if k < len(s)], dtype=np.intp) for k in range(steps)]


def compiled(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` under ``torch.compile`` with a dynamic token dimension (as vLLM compiles
    a model: Inductor, ``custom_ops`` 'none' so the rotary op is its ``forward_native``)."""
    torch = importlib.import_module("torch")
    return torch.compile(method, dynamic=True)  # type: ignore[no-any-return]


def run_shape(
    call: Callable[[Any, Any], Any], data: Any, positions: Any, shape: str, token_axis: int = 0
) -> Any:
    """``call(positions, data)`` (a rotated ``[tokens, width]`` tensor) in shape class
    ``shape``: one call (``tokens``, ``compiled``) or one call per decode step (``offsets``);
    ``token_axis``: the axis of ``positions`` indexing tokens (M-RoPE: ``[3, tokens]``, 1)."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}; got {shape!r}")
    if shape != "offsets":
        return call(positions, data)
    torch = importlib.import_module("torch")
    out = torch.empty_like(data)
    for rows in decode_steps(int(data.shape[0])):
        index = torch.from_numpy(rows)
        step = call(positions.index_select(token_axis, index), data.index_select(0, index))
        out[index] = step.to(out.dtype)
    return out
