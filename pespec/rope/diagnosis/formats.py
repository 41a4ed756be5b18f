"""Floating-point formats the diagnosis emulates (SPEC Annex D.8): rounding and membership.

bfloat16 is emulated on float32 bits (round to nearest even, as torch's and ml_dtypes'
casts do), float16 and float32 are NumPy's own. Shapes are kept; float64 in and out.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

__all__ = ["FORMATS", "UNIT_ROUNDOFF", "is_member", "precision_rank", "round_to"]

F64 = NDArray[np.float64]

FORMATS: Final = ("float64", "float32", "float16", "bfloat16")
"""The formats a stage may be computed in, finest first."""

UNIT_ROUNDOFF: Final = {
    "float64": 2.0**-53,
    "float32": 2.0**-24,
    "float16": 2.0**-11,
    "bfloat16": 2.0**-8,
}
"""u of each format (half an ulp of 1)."""

_RANK: Final = {"float64": 3, "float32": 2, "float16": 1, "bfloat16": 1}


def precision_rank(name: str) -> int:
    """3 for float64, 2 for float32, 1 for the 16-bit formats (neither finer than the other)."""
    return _RANK[name]


def _bfloat16(values: F64) -> F64:
    single = values.astype(np.float32)
    bits = single.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    finite = np.isfinite(single)
    out = np.where(finite, rounded.astype(np.uint32).view(np.float32), single)
    return out.astype(np.float64)


def round_to(values: F64, name: str) -> F64:
    """``values`` rounded to format ``name`` (overflow gives ±inf, as a cast does)."""
    values = np.asarray(values, dtype=np.float64)
    if name == "float64":
        return values
    if name == "bfloat16":
        return _bfloat16(values)
    with np.errstate(over="ignore"):
        return values.astype(np.float16 if name == "float16" else np.float32).astype(np.float64)


def is_member(values: F64, name: str) -> bool:
    """Whether every finite value is a number of format ``name`` (True for an empty array)."""
    finite = values[np.isfinite(values)]
    return bool(np.array_equal(round_to(finite, name), finite))
