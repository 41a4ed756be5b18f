"""An independent slow evaluation with mpmath's high-level context, for testing the oracle.

It shares nothing with :mod:`pespec.sinusoidal.reference.oracle` but the definition: ω comes from
``mpmath.power`` (not exp(−k·ln(base)/den) in MPFR), sin and cos are mpmath's own, and the
result is rounded to float64 exactly through a ``Fraction`` (never through a decimal
string). It is not certified: at ``bits`` of working precision a wrong rounding needs the
value to lie within about 2^-(bits − log2|θ| − 10) of a rounding boundary.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import mpmath

from pespec.sinusoidal.reference.conventions import Convention

__all__ = ["mpf_to_float", "mpmath_omega", "mpmath_row"]


def mpf_to_float(value: mpmath.mpf) -> float:
    """The float64 nearest to ``value`` (ties to even): exact via Fraction → float."""
    sign, mantissa, exponent, _ = value._mpf_
    magnitude = Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    return float(-magnitude if sign else magnitude)


def mpmath_omega(d_model: int, base: float, convention: Convention, k: int) -> mpmath.mpf:
    """ω_k = base^(−k/(d/2 − s)) at the current mpmath precision (exact exponent)."""
    den = Fraction(d_model // 2) - Fraction(convention.frequency_shift)
    exponent = mpmath.mpf(k * den.denominator) / den.numerator
    return mpmath.power(mpmath.mpf(base), -exponent)


def mpmath_row(
    position: int | float,
    d_model: int,
    base: float,
    convention: Convention,
    bits: int = 400,
    columns: Sequence[int] | None = None,
) -> list[float]:
    """One row of the encoding computed at ``bits`` bits: the values of ``columns``
    (default: all d_model columns, in order)."""
    pair, is_sin = convention.column_roles(d_model)
    wanted = range(d_model) if columns is None else columns
    with mpmath.workprec(bits):
        x = mpmath.mpf(convention.argument_scale) * (
            mpmath.mpf(position) + convention.position_offset
        )
        row = []
        for column in wanted:
            theta = x * mpmath_omega(d_model, base, convention, int(pair[column]))
            value = mpmath.sin(theta) if is_sin[column] else mpmath.cos(theta)
            row.append(mpf_to_float(_amplitude(convention, d_model) * value))
    return row


def _amplitude(convention: Convention, d_model: int) -> mpmath.mpf:
    """The output scale A at the current precision: mpmath.sqrt(2/d) or the float."""
    if convention.output_scale == "sqrt(2/d)":
        return mpmath.sqrt(mpmath.mpf(2) / d_model)
    return mpmath.mpf(convention.output_scale)
