"""An independent mpmath transcription (400 bits) of a Wan-style table read with another
split: diffusers 0.42.1 ``ChronoEditRotaryPosEmbed`` builds its cos/sin table with the
``__init__`` dims [t, h, w] (each ``get_1d_rotary_pos_embed(dim, …, repeat_interleave_real=
True)``: column c of axis block i holds frequency θ^(−2⌊l/2⌋/d_i), l = c − start_i) and
``forward`` reads column c at the coordinate of the axis whose ``split_sizes`` chunk holds c.
The processor takes cos from column 2s and sin from column 2s + 1 of pair s:
(x_{2s}, x_{2s+1}) → (x_{2s}·cos − x_{2s+1}·sin, x_{2s}·sin + x_{2s+1}·cos).
Where the two splits agree this is Wan's rotary; where not, cos and sin of one pair can
come from different angles. Each output is the exact value rounded once to float64.
"""

from __future__ import annotations

from collections.abc import Sequence

import mpmath

PREC = 400


def _owner(c: int, sizes: Sequence[int]) -> tuple[int, int]:
    """(block, local column) of column c in blocks of ``sizes``."""
    start = 0
    for block, size in enumerate(sizes):
        if c < start + size:
            return block, c - start
        start += size
    raise ValueError(c)


def split_row(
    x: Sequence[float],
    pos: Sequence[int],
    theta: float,
    built: Sequence[int],
    read: Sequence[int],
) -> list[float]:
    """One rotated row: table built with dims ``built``, column c read at the coordinate of
    its chunk in ``read``."""
    out = [0.0] * len(x)
    with mpmath.workprec(PREC):

        def angle(c: int) -> mpmath.mpf:
            block, local = _owner(c, built)
            omega = mpmath.power(mpmath.mpf(theta), -mpmath.mpf(2 * (local // 2)) / built[block])
            return mpmath.mpf(int(pos[_owner(c, read)[0]])) * omega

        for s in range(len(x) // 2):
            c, sn = mpmath.cos(angle(2 * s)), mpmath.sin(angle(2 * s + 1))
            a, b = mpmath.mpf(x[2 * s]), mpmath.mpf(x[2 * s + 1])
            out[2 * s], out[2 * s + 1] = float(a * c - b * sn), float(a * sn + b * c)
    return out
