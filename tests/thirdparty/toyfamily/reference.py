"""The exact reference of the toy family: ALiBi slopes decided in rational arithmetic.

The slope of head h of H heads is y = 2^(-8h/H). Write 8h/H = p/q in lowest terms (q ≥ 1, a
power of two since H is). Then y^q = 2^(-p) exactly, and t ↦ t^q is strictly increasing on
t ≥ 0. So for any float x and any rational t > 0, ``t < y`` ⇔ ``t^q < 2^(-p)``: a comparison
of two rationals, done exactly with :class:`fractions.Fraction` (no rounding anywhere).

* :func:`within`: |x - y| ≤ r·y ⇔ y(1 - r) ≤ x ≤ y(1 + r) ⇔ x/(1 + r) ≤ y ≤ x/(1 - r)
  (x > 0, 0 < r < 1), decided by the comparison above: an exact verdict, so the reference
  adds no error to the tolerance.
* :func:`slope`: the binary64 value nearest y (round to nearest), for messages. It is the
  float c with c⁻ < y < c⁺ where c⁻, c⁺ are the midpoints to its neighbours (y is irrational
  unless q = 1, when it is the power of two 2^(-p) itself, so no tie occurs); |c - y| ≤ ulp(c)/2.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["exponent", "slope", "within"]


def exponent(h: int, heads: int) -> tuple[int, int]:
    """(p, q): 8h/H in lowest terms, so that the slope y satisfies y^q = 2^(-p)."""
    g = math.gcd(8 * h, heads)
    return 8 * h // g, heads // g


def _cmp(t: Fraction, p: int, q: int) -> int:
    """The sign of t - 2^(-p/q) (t ≥ 0), exactly: the sign of t^q - 2^(-p)."""
    diff = t**q - Fraction(1, 2**p)
    return (diff > 0) - (diff < 0)


def slope(h: int, heads: int) -> float:
    """The binary64 value nearest 2^(-8h/H) (see the module docstring for the proof)."""
    p, q = exponent(h, heads)
    if q == 1:
        return math.ldexp(1.0, -p)
    c = float(2.0 ** (-p / q))  # a first guess; corrected below until it is the nearest float
    while True:
        low = (Fraction(c) + Fraction(math.nextafter(c, 0.0))) / 2
        high = (Fraction(c) + Fraction(math.nextafter(c, math.inf))) / 2
        if _cmp(high, p, q) < 0:  # c⁺ < y: a larger float is nearer
            c = math.nextafter(c, math.inf)
        elif _cmp(low, p, q) > 0:  # y < c⁻: a smaller float is nearer
            c = math.nextafter(c, 0.0)
        else:  # c⁻ ≤ y ≤ c⁺, with no equality (y irrational): c is the nearest float
            return c


def within(x: float, h: int, heads: int, r: Fraction) -> bool:
    """True when |x - 2^(-8h/H)| ≤ r·2^(-8h/H), decided exactly (``x`` a float, 0 < r < 1);
    a non-positive or non-finite ``x`` is never within."""
    if not (math.isfinite(x) and x > 0):
        return False
    p, q = exponent(h, heads)
    lower, upper = Fraction(x) / (1 + r), Fraction(x) / (1 - r)
    return _cmp(lower, p, q) <= 0 <= _cmp(upper, p, q)
