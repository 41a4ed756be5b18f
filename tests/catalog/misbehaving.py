"""Backends that misbehave as programs (not numerically): the suite must fail them cleanly."""

from __future__ import annotations

import itertools
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.encoding import encode


def raises(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Always raises."""
    raise RuntimeError("kernel launch failed")


def returns_list(positions: NDArray[Any], d_model: int, base: float) -> Any:
    """Returns nested Python lists instead of an array."""
    return encode(positions, d_model, base=base).tolist()


def integer_output(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.int64]:
    """Returns an int64 array."""
    return np.zeros((positions.shape[0], d_model), dtype=np.int64)


def hangs(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Never returns within any reasonable timeout (sleeps 3 s, then returns)."""
    time.sleep(3.0)
    return encode(positions, d_model, base=base)


def mutates_input(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Correct values, but shifts the caller's positions array in place afterwards."""
    out = encode(positions, d_model, base=base)
    positions += 1
    return out


_CALLS = itertools.count()


def non_deterministic(positions: NDArray[Any], d_model: int, base: float) -> NDArray[np.float64]:
    """Correct to 1 ulp but perturbs one element by one ulp on every other call."""
    out = encode(positions, d_model, base=base)
    if next(_CALLS) % 2 and out.size:
        out.flat[out.size // 2] = np.nextafter(out.flat[out.size // 2], 2.0)
    return out


def float64_claiming_float32(
    positions: NDArray[Any], d_model: int, base: float
) -> NDArray[np.float64]:
    """Declares level float32 but returns float64."""
    return encode(positions, d_model, base=base)


float64_claiming_float32.pespec_capabilities = {"level": "float32"}  # type: ignore[attr-defined]
