"""The schedules of SPEC §8.3 written once, evaluated in certified interval arithmetic.

:func:`schedule` evaluates ω'_j (j = 0 .. d_r/2 − 1) and A for a configuration with an
arithmetic object: :class:`IntervalArith` (mpmath's ``iv`` context: outward rounding, so
every result is an interval that contains the exact real value) or :class:`RationalArith`
(exact ``Fraction`` arithmetic, in which a value not shown rational is
:data:`NOT_RATIONAL`). Every branch of a schedule (YaRN's floor and ceiling of the
correction range, its clamps, llama3's wavelength thresholds) is decided by the interval
run on intervals that exclude the boundary, or raises :class:`Undecided` (the caller
retries at a higher precision); the rational run replays the interval run's decisions in
order, so both runs follow the same branches. Constants written in §8.3 (0.1 in YaRN's g,
0.001 in its zero-width guard) are the exact decimals 1/10 and 1/1000.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import gmpy2
import mpmath

from pespec.reference.oracle import rational_omega
from pespec.rope.config import RopeConfig

__all__ = [
    "NOT_RATIONAL", "IntervalArith", "RationalArith", "Undecided", "ends", "interval_precision",
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


def _base_omegas(config: RopeConfig, ar: Arith) -> list[Value]:
    """ω_j = θ^(−2j/d_r)."""
    theta = Fraction(config.theta)
    return [ar.power(theta, Fraction(-2 * j, config.d_r)) for j in range(config.d_r // 2)]


def _g(ar: Arith, scale: Fraction, m: Fraction) -> Value:
    """YaRN's g(s, m) = 0.1·m·ln s + 1 for s > 1, 1 otherwise."""
    if scale <= 1:
        return ar.q(1)
    return ar.q(m / 10) * ar.log(ar.q(scale)) + ar.q(1)


def _yarn_bound(ar: Arith, config: RopeConfig, beta: float, rounding: str) -> Value | Fraction:
    """low or high of the YaRN range before clamping: c(β), or its floor/ceiling (exact)."""
    assert config.original_max_position_embeddings is not None
    d_r, l0 = config.d_r, config.original_max_position_embeddings

    def c() -> Value:
        argument = ar.q(Fraction(l0) / Fraction(beta)) / (2 * ar.pi())
        return ar.q(d_r) * ar.log(argument) / (2 * ar.log(ar.q(config.theta)))

    if not config.truncate:
        return c()
    if rounding == "floor":
        return Fraction(ar.floor(c))
    return Fraction(-ar.floor(lambda: -c()))  # ⌈c⌉ = −⌊−c⌋


def _yarn(config: RopeConfig, ar: Arith) -> tuple[list[Value], Value]:
    assert config.factor is not None and config.beta_fast is not None
    assert config.beta_slow is not None
    s = Fraction(config.factor)
    low = _yarn_bound(ar, config, config.beta_fast, "floor")
    high = _yarn_bound(ar, config, config.beta_slow, "ceil")
    top = Fraction(config.d_r - 1)
    if isinstance(low, Fraction):
        low = max(low, Fraction(0))
    elif not ar.positive(lambda: low):
        low = Fraction(0)
    if isinstance(high, Fraction):
        high = min(high, top)
    elif ar.positive(lambda: high - ar.q(top)):
        high = top
    if isinstance(low, Fraction) and isinstance(high, Fraction) and low == high:
        high += Fraction(1, 1000)  # transformers' guard against a zero-width ramp
    omegas = []
    for j, omega in enumerate(_base_omegas(config, ar)):
        ramp = _ramp(ar, j, low, high)
        omegas.append(omega / ar.q(s) * ramp + omega * (ar.q(1) - ramp))
    if config.attention_factor is not None:
        attention = ar.q(config.attention_factor)
    elif config.mscale and config.mscale_all_dim:
        attention = _g(ar, s, Fraction(config.mscale)) / _g(ar, s, Fraction(config.mscale_all_dim))
    else:
        attention = _g(ar, s, Fraction(1))
    return omegas, attention


def _ramp(ar: Arith, j: int, low: Value, high: Value) -> Value:
    """r_j = min(max((j − low)/(high − low), 0), 1), each clamp decided exactly."""
    if isinstance(low, Fraction) and isinstance(high, Fraction):
        return ar.q(min(max((j - low) / (high - low), Fraction(0)), Fraction(1)))
    lo_v = ar.q(low) if isinstance(low, Fraction) else low
    hi_v = ar.q(high) if isinstance(high, Fraction) else high
    if not ar.positive(lambda: ar.q(j) - lo_v):
        return ar.q(0)
    if ar.positive(lambda: ar.q(j) - hi_v):
        return ar.q(1)
    return (ar.q(j) - lo_v) / (hi_v - lo_v)


def _llama3(config: RopeConfig, ar: Arith) -> list[Value]:
    s, f_low, f_high = config.factor, config.low_freq_factor, config.high_freq_factor
    l0 = config.original_max_position_embeddings
    assert s is not None and f_low is not None and f_high is not None and l0 is not None
    s_v, low_v, high_v = ar.q(s), ar.q(f_low), ar.q(f_high)
    out = []

    def margin(w: Value, f: Value) -> Callable[[], Value]:
        return lambda: ar.q(l0) * w - 2 * ar.pi() * f

    for omega in _base_omegas(config, ar):
        # λ_j < λ_high ⟺ 2π/ω_j < L0/f_high ⟺ L0·ω_j − 2π·f_high > 0 (never equal: π)
        if ar.positive(margin(omega, high_v)):
            out.append(omega)
        elif not ar.positive(margin(omega, low_v)):
            out.append(omega / s_v)  # λ_j > λ_low
        else:
            sigma = (ar.q(l0) * omega / (2 * ar.pi()) - low_v) / (high_v - low_v)
            out.append((ar.q(1) - sigma) * omega / s_v + sigma * omega)
    return out


def _longrope(config: RopeConfig, ar: Arith) -> tuple[list[Value], Value]:
    l0, length = config.original_max_position_embeddings, config.seq_len
    assert l0 is not None and length is not None
    factors = config.long_factor if length > l0 else config.short_factor
    assert factors is not None
    omegas = [w / ar.q(f) for w, f in zip(_base_omegas(config, ar), factors, strict=True)]
    if config.attention_factor is not None:
        return omegas, ar.q(config.attention_factor)
    if config.factor is not None:
        s = Fraction(config.factor)
    elif config.max_position_embeddings is not None:
        s = Fraction(config.max_position_embeddings, l0)
    else:
        s = Fraction(1)
    if s <= 1:
        return omegas, ar.q(1)
    if l0 == 1:
        raise ValueError("original_max_position_embeddings must be > 1 for longrope with a "
                         "factor > 1: A = sqrt(1 + ln s / ln L0) divides by ln 1 = 0")
    return omegas, ar.sqrt(ar.q(1) + ar.log(ar.q(s)) / ar.log(ar.q(l0)))


def _dynamic(config: RopeConfig, ar: Arith) -> list[Value]:
    s, big_l, length = config.factor, config.max_position_embeddings, config.seq_len
    assert s is not None and big_l is not None and length is not None
    d_r, theta = config.d_r, Fraction(config.theta)
    if length <= big_l:
        return _base_omegas(config, ar)
    ratio = Fraction(s) * Fraction(length, big_l) - (Fraction(s) - 1)
    # θ'^(−2j/d_r) = θ^(−2j/d_r)·ratio^(−2j/(d_r − 2)), exactly
    return [ar.power(theta, Fraction(-2 * j, d_r)) * ar.power(ratio, Fraction(-2 * j, d_r - 2))
            for j in range(d_r // 2)]


def schedule(config: RopeConfig, ar: Arith) -> tuple[list[Value], Value]:
    """(ω'_j for j = 0 .. d_r/2 − 1, A) of SPEC §8.3 in the arithmetic ``ar``."""
    kind = config.rope_type
    if kind == "default":
        return _base_omegas(config, ar), ar.q(1)
    if kind == "linear":
        assert config.factor is not None
        return [w / ar.q(config.factor) for w in _base_omegas(config, ar)], ar.q(1)
    if kind == "dynamic":
        return _dynamic(config, ar), ar.q(1)
    if kind == "yarn":
        return _yarn(config, ar)
    if kind == "llama3":
        return _llama3(config, ar), ar.q(1)
    return _longrope(config, ar)
