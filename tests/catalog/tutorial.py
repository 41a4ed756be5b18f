"""Realistic backends built on the tutorial ``PositionalEncoding`` module.

The module is the one of countless tutorials: a buffer of ``max_len`` rows,
``div_term = exp(arange(0, d, 2)·(−ln 10000/d))``, sin in even and cos in odd columns,
computed in the dtype the model is built in. The backends adapt it to pespec's calling
convention by looking rows up: in float32; in a float16/bfloat16 model (the keras-hub/HF
bug: angles formed in the model dtype); or in float32 cast afterwards (correct).

``torch_*`` use the torch module itself (torch imported when called); ``numpy_*`` are the
same computation in NumPy (element by element the same formula, one row per requested
position, so no 5000-row table is built; a position outside the table raises IndexError and
a negative one wraps around, as indexing the buffer does). Module-level functions, so that
reproductions can rebuild them as ``catalog.tutorial:NAME``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

MAX_LEN = 5000

TABLE_CAPABILITIES: dict[str, Any] = {
    "integer_positions_only": True,
    "non_negative_positions": True,
    "max_position": MAX_LEN - 1,
    "bases": [10000.0],
}
"""What a table of MAX_LEN rows at base 10000 can honestly declare."""


@functools.cache
def _module_class() -> Any:
    import torch
    from torch import nn

    class PositionalEncoding(nn.Module):
        """The tutorial module, with the dtype of the model it is built in."""

        pe: torch.Tensor

        def __init__(self, d_model: int, max_len: int = MAX_LEN, dtype: Any = None) -> None:
            super().__init__()
            dtype = dtype or torch.float32
            pe = torch.zeros(max_len, d_model, dtype=dtype)
            position = torch.arange(0, max_len).unsqueeze(1).to(dtype)
            div_term = torch.exp(
                torch.arange(0, d_model, 2).to(dtype) * -(math.log(10000.0) / d_model)
            )
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe.unsqueeze(0))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + self.pe[:, : x.size(1)]

    return PositionalEncoding


def _torch_rows(positions: NDArray[Any], d_model: int, dtype_name: str) -> Any:
    import torch

    table = _module_class()(d_model, dtype=getattr(torch, dtype_name)).pe[0]
    return table[torch.from_numpy(np.asarray(positions)).long()]


def torch_float32(positions: NDArray[Any], d_model: int, base: float) -> Any:
    """float32 rows of the torch buffer, without capabilities (fractional positions truncate)."""
    return _torch_rows(positions, d_model, "float32")


def torch_float16_model(positions: NDArray[Any], d_model: int, base: float) -> Any:
    """The torch module built in a float16 model: angles computed in float16 (the bug)."""
    return _torch_rows(positions, d_model, "float16")


def torch_bfloat16_model(positions: NDArray[Any], d_model: int, base: float) -> Any:
    """The torch module built in a bfloat16 model: angles computed in bfloat16 (the bug)."""
    return _torch_rows(positions, d_model, "bfloat16")


def torch_float16_cast(positions: NDArray[Any], d_model: int, base: float) -> Any:
    """float32 torch buffer cast to float16 when used (correct)."""
    import torch

    return _torch_rows(positions, d_model, "float32").to(torch.float16)


def torch_bfloat16_cast(positions: NDArray[Any], d_model: int, base: float) -> Any:
    """float32 torch buffer cast to bfloat16 when used (correct)."""
    import torch

    return _torch_rows(positions, d_model, "float32").to(torch.bfloat16)


def _numpy_rows(positions: NDArray[Any], d_model: int, dtype: Any) -> NDArray[Any]:
    index = np.asarray(positions).astype(np.int64)  # truncates, as .long() does
    outside = index[(index >= MAX_LEN) | (index < -MAX_LEN)]
    if outside.size:
        raise IndexError(f"index {outside[0]} is out of bounds for dimension 0 with size {MAX_LEN}")
    index = np.where(index < 0, index + MAX_LEN, index)
    position = index.astype(dtype)[:, None]
    step = np.asarray(-(math.log(10000.0) / d_model)).astype(dtype)
    div_term = np.exp(np.arange(0, d_model, 2).astype(dtype) * step)
    pe = np.zeros((index.shape[0], d_model), dtype=dtype)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def numpy_float32(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """float32 rows, without capabilities (fractional positions truncate)."""
    return _numpy_rows(positions, d_model, np.float32)


def numpy_float32_declared(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """float32 rows, declaring what a table supports."""
    return _numpy_rows(positions, d_model, np.float32)


def numpy_float16_model(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """Built in a float16 model: every operation rounds to float16 (the bug)."""
    return _numpy_rows(positions, d_model, np.float16)


def numpy_bfloat16_model(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """Built in a bfloat16 model: every operation rounds to bfloat16 (the bug)."""
    return _numpy_rows(positions, d_model, ml_dtypes.bfloat16)


for _backend in (
    numpy_float32_declared,
    numpy_float16_model,
    numpy_bfloat16_model,
    torch_float16_model,
    torch_bfloat16_model,
    torch_float16_cast,
    torch_bfloat16_cast,
):
    _backend.pespec_capabilities = dict(TABLE_CAPABILITIES)  # type: ignore[attr-defined]
