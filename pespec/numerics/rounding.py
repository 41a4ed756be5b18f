"""Certified rounding (Ziv's strategy, SPEC Annex B.2): exact inputs, exact MPFR conversion,
and the proofs that an MPFR value with a bounded error rounds to one float64.

What: positions taken at their exact rational values, dyadic rationals as exact MPFR numbers,
rational powers formed exactly, and the two certification checks (an interval that rounds to
one result under a monotone rounder; a vector of values whose error bounds stay inside half the
gap to their float64 neighbours). Why: every oracle of pespec rounds through these, whatever
the family. Shapes: lists of MPFR values and float64 arrays of the same length.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

import gmpy2
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "F64_MIN_SAFE",
    "MAX_RATIONAL_BITS",
    "SLACK",
    "dyadic_to_mpfr",
    "exact_positions",
    "float_gaps",
    "rational_omega",
    "round_certified",
    "round_interval",
]

_R = TypeVar("_R")

SLACK = 1.0 + 2.0**-40
"""Factor covering the few float64 roundings made while evaluating a bound."""

F64_MIN_SAFE = 2.0**-900
"""Below this the vectorised float64 bound arithmetic could underflow: use a scalar path."""


def _exact_position(value: Any) -> Fraction:
    """One position as an exact rational: an int, or a float at its exact binary value."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"positions must be ints or finite floats; got {value!r}: bool")
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, np.floating) and value.dtype.itemsize > 8:  # long double: not a float64
        if not np.isfinite(value):
            raise ValueError(f"positions must be finite; got {value!r}")
        return Fraction(*value.as_integer_ratio())
    if isinstance(value, (float, np.floating)):
        number = float(value)  # exact for float16/32/64
        if not math.isfinite(number):
            raise ValueError(f"positions must be finite; got {value!r}")
        return Fraction(number)
    raise TypeError(
        f"positions must be ints (any size) or finite floats; got {value!r} "
        f"(type {type(value).__name__})"
    )


def exact_positions(positions: Any) -> tuple[tuple[int, ...], list[Fraction]]:
    """(shape, flat exact values) of ``positions``: an array or a (nested) sequence.

    Ints of any size and floats (taken exactly) are accepted; anything else is rejected
    with a message naming the value.
    """
    if isinstance(positions, (bool, np.bool_)):
        raise TypeError(f"positions must be ints or finite floats; got {positions!r}: bool")
    if isinstance(positions, np.ndarray) and positions.dtype.kind in "iuf":
        array = positions
    else:
        try:
            array = np.asarray(positions)
        except (OverflowError, ValueError) as exc:
            raise ValueError(f"positions must be ints or finite floats: {exc}") from None
        if array.dtype.kind not in "iufO":
            first = array.ravel()[0].item() if array.size else None
            raise TypeError(
                f"positions must be ints or finite floats; got {first!r} "
                f"(type {type(first).__name__}, array dtype {array.dtype})"
            )
    if array.dtype.kind in "iu":
        return array.shape, [Fraction(int(v)) for v in array.ravel().tolist()]
    if array.dtype.kind == "f" and isinstance(positions, (list, tuple)):
        # NumPy turns [2**60 + 1, 0.5] into float64, rounding the int: keep each element
        kept = np.empty(array.shape, dtype=object)
        kept[...] = positions  # same nesting: the original objects, element by element
        return array.shape, [_exact_position(v) for v in kept.ravel().tolist()]
    if array.dtype.kind == "f" and array.dtype.itemsize > 8:  # tolist() would round to float64
        return array.shape, [_exact_position(v) for v in array.ravel()]
    return array.shape, [_exact_position(v) for v in array.ravel().tolist()]


def dyadic_to_mpfr(value: Fraction) -> Any:
    """An exact mpfr of a dyadic rational (denominator a power of two)."""
    numerator, denominator = value.numerator, value.denominator
    exponent = denominator.bit_length() - 1
    if denominator != 1 << exponent:
        raise ValueError(f"internal error: {value} is not dyadic")
    precision = max(numerator.bit_length(), 2)
    with gmpy2.context(precision=precision):  # mul_2exp rounds to the context precision
        result = gmpy2.mul_2exp(gmpy2.mpfr(numerator, precision), -exponent)
    if Fraction(*result.as_integer_ratio()) != value:
        raise ValueError(f"internal error: {value} was not converted exactly")
    return result


MAX_RATIONAL_BITS = 1 << 16
"""Largest exact rational ω (bits of numerator or denominator) formed by rational_omega."""


def rational_omega(radix: Fraction, exponent: Fraction) -> Fraction | None:
    """radix^(−exponent) when it is rational (radix a perfect m-th power, exponent = n/m)
    and of at most MAX_RATIONAL_BITS bits, else None.

    A larger rational ω (for example (1 + 2^-52)^(−2^30)) is left to the caller's Ziv loop,
    which terminates on it when ω ≥ e^-750: such an ω is not dyadic, since a dyadic
    ω = 2^(−a·n) ≥ e^-750 has a·n ≤ 1083 and is formed here.
    """
    n, m = exponent.numerator, exponent.denominator
    root_num, exact_num = gmpy2.iroot(radix.numerator, m)
    root_den, exact_den = gmpy2.iroot(radix.denominator, m)
    if not (exact_num and exact_den):
        return None
    if n * max(int(root_num).bit_length(), int(root_den).bit_length()) > MAX_RATIONAL_BITS:
        return None
    return Fraction(int(root_den), int(root_num)) ** n


def round_interval(
    value: Any,
    err: Any,
    rounder: Callable[[Any], _R] = float,  # type: ignore[assignment]
) -> _R | None:
    """What every point of [value − err, value + err] rounds to under ``rounder``, or None.

    ``rounder`` must be monotone (float64 round-to-nearest, decimal formatting), so the two
    ends agreeing proves the whole interval agrees.
    """
    with gmpy2.context(precision=value.precision + 64, round=gmpy2.RoundDown):
        low = value - err
    with gmpy2.context(precision=value.precision + 64, round=gmpy2.RoundUp):
        high = value + err
    with gmpy2.context():  # round to nearest, whatever the caller's gmpy2 context says
        low_r, high_r = rounder(low), rounder(high)
    return low_r if low_r == high_r else None


def float_gaps(hi: NDArray[np.float64]) -> NDArray[np.float64]:
    """min distance from each float64 to its two neighbours (exact for normal numbers)."""
    up = np.nextafter(hi, np.inf) - hi
    down = hi - np.nextafter(hi, -np.inf)
    gaps: NDArray[np.float64] = np.minimum(up, down)
    return gaps


def round_certified(
    values: list[Any],
    angle_term: NDArray[np.float64],
    value_factor: float,
    constant: float,
    precision: int,
) -> tuple[NDArray[np.float64], list[int]]:
    """Round MPFR values ỹ_i to float64; returns (the float64s, indices failing the check).

    Call inside a fresh gmpy2 context (round to nearest) at the values' precision P. The
    error bound is err_i = (angle_term_i + value_factor·|ỹ_i| + constant)·2^-P, with
    angle_term (in units of 2^-P) set to inf where it cannot be trusted. Accepted elements
    satisfy 2·(|ỹ_i − h_i| + err_i) < the smaller gap from h_i to its float64 neighbours,
    so the whole interval [ỹ_i − err_i, ỹ_i + err_i] rounds to h_i (SPEC Annex B.2).

    The factor 2^-P is applied last and exactly (``ldexp``): 2^-P alone underflows to 0
    in float64 for P > 1074 (|x| ≳ 2^990), which would make err_i = 0. Only err_i itself
    and |ỹ_i − h_i| can still underflow, losing at most 2^-1075 each; accepted elements
    have |h_i| > 2^-900, so gap ≥ 2^-953 and the last SLACK factor on the margin leaves
    gap·(1 − 1/SLACK) > 2^-994 to absorb that.
    """
    hi_list = [float(v) for v in values]
    lo_list = [float(v - h) for v, h in zip(values, hi_list, strict=True)]  # v − h exact
    hi = np.array(hi_list, dtype=np.float64)
    lo = np.abs(np.array(lo_list, dtype=np.float64))
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        err = np.ldexp(
            (angle_term + value_factor * (np.abs(hi) + lo) + constant) * SLACK, -precision
        )
        margin = 2.0 * (lo * SLACK + err) * SLACK
        good = (margin < float_gaps(hi)) & (np.abs(hi) > F64_MIN_SAFE) & np.isfinite(margin)
    return hi, np.flatnonzero(~good).tolist()
