"""Ports of OpenAI Whisper's ``model.sinusoids`` to pespec's calling convention, one correct
and one per bug a port makes (for the declared-convention tests).

``whisper_port`` is the published formula at float32 (log_timescale_increment =
ln(base)/(d/2 − 1), inv_timescales = exp(−increment·k), concat([sin, cos])), evaluated at
the requested positions. The others change one thing: interleaved columns, shift 0 instead
of 1 (which is Marian's convention), positions counted from 2 (fairseq's offset), the
positions cast to bfloat16 before the embedding (as diffusion pipelines cast timesteps), or
the whole computation in float16. Module-level functions, so that reproductions can rebuild
them as ``catalog.ports:NAME``.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray


def _sinusoids(
    positions: NDArray[Any],
    d_model: int,
    base: float,
    *,
    shift: int = 1,
    offset: int = 0,
    interleave: bool = False,
    dtype: Any = np.float32,
    positions_in: Any = None,
) -> NDArray[np.float32]:
    half = d_model // 2
    increment = dtype(np.log(base) / (half - shift))
    inv_timescales = np.exp(-increment * np.arange(half, dtype=dtype))
    p = np.asarray(positions, dtype=np.float64) + offset
    if positions_in is not None:
        p = p.astype(positions_in)
    scaled = p.astype(dtype)[:, None] * inv_timescales[None, :]
    with np.errstate(invalid="ignore"):
        sin, cos = np.sin(scaled), np.cos(scaled)
    if interleave:
        out = np.empty((len(p), d_model), dtype=dtype)
        out[:, 0::2], out[:, 1::2] = sin, cos
    else:
        out = np.concatenate([sin, cos], axis=1)
    return out.astype(np.float32)


def whisper_port(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """A correct float32 port."""
    return _sinusoids(positions, d_model, base)


def wrong_layout(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """sin/cos interleaved instead of halves."""
    return _sinusoids(positions, d_model, base, interleave=True)


def shift_zero(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """ln(base)/(d/2) instead of ln(base)/(d/2 − 1): the marian convention."""
    return _sinusoids(positions, d_model, base, shift=0)


def offset_two(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """Positions counted from padding_idx + 1 = 2: the fairseq convention."""
    return _sinusoids(positions, d_model, base, offset=2)


def bfloat16_timesteps(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """Positions cast to bfloat16 first, then everything in float32."""
    return _sinusoids(positions, d_model, base, positions_in=ml_dtypes.bfloat16)


def float16_angles(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float32]:
    """The whole formula in float16 (a half-precision model), returned as float32."""
    return _sinusoids(positions, d_model, base, dtype=np.float16)
