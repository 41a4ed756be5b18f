"""Certified arithmetic for the schedules of SPEC §8.3, each written once in its own module.

:func:`schedule` evaluates ω'_j (j = 0 .. d_r/2 − 1) and A for a configuration (its schedule's
``exact`` form, found in :mod:`pespec.rope.schedules.registry`) with an arithmetic object:
:class:`IntervalArith` (mpmath's ``iv`` context: outward rounding, so every result is an
interval that contains the exact real value) or :class:`RationalArith` (exact ``Fraction``
arithmetic, in which a value not shown rational is :data:`NOT_RATIONAL`). Every branch of a
schedule (YaRN's floor and ceiling of the correction range, its clamps, llama3's wavelength
thresholds) is decided by the interval run on intervals that exclude the boundary, or raises
:class:`Undecided` (the caller retries at a higher precision); the rational run replays the
interval run's decisions in order, so both runs follow the same branches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import gmpy2
import mpmath

from pespec.numerics.rounding import rational_omega
from pespec.rope.config import RopeConfig
from pespec.rope.schedules.registry import SCHEDULES

__all__ = [
    "NOT_RATIONAL",
    "IntervalArith",
    "RationalArith",
    "Undecided",
    "ends",
    "interval_precision",
    "schedule",
]

Value = Any
"""An mpmath interval (``iv.mpf``) or a ``Fraction``."""


class Undecided(Exception):
    """A branch of the schedule could not be decided at this precision."""


class _NotRational:
    """The value of an expression that is not known to be rational: absorbs arithmetic."""

    def _absorb(self, *_: Any) -> _NotRational:
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _absorb
    __truediv__ = __rtruediv__ = __neg__ = __pow__ = __rpow__ = _absorb

    def __repr__(self) -> str:
        return "NOT_RATIONAL"


NOT_RATIONAL = _NotRational()
"""What :class:`RationalArith` returns for a value it cannot show to be rational."""


class IntervalArith:
    """Outward-rounded interval arithmetic (mpmath ``iv``) at ``precision`` bits.

    Call inside :func:`interval_precision`. Decisions are recorded in ``decisions``.
    """

    def __init__(self) -> None:
        self.decisions: list[Any] = []

    def q(self, value: Fraction | int | float) -> Value:
        exact = Fraction(value)
        if exact.denominator == 1:
            return mpmath.iv.mpf(exact.numerator)
        return mpmath.iv.mpf(exact.numerator) / exact.denominator

    def power(self, base: Fraction, exponent: Fraction) -> Value:
        """base^exponent for base > 0 (1 exactly when the exponent is 0)."""
        if exponent == 0 or base == 1:
            return mpmath.iv.mpf(1)
        return mpmath.iv.exp(self.q(exponent) * mpmath.iv.log(self.q(base)))

    def log(self, value: Value) -> Value:
        return mpmath.iv.log(value)

    def sqrt(self, value: Value) -> Value:
        return mpmath.iv.sqrt(value)

    def pi(self) -> Value:
        return mpmath.iv.pi

    def positive(self, thunk: Callable[[], Value]) -> bool:
        """Whether the (nonzero) value of ``thunk()`` is > 0."""
        low, high = ends(thunk())
        if low > 0:
            result = True
        elif high < 0:
            result = False
        else:
            raise Undecided
        self.decisions.append(result)
        return result

    def floor(self, thunk: Callable[[], Value]) -> int:
        low, high = ends(thunk())
        if math.floor(low) != math.floor(high):
            raise Undecided
        result = math.floor(low)
        self.decisions.append(result)
        return result


def ends(value: Value) -> tuple[Fraction, Fraction]:
    """The end points of an mpmath interval as exact rationals; Undecided if infinite."""
    out = []
    for sign, man, exp, _ in value._mpi_:
        if not man and exp:  # ±inf or nan in mpmath's raw format
            raise Undecided
        magnitude = Fraction(int(man)) * (Fraction(2) ** int(exp))
        out.append(-magnitude if sign else magnitude)
    return out[0], out[1]


@contextmanager
def interval_precision(precision: int) -> Iterator[None]:
    """Set mpmath's ``iv`` context to ``precision`` bits for the block, then restore it."""
    old = mpmath.iv.prec
    mpmath.iv.prec = precision
    try:
        yield
    finally:
        mpmath.iv.prec = old


class RationalArith:
    """Exact rational arithmetic; decisions replayed from an :class:`IntervalArith` run.

    A value that is not shown rational (a logarithm, π, an irrational power or root) is
    :data:`NOT_RATIONAL`, and so is every value computed from it.
    """

    def __init__(self, decisions: list[Any]) -> None:
        self._decisions = list(decisions)

    def q(self, value: Any) -> Value:
        return value if value is NOT_RATIONAL else Fraction(value)

    def power(self, base: Fraction, exponent: Fraction) -> Value:
        if exponent == 0 or base == 1:
            return Fraction(1)
        result = rational_omega(base, -exponent)
        return NOT_RATIONAL if result is None else result

    def log(self, value: Value) -> Value:
        return Fraction(0) if value == 1 else NOT_RATIONAL

    def sqrt(self, value: Value) -> Value:
        if value is NOT_RATIONAL:
            return value
        num, exact_num = gmpy2.iroot(value.numerator, 2)
        den, exact_den = gmpy2.iroot(value.denominator, 2)
        if not (exact_num and exact_den):
            return NOT_RATIONAL
        return Fraction(int(num), int(den))

    def pi(self) -> Value:
        return NOT_RATIONAL

    def positive(self, thunk: Callable[[], Value]) -> bool:
        result: bool = self._decisions.pop(0)
        return result

    def floor(self, thunk: Callable[[], Value]) -> int:
        result: int = self._decisions.pop(0)
        return result


Arith = IntervalArith | RationalArith


def schedule(config: RopeConfig, ar: Arith) -> tuple[list[Value], Value]:
    """(ω'_j for j = 0 .. d_r/2 − 1, A) of SPEC §8.3 in the arithmetic ``ar``: the exact form
    of the configuration's schedule (:attr:`pespec.rope.schedules.base.Schedule.exact`)."""
    return SCHEDULES[config.rope_type].exact(config, ar)
