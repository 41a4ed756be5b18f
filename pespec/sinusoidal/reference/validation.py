"""Argument validation of the sinusoidal family's own parameters (d_model, base, embeddings).

The generic validators (positions, ints, probabilities, finite arrays, random generators)
live in :mod:`pespec.numerics.validation` (imported from there, not from here). Each
check either returns the normalised value or raises an exception whose message names the
parameter, repeats the value received and says what is allowed, for example::

    ValueError: d_model must be a positive even int; got 7 (odd)
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.validation import (
    as_int,
    check_finite_array,
    describe_value,
)

__all__ = ["check_base", "check_d_model", "check_embeddings"]


def check_d_model(d_model: Any, name: str = "d_model") -> int:
    """Validate the model dimension: a positive even int (bool and float rejected)."""
    allowed = "a positive even int"
    value = as_int(name, d_model, allowed)
    if value <= 0:
        raise ValueError(f"{name} must be {allowed}; got {value}")
    if value % 2:
        raise ValueError(f"{name} must be {allowed}; got {value} (odd)")
    return value


def check_base(base: Any, name: str = "base") -> float:
    """Validate the frequency base: a finite real number > 1 (bool rejected).

    Returns the base as a float; an int base is converted exactly when it is
    below 2**53 and rejected otherwise (it would change value).
    """
    allowed = "a finite real number > 1"
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real):
        raise TypeError(f"{name} must be {allowed}; got {describe_value(base)}")
    if isinstance(base, numbers.Integral) and abs(int(base)) > 2**53:
        raise ValueError(f"{name} must be {allowed} exactly representable in float64; got {base}")
    value = float(base)
    if not math.isfinite(value) or not value > 1.0:
        raise ValueError(f"{name} must be {allowed}; got {base!r}")
    return value


def check_embeddings(x: Any, d_model: int, name: str = "X") -> NDArray[np.floating[Any]]:
    """Validate embeddings: a finite float array of shape (B, L, d_model) or (L, d_model).

    Returns ``x`` as a NumPy array (no copy when it already is one).
    """
    array = np.asarray(x)
    if array.dtype.kind != "f":
        raise TypeError(
            f"{name} must be a float array of shape (B, L, {d_model}) or (L, {d_model}); "
            f"got dtype {array.dtype}"
        )
    if array.ndim not in (2, 3):
        raise ValueError(
            f"{name} must have shape (B, L, {d_model}) or (L, {d_model}); got shape {array.shape}"
        )
    if array.shape[-1] != d_model:
        raise ValueError(
            f"{name} must have last axis equal to d_model={d_model}; got shape {array.shape}"
        )
    check_finite_array(array, name)
    return array
