"""Generic argument validation shared by every public entry point of pespec.

Each check either returns the normalised value or raises an exception whose message names
the parameter, repeats the value received and says what is allowed, for example::

    ValueError: seq_len must be a non-negative int; got -1

Type errors (a float where an int is required, a bool anywhere) raise ``TypeError``; values
of the right type outside the domain raise ``ValueError``. The validators of one family's own
parameters build on :func:`as_int` and :func:`describe_value`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DEFAULT_SEED",
    "as_int",
    "check_finite_array",
    "check_non_negative_int",
    "check_positions",
    "check_positive_int",
    "check_probability",
    "check_rng",
    "describe_value",
]


def describe_value(value: Any) -> str:
    """repr(value) (cut to 60 characters) and its type, for error messages."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} (type {type(value).__name__})"


def as_int(name: str, value: Any, allowed: str) -> int:
    """Return ``value`` as a Python int, rejecting bool, float and non-integers."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(
            f"{name} must be {allowed}; got {describe_value(value)}: bool is not accepted"
        )
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}; got {describe_value(value)}")
    return int(value)


def check_non_negative_int(value: Any, name: str) -> int:
    """Validate a length or offset: a non-negative int (bool and float rejected)."""
    allowed = "a non-negative int"
    result = as_int(name, value, allowed)
    if result < 0:
        raise ValueError(f"{name} must be {allowed}; got {result}")
    return result


def check_probability(value: Any, name: str) -> float:
    """Validate a probability in [0, 1) (used for dropout)."""
    allowed = "a real number in [0, 1)"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {allowed}; got {describe_value(value)}")
    result = float(value)
    if not (0.0 <= result < 1.0):
        raise ValueError(f"{name} must be {allowed}; got {value!r}")
    return result


def check_finite_array(array: NDArray[Any], name: str) -> None:
    """Raise ValueError naming the first non-finite element of ``array``."""
    if array.size and not np.all(np.isfinite(array)):
        bad = np.argwhere(~np.isfinite(array))[0]
        index = tuple(int(i) for i in bad)
        raise ValueError(
            f"{name} must contain only finite values; got {array[index]!r} at index {index}"
        )


def check_positions(positions: Any, name: str = "positions") -> NDArray[Any]:
    """Validate positions: finite real numbers of any array shape.

    Returns an int64 array when the input is integral (Python ints, NumPy
    integer arrays), otherwise a float64 array. NaN/inf, complex, bool and
    non-numeric input are rejected. Integers outside int64 are rejected (exact-arithmetic
    entry points take Python ints of any size).
    """
    allowed = "finite real numbers (int or float, any array shape)"
    if isinstance(positions, (bool, np.bool_)):
        raise TypeError(f"{name} must be {allowed}; got {describe_value(positions)}")
    try:
        array = np.asarray(positions)
    except (OverflowError, ValueError) as exc:
        raise ValueError(
            f"{name} must be {allowed}; got {describe_value(positions)}: {exc}"
        ) from None
    if array.dtype == object:
        try:
            array = np.asarray(positions, dtype=np.int64)
        except (OverflowError, TypeError, ValueError):
            raise TypeError(f"{name} must be {allowed}; got {describe_value(positions)}") from None
    if array.dtype.kind == "b":
        raise TypeError(f"{name} must be {allowed}; got a bool array")
    if array.dtype.kind in "iu":
        if array.dtype.kind == "u" and array.size and int(array.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"{name} must fit in int64; got {int(array.max())}")
        return array.astype(np.int64, copy=False)
    if array.dtype.kind != "f":
        raise TypeError(f"{name} must be {allowed}; got an array of dtype {array.dtype}")
    result = array.astype(np.float64, copy=False)
    check_finite_array(result, name)
    return result


DEFAULT_SEED = 0
"""Seed of the generator used when ``rng`` is None, so that outputs are deterministic."""


def check_positive_int(value: Any, name: str) -> int:
    """Validate a strictly positive int (bool and float rejected)."""
    result = check_non_negative_int(value, name)
    if result == 0:
        raise ValueError(f"{name} must be a positive int; got 0")
    return result


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """``rng`` itself if it is a NumPy Generator; ``default_rng(DEFAULT_SEED)`` for None."""
    if rng is None:
        return np.random.default_rng(DEFAULT_SEED)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator or None; got {type(rng).__name__}"
        )
    return rng
