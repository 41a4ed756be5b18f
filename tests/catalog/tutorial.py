"""Realistic torch backends built on the tutorial ``PositionalEncoding`` module.

The module is the one of countless tutorials (seed 003): a float32 buffer of ``max_len`` rows,
``div_term = exp(arange(0, d, 2)·(−ln 10000/d))``, sin in even and cos in odd columns. The
backends adapt it to pespec's calling convention by looking rows up, in the model dtype
(the keras-hub/HF bug: float16/bfloat16 angles) or in float32 cast afterwards (correct).
Module-level functions, so that reproductions can rebuild them as ``tutorial:NAME``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

MAX_LEN = 5000

TABLE_CAPABILITIES: dict[str, Any] = {
    "integer_positions_only": True,
    "non_negative_positions": True,
    "max_position": MAX_LEN - 1,
    "bases": [10000.0],
}
"""What a table of MAX_LEN rows at base 10000 can honestly declare."""


class PositionalEncoding(nn.Module):
    """The tutorial module, with the dtype of the model it is built in."""

    pe: torch.Tensor

    def __init__(self, d_model: int, max_len: int = MAX_LEN, dtype: Any = torch.float32) -> None:
        super().__init__()
        pe = torch.zeros(max_len, d_model, dtype=dtype)
        position = torch.arange(0, max_len).unsqueeze(1).to(dtype)
        div_term = torch.exp(torch.arange(0, d_model, 2).to(dtype) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.pe[:, : x.size(1)]


def _rows(positions: NDArray[Any], d_model: int, dtype: Any) -> torch.Tensor:
    table = PositionalEncoding(d_model, dtype=dtype).pe[0]
    return table[torch.from_numpy(np.asarray(positions)).long()]


def table_float32(positions: NDArray[Any], d_model: int, base: float) -> torch.Tensor:
    """float32 rows of the buffer, without capabilities (fractional positions truncate)."""
    return _rows(positions, d_model, torch.float32)


def table_float32_declared(positions: NDArray[Any], d_model: int, base: float) -> torch.Tensor:
    """float32 rows of the buffer, declaring what a table supports."""
    return _rows(positions, d_model, torch.float32)


def table_float16_model(positions: NDArray[Any], d_model: int, base: float) -> torch.Tensor:
    """The module built in a float16 model: angles computed in float16 (the bug)."""
    return _rows(positions, d_model, torch.float16)


def table_bfloat16_model(positions: NDArray[Any], d_model: int, base: float) -> torch.Tensor:
    """The module built in a bfloat16 model: angles computed in bfloat16 (the bug)."""
    return _rows(positions, d_model, torch.bfloat16)


def table_float16_cast(positions: NDArray[Any], d_model: int, base: float) -> torch.Tensor:
    """float32 buffer cast to float16 when used (correct)."""
    return _rows(positions, d_model, torch.float32).to(torch.float16)


def table_bfloat16_cast(positions: NDArray[Any], d_model: int, base: float) -> torch.Tensor:
    """float32 buffer cast to bfloat16 when used (correct)."""
    return _rows(positions, d_model, torch.float32).to(torch.bfloat16)


for _backend in (
    table_float32_declared,
    table_float16_model,
    table_bfloat16_model,
    table_float16_cast,
    table_bfloat16_cast,
):
    _backend.pespec_capabilities = dict(TABLE_CAPABILITIES)  # type: ignore[attr-defined]
