"""Correct backends built from the casts people use (SPEC §4.1 A6): the certified oracle, or a
float64 computation, stored in a narrower format by ml_dtypes, torch or NumPy.

ml_dtypes ``.astype(bfloat16)`` and torch ``.to(torch.float16 / torch.bfloat16)`` from
float64 round through float32 (two roundings); NumPy's float64 → float16 rounds once. Each is
a plain ``(positions, d_model, base) -> array``; the torch ones import torch when called.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference import oracle

RECURRENCE_ROWS = 2**17
"""Rows the float64 recurrence builds at most (positions 0 … 2^17 − 1)."""


@lru_cache(maxsize=64)
def _certified(data: bytes, dtype: str, d_model: int, base: float) -> NDArray[np.float64]:
    values: NDArray[np.float64] = oracle.encode(
        np.frombuffer(data, dtype=np.dtype(dtype)), d_model, base=base
    )
    values.flags.writeable = False
    return values


def certified(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """The oracle's correctly rounded float64 values (memoised: checks repeat positions)."""
    return _certified(positions.tobytes(), positions.dtype.str, d_model, base)


def oracle_ml_dtypes_bfloat16(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """Oracle float64 → bfloat16 with ml_dtypes ``.astype`` (rounds through float32)."""
    return certified(positions, d_model, base).astype(ml_dtypes.bfloat16)


def oracle_via_float32_float16(
    positions: NDArray[Any], d_model: int, base: float
) -> NDArray[np.float16]:
    """Oracle float64 → float32 → float16: the double rounding torch's cast performs."""
    return certified(positions, d_model, base).astype(np.float32).astype(np.float16)


def _torch_cast(values: NDArray[np.float64], dtype_name: str) -> NDArray[Any]:
    import torch

    tensor = torch.from_numpy(np.array(values)).to(getattr(torch, dtype_name))
    widened: NDArray[Any] = tensor.to(torch.float32).numpy()  # exact widening
    return widened.astype(ml_dtypes.bfloat16 if dtype_name == "bfloat16" else np.float16)


def oracle_torch_bfloat16(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """Oracle float64 tensor ``.to(torch.bfloat16)``."""
    return _torch_cast(certified(positions, d_model, base), "bfloat16")


def oracle_torch_float16(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """Oracle float64 tensor ``.to(torch.float16)``."""
    return _torch_cast(certified(positions, d_model, base), "float16")


BLOCK = 1024
"""Checkpoint spacing: the state at every multiple of BLOCK is kept, so a row costs at most
BLOCK − 1 further steps of the same recurrence (the same operations in the same order)."""


def _step(
    s: NDArray[np.float64], c: NDArray[np.float64], s1: NDArray[np.float64], c1: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(s, c)_{p+1} = (s_p·c_1 + c_p·s_1, c_p·c_1 − s_p·s_1): one angle addition in float64."""
    return s * c1 + c * s1, c * c1 - s * s1


@lru_cache(maxsize=16)
def _checkpoints(
    d_model: int, base: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(sin ω, cos ω) and the recurrence's (s, c) at rows 0, BLOCK, 2·BLOCK, … (float64)."""
    omega = np.power(float(base), -np.arange(0, d_model, 2, dtype=np.float64) / d_model)
    s1, c1 = np.sin(omega), np.cos(omega)
    s, c = np.zeros_like(omega), np.ones_like(omega)
    s_at, c_at = [], []
    for p in range(RECURRENCE_ROWS):
        if p % BLOCK == 0:
            s_at.append(s)
            c_at.append(c)
        s, c = _step(s, c, s1, c1)
    return s1, c1, np.array(s_at), np.array(c_at)


def recurrence_float64_to_float32(
    positions: NDArray[Any], d_model: int, base: float
) -> NDArray[np.float32]:
    """Rows by the float64 angle-addition recurrence from row 0 (as a table is built), cast to
    float32. Integer positions 0 … 2^17 − 1 only (raises otherwise). Sound at the float32
    level; not at the float64 level (its error grows with p: 27.6× the float64 bound was
    measured, issue 14)."""
    index = np.asarray(positions)
    outside = index.dtype.kind not in "iu" or (
        index.size > 0 and (int(index.min()) < 0 or int(index.max()) >= RECURRENCE_ROWS)
    )
    if outside:
        raise ValueError(f"positions must be integers in [0, {RECURRENCE_ROWS}); got {index!r}")
    rows = index.astype(np.int64)
    s1, c1, s_at, c_at = _checkpoints(d_model, float(base))
    s, c = s_at[rows // BLOCK].copy(), c_at[rows // BLOCK].copy()
    remaining = rows % BLOCK
    for t in range(int(remaining.max(initial=0))):
        moving = remaining > t
        s[moving], c[moving] = _step(s[moving], c[moving], s1, c1)
    out = np.empty((rows.shape[0], d_model), dtype=np.float64)
    out[:, 0::2], out[:, 1::2] = s, c
    return out.astype(np.float32)


CASTS: dict[str, tuple[Any, str]] = {
    "oracle ml_dtypes bfloat16": (oracle_ml_dtypes_bfloat16, "bfloat16@float64"),
    "oracle via float32 float16": (oracle_via_float32_float16, "float16@float64"),
    "oracle torch bfloat16": (oracle_torch_bfloat16, "bfloat16@float64"),
    "oracle torch float16": (oracle_torch_float16, "float16@float64"),
}
"""Casts of the oracle and the strict level each must pass (torch ones need torch)."""
