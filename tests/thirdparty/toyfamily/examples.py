"""Toy backends for the tests: one correct, three wrong, one that ends the process."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numpy.typing import NDArray


def correct(heads: int) -> NDArray[np.float64]:
    """2^(-8h/H) by libm's pow: the exponent -8h/H is exact (H a power of two), and a pow
    within one ulp meets the bound of one ulp."""
    return np.array([2.0 ** (-8.0 * h / heads) for h in range(1, heads + 1)])


def correct_float32(heads: int) -> NDArray[np.float32]:
    """The float64 slopes rounded to float32 (within 2^-24·y + a float64 ulp < 2^-23·y)."""
    return correct(heads).astype(np.float32)


def from_zero(heads: int) -> NDArray[np.float64]:
    """A classic slip: heads counted from 0, so head 1 gets slope 1."""
    return np.array([2.0 ** (-8.0 * h / heads) for h in range(heads)])


def two_ulps_up(heads: int) -> NDArray[np.float64]:
    """Two ulps above the correct slopes: outside the bound (one ulp) at H = 1, where the
    slope 2^-8 is exact."""
    out = correct(heads)
    return np.nextafter(np.nextafter(out, np.inf), np.inf)


def exits(heads: int) -> Any:
    """Ends the process it runs in with status 0, as a buggy native library might."""
    os._exit(0)


def declared(heads: int) -> NDArray[np.float64]:
    """:func:`correct`, declaring the head counts it supports and its level."""
    return correct(heads)


declared.pespec_capabilities = {"heads": [4, 8], "level": "float64"}  # type: ignore[attr-defined]
