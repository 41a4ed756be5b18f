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

The packed (varlen) layout of the kernels that take ``cu_seqlens`` (flash-attn's rotary,
TransformerEngine's ``thd``): :func:`pack_from_zero` (every sequence from position 0) and
:func:`pack_with_offsets` (each sequence from its own offset).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DECODE_BATCH",
    "PACKED_SEQUENCES",
    "SHAPES",
    "compiled",
    "decode_steps",
    "pack_from_zero",
    "pack_with_offsets",
    "run_shape",
]

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
        index = torch.from_numpy(rows).to(data.device)  # a CUDA row's data is on the GPU
        step = call(positions.index_select(token_axis, index), data.index_select(0, index))
        out[index] = step.to(out.dtype)
    return out


PACKED_SEQUENCES = 4
"""Sequences packed in one ``[total, H, D]`` tensor in the ``varlen`` shape classes (the
check's rows split into this many contiguous chunks)."""


def _chunks(n: int) -> list[NDArray[np.intp]]:
    return [c for c in np.array_split(np.arange(n, dtype=np.intp), PACKED_SEQUENCES) if len(c)]


def pack_from_zero(positions: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[np.int32]]:
    """(slot of each row in the packed tensor, cu_seqlens) for packed sequences whose
    positions all start at 0 (a packed prefill, ``seqlen_offsets`` 0): a row at position p is
    token p of its sequence; the rows of each chunk share a sequence unless two hold one
    position (the k-th occurrence goes to the chunk's k-th sequence); a sequence is as long
    as its largest position + 1, the tokens no row takes are zeros."""
    pos = np.asarray(positions, dtype=np.int64)
    slots = np.zeros(len(pos), dtype=np.intp)
    lengths: list[int] = []
    for chunk in _chunks(len(pos)):
        seen: dict[int, int] = {}
        members: list[list[int]] = []
        for row in chunk:
            k = seen.get(int(pos[row]), 0)
            seen[int(pos[row])] = k + 1
            members.extend([] for _ in range(k + 1 - len(members)))
            members[k].append(int(row))
        for rows in members:
            start = sum(lengths)
            slots[rows] = start + pos[rows]
            lengths.append(int(pos[rows].max()) + 1)
    cu = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return slots, cu


def pack_with_offsets(positions: NDArray[Any]) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """(cu_seqlens, seqlen_offsets) packing the rows in their order as sequences of
    consecutive positions, each starting at its own offset (a decode or chunked prefill after
    earlier tokens): each chunk split where a position is not its predecessor's + 1."""
    pos = np.asarray(positions, dtype=np.int64)
    starts: list[int] = []
    for chunk in _chunks(len(pos)):
        breaks = np.flatnonzero(np.diff(pos[chunk]) != 1) + 1
        starts.extend(int(chunk[0]) + int(b) for b in (0, *breaks))
    cu = np.array([*starts, len(pos)], dtype=np.int32)
    return cu, pos[starts].astype(np.int32)
