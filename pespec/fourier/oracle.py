"""The certified oracle of the Fourier family (SPEC §10.5): correctly rounded float64 values.

Each angle a_j = c·s·Σ_i W_ji·x_i is formed in MPFR at P bits from exact inputs (x and s at
their float64 values, W_ji exact rationals or b^e evaluated at P bits, π = MPFR's const_pi),
so ã_j carries a relative error of at most (k + 8)·2^-P of A_j = |c·s|·Σ_i |W_ji·x_i| (k + 4
roundings of the products and the sum, 2 of π and b^e, each ≤ 2^-P relative; 2 spare).
sin and cos are 1-Lipschitz and MPFR rounds them correctly, so
|sin(ã_j) − sin(a_j)| ≤ (k + 8)·A_j·2^-P + 2^-P: the error bound handed to
:func:`pespec.numerics.rounding.round_certified` (Ziv's strategy, SPEC Annex B.2), which
accepts a value only when that interval rounds to one float64; P doubles until all do.
The raw input columns are x itself, exact. A value whose exact value is 0 (sin of a multiple
of π, cos of an odd multiple of π/2) is decided in rational arithmetic and stored as 0.0.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np
from numpy.typing import NDArray

from pespec.fourier.convention import PI_MULTIPLE, FourierConvention
from pespec.numerics.rounding import round_certified

__all__ = ["angle_terms", "oracle_encode"]

START_BITS = 128
MAX_BITS = 1 << 14


def _mpfr_rational(value: Fraction) -> Any:
    """The rational ``value`` rounded once to the context's precision."""
    return gmpy2.mpfr(gmpy2.mpq(value.numerator, value.denominator))


def _weights(conv: FourierConvention) -> list[list[Any]]:
    """W as MPFR numbers at the current precision, (m, k)."""
    k = conv.in_dims
    if conv.law == "matrix":
        return [[_mpfr_rational(Fraction(v)) for v in row] for row in conv.matrix]
    rows = []
    for j, i in conv.angle_index():
        exact, exponent = conv.frequency(j)
        if exact is not None:
            omega = _mpfr_rational(exact)
        else:
            omega = _mpfr_rational(Fraction(conv.base)) ** _mpfr_rational(exponent)
        rows.append([omega if axis == i else gmpy2.mpfr(0) for axis in range(k)])
    return rows


def _factor(conv: FourierConvention) -> Any:
    """c·s at the current precision."""
    scale = _mpfr_rational(Fraction(conv.input_scale))
    if conv.pi == "none":
        return scale
    return scale * gmpy2.const_pi() * (2 if conv.pi == "2pi" else 1)


def angle_terms(x: NDArray[np.float64], conv: FourierConvention) -> NDArray[np.float64]:
    """A_j = |c·s|·Σ_i |W_ji·x_i| (|log x_i| with ``input_log``) for each row of x, in
    float64 rounded up by 2^-40 (n, m): the magnitude that drives every error bound of the
    family (SPEC §10.4)."""
    with gmpy2.context(precision=64):
        weights = np.array([[abs(float(w)) for w in row] for row in _weights(conv)])
    c = abs(conv.input_scale) * {"none": 1.0, "pi": np.pi, "2pi": 2 * np.pi}[conv.pi]
    g = np.abs(np.log(x)) * (1 + 2.0**-50) if conv.input_log else np.abs(x)
    terms: NDArray[np.float64] = (g @ weights.T) * c * (1 + 2.0**-40)
    return terms


def _attempt(x: NDArray[np.float64], conv: FourierConvention, bits: int) -> tuple[Any, list[int]]:
    n, k, m = x.shape[0], conv.in_dims, conv.angles
    with gmpy2.context(precision=bits):
        weights, factor = _weights(conv), _factor(conv)
        values: dict[str, list[Any]] = {"sin": [], "cos": []}
        magnitudes, zero_sin, zero_cos = [], set(), set()
        index = conv.angle_index() if conv.law != "matrix" else []
        for r in range(n):
            xs = [gmpy2.mpfr(float(v)) for v in x[r]]
            if conv.input_log:
                xs = [gmpy2.log(v) for v in xs]
            for j in range(m):
                total = gmpy2.mpfr(0)
                size = gmpy2.mpfr(0)
                for i in range(k):
                    term = weights[j][i] * xs[i]
                    total += term
                    size += abs(term)
                angle = factor * total
                sin_zero, cos_zero = _exact_zeros(conv, x[r], j, index)
                if sin_zero:
                    zero_sin.add(r * m + j)
                if cos_zero:
                    zero_cos.add(r * m + j)
                magnitudes.append(float(abs(factor) * size))
                values["sin"].append(gmpy2.sin(angle))
                values["cos"].append(gmpy2.cos(angle))
        term = (k + 8) * np.array(magnitudes) * (1 + 2.0**-20)
        sin, bad_s = round_certified(values["sin"], term, 0.0, 1.0, bits)
        cos, bad_c = round_certified(values["cos"], term, 0.0, 1.0, bits)
    sin[sorted(zero_sin)] = 0.0  # exact zeros (round_certified refuses values near 0)
    cos[sorted(zero_cos)] = 0.0
    bad = [i for i in bad_s if i not in zero_sin] + [i for i in bad_c if i not in zero_cos]
    return (sin.reshape(n, m), cos.reshape(n, m)), bad


def _exact_zeros(
    conv: FourierConvention, row: NDArray[np.float64], j: int, index: list[tuple[int, int]]
) -> tuple[bool, bool]:
    """Whether sin a_j and cos a_j are exactly 0 (decided in rational arithmetic): with
    t = s·Σ_i W_ji·x_i rational and a = μπ·t (μ = 1, 2) sin a = 0 ⇔ μt ∈ ℤ and cos a = 0 ⇔
    μt − ½ ∈ ℤ; with no π, sin a = 0 ⇔ t = 0 and cos a ≠ 0 (π/2 + ℓπ is irrational). An
    irrational ω_j (b^e) makes t irrational unless x_i = 0. With ``input_log`` (one input)
    t is 0 at x = 1 and otherwise transcendental (log of a rational ≠ 1, times a nonzero
    algebraic number), so neither value is ever 0 there."""
    if conv.input_log:
        return float(row[0]) == 1.0, False
    if conv.law == "matrix":
        pairs = zip(conv.matrix[j], row.tolist(), strict=True)
        t = sum((Fraction(w) * Fraction(v) for w, v in pairs), Fraction(0))
    else:
        band, axis = index[j]
        omega = conv.frequency(band)[0]
        if omega is None:
            return float(row[axis]) == 0.0, False
        t = omega * Fraction(float(row[axis]))
    t *= Fraction(conv.input_scale)
    mult = PI_MULTIPLE[conv.pi]
    if mult == 0:
        return t == 0, False
    return (mult * t).denominator == 1, (mult * t - Fraction(1, 2)).denominator == 1


def oracle_encode(x: Any, conv: FourierConvention) -> NDArray[np.float64]:
    """The encoding of each row of ``x`` (n, k) under ``conv``, every value the correctly
    rounded float64 of the exact value (n, D); sin of an exact 0 angle is 0.0."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != conv.in_dims:
        raise ValueError(f"x must have shape (n, {conv.in_dims}); got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    bits = START_BITS
    while True:
        (sin, cos), bad = _attempt(x, conv, bits)
        if not bad:
            break
        bits *= 2
        if bits > MAX_BITS:
            raise ArithmeticError(
                f"the oracle did not certify {len(bad)} values at {MAX_BITS} bits"
            )
    return _assemble(x, conv, sin, cos)


def _assemble(
    x: NDArray[np.float64], conv: FourierConvention, sin: Any, cos: Any
) -> NDArray[np.float64]:
    n = x.shape[0]
    out = np.empty((n, conv.width), dtype=np.float64)
    for column, (kind, j) in enumerate(conv.columns()):
        out[:, column] = {"sin": sin, "cos": cos, "raw": x}[kind][:, j]
    return out
