"""A t/h/w head split computed two ways: the table built with one split, read with another.

diffusers' ``WanRotaryPosEmbed`` builds its cos/sin table with h = w = 2⌊D/6⌋, t = D − h − w
(:func:`~pespec.multiaxis.rope.video.wan_axes_dim`); ChronoEdit's copy
(``transformer_chronoedit.py``)
splits the same table in ``forward`` by [D − 2⌊D/3⌋, ⌊D/3⌋, ⌊D/3⌋]
(:func:`~pespec.multiaxis.rope.video.wan_forward_split`): column c keeps the frequency of the block
it
was built in and takes the coordinate of the axis whose chunk it is read in. The two agree for
D ≡ 0, 2 (mod 6); for D ≡ 4 a pair's cos (even column) and sin (odd column) can come from two
axes, which is no rotation, so no configuration of §9.7 reproduces it. This module gives its
exact value so the diagnosis can name it (SPEC Annex K.2).

Shapes: x (n, D), positions (n, 3); output (n, D) float64, adjacent pairs (2s, 2s + 1) out
as (a·cos φ_{2s} − b·sin φ_{2s+1}, a·sin φ_{2s+1} + b·cos φ_{2s}), WanAttnProcessor's apply.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.rope.config import MultiAxisRopeConfig
from pespec.multiaxis.rope.video import wan_axes_dim, wan_forward_split
from pespec.rope import reference

__all__ = ["misread_apply", "other_split"]

F64 = NDArray[np.float64]


def _dims(config: MultiAxisRopeConfig) -> tuple[int, ...] | None:
    """The per-axis dims (t, h, w) of an adjacent-pairs per-axis rotary in slot order, or
    None when ``config`` is not one."""
    sections = sorted(config.sections, key=lambda s: min(s.slots))
    if config.axes != 3 or config.pairing != "interleaved" or len(sections) != 3:
        return None
    start = 0
    for axis, s in enumerate(sections):
        half = s.rope.d_r // 2
        whole = s.pairs == tuple(range(half)) and s.slots == tuple(range(start, start + half))
        if s.axis != axis or s.rope.pairing != "interleaved" or not whole:
            return None
        start += half
    return tuple(s.rope.head_dim for s in sections)


def other_split(config: MultiAxisRopeConfig) -> tuple[str, tuple[int, ...]] | None:
    """(the neighbour's name, the split it reads with) when ``config`` is Wan's split of its
    head and the other formula gives another one; else None."""
    dims, d = _dims(config), config.head_dim
    if dims is None or d < 6 or dims != wan_axes_dim(d) or wan_forward_split(d) == dims:
        return None
    read = wan_forward_split(d)
    name = (
        f"the t/h/w split computed the other way (the table built as {', '.join(map(str, dims))}"
        f" = D − 2·2⌊D/6⌋, 2⌊D/6⌋, 2⌊D/6⌋, read as {', '.join(map(str, read))} = D − 2⌊D/3⌋,"
        f" ⌊D/3⌋, ⌊D/3⌋ at D {d}: diffusers Wan's two formulas, ChronoEdit's forward)"
    )
    return name, read


def _block(column: int, sizes: tuple[int, ...]) -> tuple[int, int]:
    """(block, column within it) of ``column`` in consecutive blocks of ``sizes``."""
    for block, size in enumerate(sizes):
        if column < size:
            return block, column
        column -= size
    raise ValueError(f"column {column} is past the head of {sum(sizes)} columns")


def misread_apply(
    x: F64, positions: NDArray[Any], config: MultiAxisRopeConfig, read: tuple[int, ...]
) -> F64:
    """The output of ``config``'s table read with the split ``read``: cos/sin of each column
    from the exact reference (within 2^-52 each), products and sums in float64."""
    built = tuple(s.rope.head_dim for s in sorted(config.sections, key=lambda s: min(s.slots)))
    ropes = [s.rope for s in sorted(config.sections, key=lambda s: min(s.slots))]
    tables = {
        (b, a): reference.cos_sin(np.ascontiguousarray(positions[:, a]), ropes[b])
        for b in range(3)
        for a in range(3)
    }
    out = np.empty_like(x, dtype=np.float64)
    for s in range(config.head_dim // 2):
        block, local = _block(2 * s, built)
        cos = tables[(block, _block(2 * s, read)[0])][0][:, local // 2]
        sin = tables[(block, _block(2 * s + 1, read)[0])][1][:, local // 2]
        a, b = x[:, 2 * s], x[:, 2 * s + 1]
        out[:, 2 * s], out[:, 2 * s + 1] = a * cos - b * sin, a * sin + b * cos
    return out
