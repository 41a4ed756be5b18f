"""Checks of one configuration field (SPEC §8.5), shared by RopeConfig and the schedules.

Each check returns the normalised value (an ``int``, a ``float``, a tuple of floats) or raises
``TypeError`` (wrong type) or ``ValueError`` (out of range) naming the field, the value
received and what is allowed.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

__all__ = ["check_int", "check_positive", "check_real", "factor_list", "show", "whole_count"]


def show(value: Any) -> str:
    """``repr(value)``, cut to 60 characters for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_int(name: str, value: Any, low: int) -> int:
    """An int >= ``low`` (bools refused)."""
    allowed = f"an int >= {low}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be {allowed}; got {show(value)} (type {type(value).__name__})"
        )
    if int(value) < low:
        raise ValueError(f"{name} must be {allowed}; got {int(value)}")
    return int(value)


def check_real(name: str, value: Any, allowed: str) -> float:
    """A finite real number (bools refused); ``allowed`` words the rule for the message."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be {allowed}; got {show(value)} (type {type(value).__name__})"
        )
    try:
        number = float(value)
    except OverflowError:  # an int beyond float64's range (a 400-digit JSON number)
        raise ValueError(
            f"{name} must be {allowed}; got an int of {len(str(value))} digits, "
            "beyond float64's range"
        ) from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be {allowed}; got {number!r}")
    return number


def check_positive(name: str, value: Any) -> float:
    """A finite real number > 0."""
    number = check_real(name, value, "a finite real number > 0")
    if number <= 0:
        raise ValueError(f"{name} must be a finite real number > 0; got {number!r}")
    return number


def factor_list(name: str, values: Any, pairs: int) -> tuple[float, ...]:
    """One finite real number > 0 per pair (``pairs`` = d_r/2), as a tuple."""
    allowed = f"a sequence of {pairs} finite real numbers > 0 (one per pair, d_r/2)"
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be {allowed}; got {show(values)}")
    if len(values) != pairs:
        raise ValueError(f"{name} must be {allowed}; got {len(values)} entries")
    out = []
    for index, value in enumerate(values):
        number = check_real(f"{name}[{index}]", value, "a finite real number > 0")
        if number <= 0:
            raise ValueError(f"{name}[{index}] must be a finite real number > 0; got {number!r}")
        out.append(number)
    return tuple(out)


def whole_count(key: str, value: Any, low: int = 1) -> int:
    """A config.json count (an int >= ``low``; 64.0 is read as 64), or raise naming ``key``."""
    allowed = f"an int >= {low}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):  # JSON numbers
        raise TypeError(f"{key} must be {allowed}; got {value!r:.60} (type {type(value).__name__})")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise ValueError(f"{key} must be {allowed}; got {value!r:.60}")
    if int(value) < low:
        raise ValueError(f"{key} must be {allowed}; got {value!r:.60}")
    return int(value)
