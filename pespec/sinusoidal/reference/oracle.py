"""The certified oracle: correctly rounded float64 encodings from exact arithmetic (SPEC Annex B).

What: every float64 this module returns is the round-to-nearest-even float64 of the exact
real value of SPEC §1 and §3, proved for each element before it is returned. Why: it is the
ground truth of the golden fixtures, the exact reference's tests and every conformance
verdict.

How, in one line: MPFR (through gmpy2) at a working precision P, a rigorous bound on the
error, and Ziv's strategy (accept only if the whole error interval rounds to one float64,
else double P). The error bounds of the direct path and of the angle-addition tables
(:func:`_table_rows`), the certification check, the precision rule and the termination
argument are in SPEC Annex B.2 and Annex B.3; they are not repeated here. Nothing is rounded through
a decimal string; inputs are taken at their exact values (ints of any size, float64
positions and bases as their exact binary value).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import numbers
import os
import sys
import threading
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import lru_cache
from multiprocessing import shared_memory
from typing import Any, TypeVar

import gmpy2
import mpmath
import numpy as np
from numpy.typing import NDArray

from pespec.numerics.rounding import (
    F64_MIN_SAFE,
    SLACK,
    dyadic_to_mpfr,
    exact_positions,
    rational_omega,
    round_certified,
    round_interval,
)
from pespec.sinusoidal.reference.conventions import CANONICAL, Convention
from pespec.sinusoidal.reference.validation import check_base, check_d_model

__all__ = [
    "GUARD_BITS",
    "PARALLEL_THRESHOLD",
    "START_BITS",
    "amplitude_mpfr",
    "dyadic_to_mpfr",
    "encode",
    "encode_decimal",
    "exact_positions",
    "frequencies_dd",
    "frequencies_mpf",
    "rational_omega",
    "round_certified",
    "round_interval",
    "row_precision",
]

_R = TypeVar("_R")

PARALLEL_THRESHOLD = 1 << 17
"""Requests with at least this many values are split over worker processes."""

GUARD_BITS = 24
"""Extra bits above the need of float64 at the first try; a retry happens with
probability about 2^-(GUARD_BITS - 2) per value."""

START_BITS = 128
"""First precision of the one-value Ziv loops (ω_k, the output scale A). Tests lower it (to 8)
to force their retries; the result is the same certified float64."""

_MAX_PRECISION = 1 << 22
"""Give up (RuntimeError) past this many bits: never reached in practice (the exact value
would have to lie within about 2^-4000000 of a rounding boundary)."""

_F64_MIN_NORMAL = 2.0**-1022
"""An upper bound of ω̃ wherever float(ω̃) is subnormal (and so has lost relative accuracy)."""


# ---------------------------------------------------------------------------
# exact inputs


def _exact_denominator(d_model: int, convention: Convention) -> Fraction:
    """den = d/2 − s as an exact rational (s taken at its exact binary value); raises if ≤ 0."""
    if not isinstance(convention, Convention):
        raise TypeError(
            f"convention must be a pespec Convention; got {convention!r} "
            f"(type {type(convention).__name__})"
        )
    convention.denominator(d_model)  # the clear error for undefined conventions
    den = Fraction(d_model // 2) - Fraction(convention.frequency_shift)
    if den <= 0:  # float rounding in denominator() could hide a tiny non-positive value
        raise ValueError(
            f"convention {convention.name!r} is undefined for d_model={d_model}: "
            f"d/2 - frequency_shift = {den} must be > 0"
        )
    return den


def _ln(base: Fraction) -> float:
    """ln(base) in float64 (a few ulps), also for int bases beyond float64's range."""
    if base.denominator == 1:
        return math.log(base.numerator)  # exact int argument, any size
    return math.log(float(base))  # float bases are exact floats


def _describe(base: Fraction) -> str:
    """The base for a message: ``%g`` of its float, or its decimal magnitude beyond float64."""
    try:
        return f"{float(base):g}"
    except OverflowError:
        return f"~1e{math.log10(base.numerator) - math.log10(base.denominator):.1f}"


_MAX_T = float(2**29)
"""Largest t = ln(base)·k/(d/2 − s) the oracle evaluates: ω = e^-t stays far inside MPFR's
exponent range (2^-1073741823), so exp never underflows to 0 (which would void the bound)."""


def _check_exponent_range(
    d_model: int, base: Fraction, den: Fraction, convention: Convention
) -> None:
    """Reject configurations whose lowest frequency is beyond MPFR's exponent range."""
    t_max = _ln(base) * float(Fraction(d_model // 2 - 1) / den) if d_model > 2 else 0.0
    if not t_max <= _MAX_T:
        raise ValueError(
            f"convention {convention.name!r} with d_model={d_model}, base={_describe(base)}: "
            f"the lowest frequency base^-((d/2 - 1)/(d/2 - s)) = e^-{t_max:.3g} is below the "
            f"oracle's range e^-{_MAX_T:.3g} (d/2 - frequency_shift = {float(den):.3g} is too "
            f"close to 0)"
        )


def _exact_base(base: Any) -> Fraction:
    """The base as an exact rational (a float at its binary value, an int exactly)."""
    if isinstance(base, numbers.Integral) and not isinstance(base, bool):
        value = int(base)
        if value <= 1:
            raise ValueError(f"base must be a finite real number > 1; got {value}")
        return Fraction(value)
    return Fraction(check_base(base))


# ---------------------------------------------------------------------------
# frequencies


def _omega_at(base: Fraction, den: Fraction, ks: range, precision: int) -> list[Any]:
    """ω̃_k = exp(−(ln(base)·(k·M))/N) at ``precision`` bits for k in ``ks`` (den = N/M);
    four correctly rounded operations each (module docstring)."""
    with gmpy2.context(precision=precision):
        log_base = gmpy2.log(dyadic_to_mpfr(base))
        return [gmpy2.exp(-(log_base * (k * den.denominator)) / den.numerator) for k in ks]


@lru_cache(maxsize=64)
def _omega_mpfr(
    d_model: int, base: Fraction, den: Fraction, precision: int
) -> tuple[tuple[Any, ...], NDArray[np.float64], NDArray[np.float64]]:
    """(ω̃_k at ``precision`` bits, ω̃_k as float64, upper bounds of t_k = ln(base)·k/den)."""
    half = d_model // 2
    omegas = tuple(_omega_at(base, den, range(half), precision))
    t_upper = _ln(base) * np.arange(half, dtype=np.float64) / float(den) * SLACK**2
    omega_f = np.array([float(w) for w in omegas], dtype=np.float64)
    return omegas, omega_f, t_upper


def _bound(value: float) -> Any:
    """A float64 upper bound as an exact mpfr."""
    return gmpy2.mpfr(value * SLACK, 53)


def _certified_omega(base: Fraction, den: Fraction, k: int) -> tuple[float, float]:
    """(hi, lo): ω_k rounded to float64, and (ω_k − hi) rounded to float64."""
    exponent = Fraction(k) / den
    if exponent * Fraction(_ln(base)) > 750:
        # ω = e^-t < e^-749.9 < 2^-1081: ω and ω − 0 both round to +0 (ln(base) is good to a
        # few ulps). Decided before the rational path, whose exact power would be enormous.
        return 0.0, 0.0
    rational = rational_omega(base, exponent)
    if rational is not None:
        nearest = float(rational)  # int / int: correctly rounded by CPython
        return nearest, float(rational - Fraction(nearest))
    t_upper = _ln(base) * float(exponent) * SLACK**2
    precision = START_BITS + max(0, math.ceil(math.log2(t_upper + 1.0)))
    while precision <= _MAX_PRECISION:
        omega = _omega_at(base, den, range(k, k + 1), precision)[0]
        # |ω̃ − ω| ≤ |ω̃|·(4·t + 2)·2^-P (module docstring, without the θ product)
        with gmpy2.context(precision=64, round=gmpy2.RoundUp):
            err = abs(omega) * _bound(4.0 * t_upper + 2.0) * gmpy2.mul_2exp(1, -precision)
        hi = round_interval(omega, err)
        if hi is not None:
            with gmpy2.context(precision=precision + 64):
                residual = omega - gmpy2.mpfr(hi)  # exact
            lo = round_interval(residual, err)
            if lo is not None:
                return hi, lo
        precision *= 2
    raise RuntimeError(f"could not certify omega_{k} (base={base}, den={den})")


@lru_cache(maxsize=256)
def _frequencies_dd_cached(
    d_model: int, base: Fraction, den: Fraction
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    pairs = [_certified_omega(base, den, k) for k in range(d_model // 2)]
    hi = np.array([p[0] for p in pairs], dtype=np.float64)
    lo = np.array([p[1] for p in pairs], dtype=np.float64)
    hi.setflags(write=False)
    lo.setflags(write=False)
    return hi, lo


def frequencies_dd(
    d_model: int, base: float = 10000.0, *, convention: Convention = CANONICAL
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ω_k = base^(−k/(d/2 − s)) as a double-double (hi, lo), each of shape (d/2,).

    hi is ω_k correctly rounded to float64 and lo is (ω_k − hi) correctly rounded, so
    hi + lo equals ω_k to about 106 bits. Both certified (module docstring); cached per
    (d_model, base, convention frequencies); the arrays are read-only. The position
    offset and argument scale are not folded in.
    """
    d = check_d_model(d_model)
    return _frequencies_dd_cached(d, _exact_base(base), _exact_denominator(d, convention))


def frequencies_mpf(
    d_model: int,
    base: float = 10000.0,
    *,
    digits: int = 40,
    convention: Convention = CANONICAL,
) -> list[mpmath.mpf]:
    """ω_k = base^(−k/(d/2 − s)), k = 0 .. d/2−1, as mpmath numbers good to ``digits``
    significant digits (computed with 20 guard digits; mpmath's power is accurate to
    its working precision)."""
    d = check_d_model(d_model)
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be an int >= 1; got {digits!r}")
    exact_base = _exact_base(base)
    den = _exact_denominator(d, convention)
    with mpmath.workdps(digits + 20):
        b = mpmath.mpf(exact_base.numerator) / exact_base.denominator
        return [
            mpmath.power(b, -mpmath.mpf(k * den.denominator) / den.numerator) for k in range(d // 2)
        ]


# ---------------------------------------------------------------------------
# encoding


def _magnitude_bits(x: Fraction) -> int:
    """An int b ≥ 0 with |x| < 2^b (exact integer arithmetic: x may exceed float64)."""
    return max(0, abs(x.numerator).bit_length() - x.denominator.bit_length() + 1)


def row_precision(x_bits: int, t_max: float) -> int:
    """Working precision for a row whose |x| < 2^x_bits; a multiple of 32 (cache sharing)."""
    t_bits = math.ceil(math.log2(4.0 * t_max + 3.0))
    need = 53 + max(0, x_bits) + t_bits + GUARD_BITS
    # the bound's first-order expansion needs (4·t + 3)·2^-P ≤ 2^-20 (module docstring)
    return 32 * math.ceil(max(need, t_bits + 32) / 32)


def _scalar_value(
    x: Any,
    base: Fraction,
    den: Fraction,
    k: int,
    want_sin: bool,
    precision: int,
    rounder: Callable[[Any], _R] = float,  # type: ignore[assignment]
    square: Fraction | None = None,
) -> _R:
    """rounder(A·sin or A·cos of x·ω_k), certified: recompute at doubled precision until the
    whole error interval has one rounded result. ``square``: A² (None: A = 1)."""
    t_upper = _ln(base) * k / float(den) * SLACK**2
    while precision <= _MAX_PRECISION:
        omega = _omega_at(base, den, range(k, k + 1), precision)[0]
        with gmpy2.context(precision=precision):
            theta = x * omega
            value = gmpy2.sin(theta) if want_sin else gmpy2.cos(theta)
            if square is not None:
                value = value * amplitude_mpfr(square)
        with gmpy2.context(precision=64, round=gmpy2.RoundUp):
            scaled = abs(theta) * _bound(4.0 * t_upper + 3.0) + 2 * abs(value)
            if square is not None:  # A·(angle term) + |ỹ|·(2 + 1.5 + 1): √ and product
                scaled = scaled + 4 * abs(value)
            err = scaled * gmpy2.mul_2exp(1, -precision)
        result = round_interval(value, err, rounder)
        if result is not None:
            return result
        precision *= 2
    raise RuntimeError(f"could not certify value at x={x}, k={k}")


def _square(convention: Convention, d_model: int) -> Fraction | None:
    """A² of the convention's output scale at ``d_model``; None when A = 1 (no product)."""
    return None if convention.output_scale == 1.0 else convention.amplitude_squared(d_model)


def amplitude_mpfr(square: Fraction) -> Any:
    """A = √(A²) in the current gmpy2 context: within 1.5 units of its precision (the
    rational rounded once, then a correctly rounded square root; exact for a float64 A)."""
    return gmpy2.sqrt(gmpy2.mpfr(gmpy2.mpq(square.numerator, square.denominator)))


def _sqrt_certified(square: Fraction) -> float:
    """A correctly rounded to float64, certified like every oracle value."""
    precision = START_BITS
    while True:
        with gmpy2.context(precision=precision):
            value = amplitude_mpfr(square)
        with gmpy2.context(precision=64, round=gmpy2.RoundUp):
            err = 2 * abs(value) * gmpy2.mul_2exp(1, -precision)
        result = round_interval(value, err, float)
        if result is not None:
            return result
        precision *= 2


def _direct_rows(
    xs: Sequence[Fraction],
    d_model: int,
    base: Fraction,
    den: Fraction,
    sin_out: NDArray[np.float64],
    cos_out: NDArray[np.float64],
    square: Fraction | None = None,
) -> None:
    """Fill rows of (sin_out, cos_out) (shape (len(xs), d/2)) from sin_cos(x·ω̃_k).

    Error bound per element (module docstring): |θ̃|·(4·t_k + 3)·u + 2·|ỹ|·u. With an
    output scale (``square`` = A², Ã = √A² at precision P within 1.5u, ỹ = fl(Ã·ṽ)):
    A·|θ̃|·(4·t_k + 3)·u + 6·|ỹ|·u (2 of ṽ, 1.5 of Ã, 1 of the product, 1.5 spare).
    """
    half = d_model // 2
    t_max = _ln(base) * (half - 1) / float(den)
    sin_cos = gmpy2.sin_cos
    for row, x_exact in enumerate(xs):
        if x_exact == 0:  # θ = 0 exactly: sin 0 = 0, cos 0 = 1 (times A)
            sin_out[row] = 0.0
            cos_out[row] = 1.0 if square is None else _sqrt_certified(square)
            continue
        x = dyadic_to_mpfr(x_exact)
        precision = row_precision(_magnitude_bits(x_exact), t_max)
        omegas, omega_f, t_upper = _omega_mpfr(d_model, base, den, precision)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            theta = abs(float(x)) * np.maximum(omega_f * SLACK, _F64_MIN_NORMAL)
            angle_term = theta * (4.0 * t_upper + 3.0)  # in units of 2^-precision
            angle_term[~(theta > F64_MIN_SAFE)] = np.inf  # underflow: scalar path
        factor = 2
        with gmpy2.context(precision=precision):
            pairs = [sin_cos(x * w) for w in omegas]
            sines = [p[0] for p in pairs]
            cosines = [p[1] for p in pairs]
            if square is not None:
                amplitude = amplitude_mpfr(square)
                sines = [amplitude * v for v in sines]
                cosines = [amplitude * v for v in cosines]
                angle_term = angle_term * (float(amplitude) * SLACK)
                factor = 6
            results = [
                (True, sin_out, *round_certified(sines, angle_term, factor, 0, precision)),
                (False, cos_out, *round_certified(cosines, angle_term, factor, 0, precision)),
            ]
        for want_sin, out, hi, failed in results:
            out[row] = hi
            for k in failed:
                out[row, k] = _scalar_value(x, base, den, k, want_sin, 2 * precision, float, square)


_TABLE_BLOCK = 64
"""Integer angles x = B·q + r are evaluated from tables of sin/cos(B·q·ω) and sin/cos(r·ω)."""


def _table_rows(
    xs: Sequence[int],
    d_model: int,
    base: Fraction,
    den: Fraction,
    sin_out: NDArray[np.float64],
    cos_out: NDArray[np.float64],
) -> None:
    """Fill rows for nonzero integer x (|x| < 2^62) by the angle-addition formulas.

    With x = B·q + r (0 ≤ r < B), a = B·q·ω̃_k and b = r·ω̃_k are each one rounding away
    from exact and their sines and cosines come from one table per k, so a request with
    many positions needs few ``sin_cos`` calls; then
    sin(a + b) = s_a·c_b + c_a·s_b and cos(a + b) = c_a·c_b − s_a·s_b, three roundings.
    Error bound: |θ̃_a − θ_a| + |θ̃_b − θ_b| ≤ (|θ̃_a| + |θ̃_b|)·(4·t_k + 3)·u (as for θ̃);
    the four table entries are within u of the sine/cosine of θ̃_a, θ̃_b, contributing
    ≤ 4.04u, and the products and the sum ≤ 2.03u (|s_a·c_b| + |c_a·s_b| ≤ 1.01 by
    Cauchy–Schwarz): err = (|θ̃_a| + |θ̃_b|)·(4·t_k + 3)·u + 7u.
    """
    half = d_model // 2
    t_max = _ln(base) * (half - 1) / float(den)
    precision = row_precision(max(_magnitude_bits(Fraction(x)) for x in xs), t_max)
    omegas, omega_f, t_upper = _omega_mpfr(d_model, base, den, precision)
    omega_bound = np.maximum(omega_f * SLACK, _F64_MIN_NORMAL)  # ≥ ω̃_k even if subnormal
    highs = sorted({x // _TABLE_BLOCK for x in xs})
    lows = sorted({x % _TABLE_BLOCK for x in xs})
    high_index = {q: i for i, q in enumerate(highs)}
    low_index = {r: i for i, r in enumerate(lows)}
    index = [(high_index[x // _TABLE_BLOCK], low_index[x % _TABLE_BLOCK]) for x in xs]
    a_exact = [dyadic_to_mpfr(Fraction(q * _TABLE_BLOCK)) for q in highs]
    b_exact = [dyadic_to_mpfr(Fraction(r)) for r in lows]
    magnitude = np.array(
        [abs(float(x // _TABLE_BLOCK * _TABLE_BLOCK)) + x % _TABLE_BLOCK for x in xs]
    )
    sin_cos = gmpy2.sin_cos
    for k, w in enumerate(omegas):
        angle_term = magnitude * (float(omega_bound[k]) * (4.0 * t_upper[k] + 3.0))
        with gmpy2.context(precision=precision):
            table_a = [sin_cos(a * w) for a in a_exact]
            table_b = [sin_cos(b * w) for b in b_exact]
            sa = [v[0] for v in table_a]
            ca = [v[1] for v in table_a]
            sb = [v[0] for v in table_b]
            cb = [v[1] for v in table_b]
            sines = [sa[i] * cb[j] + ca[i] * sb[j] for i, j in index]
            cosines = [ca[i] * cb[j] - sa[i] * sb[j] for i, j in index]
            results = [
                (True, sin_out, *round_certified(sines, angle_term, 0, 7, precision)),
                (False, cos_out, *round_certified(cosines, angle_term, 0, 7, precision)),
            ]
        for want_sin, out, hi, failed in results:
            out[:, k] = hi
            for row in failed:
                x = dyadic_to_mpfr(Fraction(xs[row]))
                out[row, k] = _scalar_value(x, base, den, k, want_sin, 2 * precision)


def _certified_rows(
    xs: Sequence[Fraction],
    d_model: int,
    base: Fraction,
    den: Fraction,
    square: Fraction | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(sin, cos) certified float64 arrays of shape (len(xs), d/2) for the angles x·ω_k.

    Nonzero integer x go through the table path when that saves most ``sin_cos`` calls,
    the rest through the direct path; both certify every element with vectorised float64
    bounds, and the rare element that fails (or lies where those bounds could underflow)
    is recomputed alone by :func:`_scalar_value`. ``square`` = A² of an output scale (None:
    A = 1); scaled rows all take the direct path.
    """
    half = d_model // 2
    sin_out = np.empty((len(xs), half), dtype=np.float64)
    cos_out = np.empty((len(xs), half), dtype=np.float64)
    integer_rows = [i for i, x in enumerate(xs) if x.denominator == 1 and x != 0 and abs(x) < 2**62]
    ints = [int(xs[i]) for i in integer_rows]
    table_size = len({x // _TABLE_BLOCK for x in ints}) + len({x % _TABLE_BLOCK for x in ints})
    if square is None and len(ints) >= 16 and 2 * table_size <= len(ints):
        table_sin = np.empty((len(ints), half), dtype=np.float64)
        table_cos = np.empty((len(ints), half), dtype=np.float64)
        _table_rows(ints, d_model, base, den, table_sin, table_cos)
        sin_out[integer_rows] = table_sin
        cos_out[integer_rows] = table_cos
        other = sorted(set(range(len(xs))) - set(integer_rows))
    else:
        other = list(range(len(xs)))
    if other:
        direct_sin = np.empty((len(other), half), dtype=np.float64)
        direct_cos = np.empty((len(other), half), dtype=np.float64)
        _direct_rows([xs[i] for i in other], d_model, base, den, direct_sin, direct_cos, square)
        sin_out[other] = direct_sin
        cos_out[other] = direct_cos
    return sin_out, cos_out


def _scaled_positions(
    positions: Any, convention: Convention
) -> tuple[tuple[int, ...], list[Fraction]]:
    """(shape, exact x = c·(p + o) for every position, flattened)."""
    shape, exact = exact_positions(positions)
    scale = Fraction(convention.argument_scale)
    offset = int(convention.position_offset)
    return shape, [scale * (p + offset) for p in exact]


# shared state of a forked computation: set in the parent before forking, read by the child
_FORK_JOB: tuple[list[Fraction], int, Fraction, Fraction, str, tuple[int, int]] | None = None


def _fork_worker() -> None:
    """Child process: compute rows [start, stop) of _FORK_JOB into its shared memory block."""
    assert _FORK_JOB is not None
    xs, d_model, base, den, shm_name, (start, stop) = _FORK_JOB
    block = shared_memory.SharedMemory(name=shm_name)
    try:
        half = d_model // 2
        out = np.ndarray((2, len(xs), half), dtype=np.float64, buffer=block.buf)
        sin_part, cos_part = _certified_rows(xs[start:stop], d_model, base, den)
        out[0, start:stop] = sin_part
        out[1, start:stop] = cos_part
        del out
    finally:
        block.close()


def _can_fork() -> bool:
    """Fork only where it is available and safe: no other Python threads in this process and
    no library known to run native threads of its own (JAX warns that forking after it is
    imported "will likely lead to a deadlock"); otherwise the parent computes every row."""
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and "jax" not in sys.modules
    )


def _sin_cos_table(
    xs: list[Fraction],
    d_model: int,
    base: Fraction,
    den: Fraction,
    workers: int,
    square: Fraction | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Certified (sin, cos) tables, shape (len(xs), d/2), using up to ``workers`` processes.

    The split is deterministic and every element is correctly rounded on its own, so the
    result does not depend on the number of workers. Results come back through shared
    memory (no pickling); the parent computes the first chunk itself. ``square``: A² of an
    output scale; scaled tables are computed in this process.
    """
    n_values = len(xs) * d_model
    if square is not None:
        return _certified_rows(xs, d_model, base, den, square)
    if workers <= 1 or n_values < PARALLEL_THRESHOLD or len(xs) < 2 or not _can_fork():
        return _certified_rows(xs, d_model, base, den)
    global _FORK_JOB
    workers = min(workers, len(xs))
    bounds = np.linspace(0, len(xs), workers + 1).astype(int).tolist()
    half = d_model // 2
    block = shared_memory.SharedMemory(create=True, size=max(1, 16 * len(xs) * half))
    context = multiprocessing.get_context("fork")
    children = []
    try:
        for start, stop in itertools.pairwise(bounds[1:]):
            _FORK_JOB = (xs, d_model, base, den, block.name, (start, stop))
            child = context.Process(target=_fork_worker, daemon=True)
            child.start()
            children.append(child)
        _FORK_JOB = None
        sin_first, cos_first = _certified_rows(xs[: bounds[1]], d_model, base, den)
        for child in children:
            child.join()
            if child.exitcode != 0:
                raise RuntimeError(f"oracle worker process failed (exit code {child.exitcode})")
        shared = np.ndarray((2, len(xs), half), dtype=np.float64, buffer=block.buf)
        sin_all = shared[0].copy()
        cos_all = shared[1].copy()
        del shared
        sin_all[: bounds[1]] = sin_first
        cos_all[: bounds[1]] = cos_first
        return sin_all, cos_all
    finally:
        _FORK_JOB = None
        for child in children:
            if child.is_alive():
                child.kill()
                child.join()
        block.close()
        block.unlink()


def _default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def encode(
    positions: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    convention: Convention = CANONICAL,
    workers: int | None = None,
) -> NDArray[np.float64]:
    """Certified correctly rounded encoding; shape (*positions.shape, d_model), float64.

    Element [..., j] is the round-to-nearest-even float64 of A·sin θ or A·cos θ (per
    ``convention.layout``), θ = c·(p + o)·base^(−k/(d/2 − s)) and A (the output scale)
    evaluated exactly.
    ``positions``: an array or nested sequence of ints (any size) or floats (exact).
    ``workers``: processes for large requests (default: the CPU count, at most 8).
    """
    d = check_d_model(d_model)
    exact_base = _exact_base(base)
    den = _exact_denominator(d, convention)
    _check_exponent_range(d, exact_base, den, convention)
    shape, xs = _scaled_positions(positions, convention)
    if workers is None:
        workers = _default_workers()
    elif isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1; got {workers!r}")
    sin_table, cos_table = _sin_cos_table(xs, d, exact_base, den, workers, _square(convention, d))
    out = np.empty((len(xs), d), dtype=np.float64)
    out[:, convention.sin_columns(d)] = sin_table
    out[:, convention.cos_columns(d)] = cos_table
    return out.reshape((*shape, d))


def encode_decimal(
    positions: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    convention: Convention = CANONICAL,
    digits: int = 40,
) -> list[list[str]]:
    """Exact decimal strings: one row per position (flattened), d_model columns each.

    Every string is the exact value correctly rounded to ``digits`` significant digits, in
    scientific notation (``digits=20``: ``8.4147098480789650665e-01`` for sin 1), certified
    like :func:`encode` (both ends of the error interval give the same string). For
    implementers working beyond float64; slow (one element at a time).
    """
    d = check_d_model(d_model)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 10_000:
        raise ValueError(f"digits must be an int in [1, 10000]; got {digits!r}")
    exact_base = _exact_base(base)
    den = _exact_denominator(d, convention)
    _check_exponent_range(d, exact_base, den, convention)
    _, xs = _scaled_positions(positions, convention)
    pair, is_sin = convention.column_roles(d)
    spec = f".{digits - 1}e"

    def to_decimal(value: Any) -> str:
        return format(value, spec)

    square = _square(convention, d)
    zero, one = to_decimal(gmpy2.mpfr(0)), to_decimal(gmpy2.mpfr(1))
    t_max = _ln(exact_base) * (d // 2 - 1) / float(den)
    rows = []
    for x_exact in xs:
        if x_exact == 0:  # sin 0 = 0 (never −0), cos 0 = 1 times A
            if square is not None:
                one = _scalar_value(
                    gmpy2.mpfr(0), exact_base, den, 0, False, 128, to_decimal, square
                )
            rows.append([zero if s else one for s in is_sin.tolist()])
            continue
        x = dyadic_to_mpfr(x_exact)
        x_bits = _magnitude_bits(x_exact)
        precision = row_precision(x_bits + math.ceil(digits * math.log2(10)) - 53, t_max)
        rows.append(
            [
                _scalar_value(x, exact_base, den, k, s, precision, to_decimal, square)
                for k, s in zip(pair.tolist(), is_sin.tolist(), strict=True)
            ]
        )
    return rows
