"""The certified rotary oracle (SPEC Annex B.6): correctly rounded float64 ω'_j, A, cos/sin, y.

Every float64 returned is the round-to-nearest-even float64 of the exact real value of
SPEC §8.1/§8.3, proved element by element with Ziv's strategy, as the absolute oracle
does (SPEC Annex B; its helpers are imported from :mod:`pespec.sinusoidal.reference.oracle`):

* ω'_j and A: the schedule is evaluated once in outward-rounded interval arithmetic
  (:mod:`pespec.rope._exact_schedule`), which also decides every branch (YaRN's floor and
  ceiling, the clamps, llama3's thresholds) on intervals that exclude the boundary; a value
  is accepted when both ends of its interval round to the same float64, otherwise the
  precision doubles. A value that is a float64 midpoint (possible only when it is rational)
  is found by the exact rational evaluation instead.
* cos φ_j(p), sin φ_j(p), φ_j(p) = p·ω'_j for p an int (any size) or a float64 taken
  exactly: with ω̃ the midpoint of ω'_j's interval (radius r) at P bits, φ̃ = p·ω̃ rounded
  once and the sine/cosine rounded once by MPFR,
  |ỹ − y| ≤ |p|·r + |φ̃|·2^-P + |ỹ|·2^-P (sin and cos are 1-Lipschitz).
* the rotated output y = A·(a cos φ − b sin φ), A·(a sin φ + b cos φ) for exactly given
  float64 x: with c̃, s̃ within e_c, e_s and Ã within r_A, t̃ = a·c̃ − b·s̃ (three roundings),
  |t̃ − t| ≤ |a|e_c + |b|e_s + (|a c̃| + |b s̃| + |t̃|)·2^-P and
  |ỹ − y| ≤ |Ã|·|t̃ − t| + r_A·(|t̃| + |t̃ − t|) + |ỹ|·2^-P.

Termination: for φ ≠ 0 algebraic (every schedule but llama3's ramp band and untruncated
YaRN, whose ω' involve π or logarithms), sin φ, cos φ and a·cos φ − b·sin φ ((a, b) ≠ 0) are
transcendental (Lindemann–Weierstrass), so never a float64 or a midpoint; φ = 0 and x = 0
are exact cases. Past 2^22 bits the oracle raises RuntimeError (never seen).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

import gmpy2
import numpy as np
from numpy.typing import NDArray

from pespec.numerics.rounding import (
    SLACK,
    dyadic_to_mpfr,
    exact_positions,
    round_certified,
    round_interval,
)
from pespec.rope._exact_schedule import (
    NOT_RATIONAL,
    IntervalArith,
    RationalArith,
    Undecided,
    ends,
    interval_precision,
    schedule,
)
from pespec.rope.config import RopeConfig
from pespec.rope.schedules.registry import SCHEDULES

__all__ = ["GUARD_BITS", "attention_factor", "cos_sin", "frequencies", "frequencies_dd", "rotate"]

F64 = NDArray[np.float64]

_MAX_PRECISION = 1 << 22
_RATIONAL_AFTER = 1 << 12
"""Try the exact rational evaluation once the interval precision passes this."""
_RUN_STEP = 256
"""Interval runs are made at multiples of this many bits, so most requests share one."""
GUARD_BITS = 24
"""Extra bits above float64's need at a row's first try. Tests lower it (to −100: every row
then starts at 16 bits) to force the scalar Ziv retries of cos/sin and of the rotation."""
_MIN_PRECISION = 16


def _check_config(config: Any) -> RopeConfig:
    if not isinstance(config, RopeConfig):
        raise TypeError(f"config must be a pespec.rope.RopeConfig; got {type(config).__name__}")
    if config.seq_len_rule is not None:
        raise ValueError(
            f"config must have a fixed seq_len here; got seq_len_rule {config.seq_len_rule!r} "
            "(ω' depends on each call's ℓ: take pespec.rope.per_call.at_seq_len(config, ℓ))"
        )
    return config


# ---------------------------------------------------------------------------
# ω'_j and A


@lru_cache(maxsize=128)
def _interval_run(config: RopeConfig, precision: int) -> tuple[list[Any], Any, list[Any], int]:
    """(ω' intervals, A interval, decisions, precision used), raising the precision until
    every branch is decided; cached (callers round the precision up to share runs)."""
    while precision <= _MAX_PRECISION:
        try:
            with interval_precision(precision):
                arith = IntervalArith()
                omegas, attention = schedule(config, arith)
                return omegas, attention, arith.decisions, precision
        except Undecided:
            precision *= 2
    raise RuntimeError(f"could not decide the schedule's branches for {config!r}")


def _round_ends(low: Fraction, high: Fraction) -> float | None:
    low_f, high_f = float(low), float(high)
    return low_f if low_f == high_f else None


def _round_dd(low: Fraction, high: Fraction) -> tuple[float, float] | None:
    """(hi, lo) of a value known to lie in [low, high], or None if not decided."""
    hi = _round_ends(low, high)
    if hi is None:
        return None
    lo = _round_ends(low - Fraction(hi), high - Fraction(hi))
    return None if lo is None else (hi, lo)


class _Certified(NamedTuple):
    hi: tuple[float, ...]
    lo: tuple[float, ...]
    attention: float


@lru_cache(maxsize=64)
def _certified(config: RopeConfig) -> _Certified:
    precision = _RUN_STEP
    while True:
        omegas, attention, decisions, precision = _interval_run(config, precision)
        pairs = [_round_dd(*ends(w)) for w in omegas]
        a_value = _round_ends(*ends(attention))
        if a_value is not None and all(p is not None for p in pairs):
            return _Certified(
                tuple(p[0] for p in pairs if p), tuple(p[1] for p in pairs if p), a_value
            )
        if precision >= _RATIONAL_AFTER:
            break
        precision *= 2
    # only a rational value can be a float64 midpoint: round those exactly
    exact_omegas, exact_attention = schedule(config, RationalArith(decisions))
    hi, lo = [], []
    for j, pair in enumerate(pairs):
        if pair is None:
            value = exact_omegas[j]
            if value is NOT_RATIONAL:
                raise RuntimeError(f"could not certify omega'_{j} of {config!r}")
            pair = (float(value), float(value - Fraction(float(value))))
        hi.append(pair[0])
        lo.append(pair[1])
    if a_value is None:
        if exact_attention is NOT_RATIONAL:
            raise RuntimeError(f"could not certify the attention factor of {config!r}")
        a_value = float(exact_attention)
    return _Certified(tuple(hi), tuple(lo), a_value)


def frequencies(config: RopeConfig) -> tuple[F64, float]:
    """(ω'_j correctly rounded to float64, shape (d_r/2,), A correctly rounded)."""
    certified = _certified(_check_config(config))
    return np.array(certified.hi, dtype=np.float64), certified.attention


def frequencies_dd(config: RopeConfig) -> tuple[F64, F64]:
    """ω'_j as a double-double (hi, lo): hi correctly rounded, lo = fl(ω'_j − hi)."""
    certified = _certified(_check_config(config))
    return np.array(certified.hi), np.array(certified.lo)


def attention_factor(config: RopeConfig) -> float:
    """A correctly rounded to float64."""
    return _certified(_check_config(config)).attention


def _exact_attention(config: RopeConfig) -> Fraction | None:
    """A as an exact rational where it is one by construction (else None)."""
    if config.attention_factor is not None:
        return Fraction(config.attention_factor)
    return SCHEDULES[config.rope_type].exact_attention(config)


class _Enclosure(NamedTuple):
    """Midpoints (exact mpfr) and radii (float64 upper bounds) of ω'_j and A."""

    omega: tuple[Any, ...]
    omega_radius: tuple[float, ...]
    attention: Any
    attention_radius: float
    attention_exact: Fraction | None


def _midpoint(value: Any) -> tuple[Any, float]:
    low, high = ends(value)
    mid = (low + high) / 2
    return dyadic_to_mpfr(mid), float((high - low) / 2) * SLACK


def _enclosure(config: RopeConfig, precision: int) -> _Enclosure:
    """The enclosure at ``precision`` bits or more (runs shared in steps of 256 bits)."""
    return _enclosure_at(config, _RUN_STEP * math.ceil(precision / _RUN_STEP))


@lru_cache(maxsize=64)
def _enclosure_at(config: RopeConfig, precision: int) -> _Enclosure:
    omegas, attention, _, _ = _interval_run(config, precision)
    mids = [_midpoint(w) for w in omegas]
    a_mid, a_rad = _midpoint(attention)
    return _Enclosure(
        tuple(m for m, _ in mids), tuple(r for _, r in mids), a_mid, a_rad, _exact_attention(config)
    )


def _magnitude_bits(x: Fraction) -> int:
    return max(0, abs(x.numerator).bit_length() - x.denominator.bit_length() + 1)


def _row_precision(config: RopeConfig, x: Fraction) -> int:
    """Working precision for position x (a multiple of 64, so rows share enclosures)."""
    omega_bits = max(0, math.ceil(math.log2(max(_certified(config).hi))) + 1)
    need = 53 + GUARD_BITS + _magnitude_bits(x) + omega_bits + 16
    return max(_MIN_PRECISION, 64 * math.ceil(need / 64))  # 16 only when GUARD_BITS is lowered


# ---------------------------------------------------------------------------
# cos and sin


def _sin_cos_mpfr(
    x: Fraction, config: RopeConfig, precision: int
) -> tuple[list[Any], list[Any], list[float]]:
    """(sin φ̃_j, cos φ̃_j at ``precision`` bits, error bounds in units of 2^-precision
    without the |ỹ| term)."""
    enclosure = _enclosure(config, precision + 32)
    position = dyadic_to_mpfr(x)
    magnitude = abs(float(x))
    angle_term = [
        magnitude * (math.ldexp(r, precision) + abs(float(w)) * SLACK) * SLACK
        for w, r in zip(enclosure.omega, enclosure.omega_radius, strict=True)
    ]
    with gmpy2.context(precision=precision):
        pairs = [gmpy2.sin_cos(position * w) for w in enclosure.omega]
    return [p[0] for p in pairs], [p[1] for p in pairs], angle_term


def _scalar(x: Fraction, config: RopeConfig, j: int, want_sin: bool, precision: int) -> float:
    """One certified sin or cos, recomputed at doubled precision until decided."""
    while precision <= _MAX_PRECISION:
        sines, cosines, angle = _sin_cos_mpfr(x, config, precision)
        value = sines[j] if want_sin else cosines[j]
        with gmpy2.context(precision=64, round=gmpy2.RoundUp):
            err = (gmpy2.mpfr(angle[j]) + 2 * abs(value)) * gmpy2.mul_2exp(1, -precision)
        result = round_interval(value, err)
        if result is not None:
            return result
        precision *= 2
    raise RuntimeError(f"could not certify the rotary angle at position {x}, pair {j}")


def cos_sin(positions: Any, config: RopeConfig) -> tuple[F64, F64]:
    """(cos φ_j(p), sin φ_j(p)) correctly rounded; each of shape (*positions.shape, d_r/2).

    ``positions``: ints of any size or floats (taken exactly), any shape. A is not applied.
    """
    config = _check_config(config)
    shape, xs = exact_positions(positions)
    half = config.d_r // 2
    cos_out = np.empty((len(xs), half))
    sin_out = np.empty((len(xs), half))
    for row, x in enumerate(xs):
        if x == 0:
            cos_out[row], sin_out[row] = 1.0, 0.0
            continue
        precision = _row_precision(config, x)
        sines, cosines, angle = _sin_cos_mpfr(x, config, precision)
        term = np.array(angle)
        with gmpy2.context(precision=precision):
            for out, values, want_sin in ((sin_out, sines, True), (cos_out, cosines, False)):
                hi, failed = round_certified(values, term, 2, 0, precision)
                out[row] = hi
                for j in failed:
                    out[row, j] = _scalar(x, config, j, want_sin, 2 * precision)
    return cos_out.reshape((*shape, half)), sin_out.reshape((*shape, half))


# ---------------------------------------------------------------------------
# the rotation


def pair_indices(
    config: RopeConfig,
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """(read a_j, read b_j, write y for a_j, write y for b_j) column indices (SPEC §8.1)."""
    half = config.d_r // 2
    j = np.arange(half, dtype=np.intp)
    halves = (j, j + half)
    interleaved = (2 * j, 2 * j + 1)
    read = interleaved if config.input_pairing == "interleaved" else halves
    write = interleaved if config.output_pairing == "interleaved" else halves
    return (*read, *write)


def _pair_values(
    a: float,
    b: float,
    s: Any,
    c: Any,
    e_s: float,
    e_c: float,
    enclosure: _Enclosure,
    precision: int,
) -> tuple[float | None, float | None]:
    """Certified (y_a, y_b) from sin/cos values within e_s, e_c, or None where undecided.

    Call inside a gmpy2 context at ``precision``.
    """
    unit = math.ldexp(1.0, -precision)
    results: list[float | None] = []
    for first, second in ((a, -b), (b, a)):  # y_a = A(a c − b s), y_b = A(b c + a s)
        ac, bs = first * c, second * s
        t = ac + bs
        t_err = (
            abs(first) * e_c
            + abs(second) * e_s
            + (abs(float(ac)) + abs(float(bs)) + abs(float(t))) * unit
        ) * SLACK
        y = enclosure.attention * t
        err = (
            abs(float(enclosure.attention)) * t_err
            + enclosure.attention_radius * (abs(float(t)) + t_err)
            + abs(float(y)) * unit
        ) * SLACK**2
        results.append(round_interval(y, gmpy2.mpfr(err)))
    return results[0], results[1]


def _row_values(
    x: Fraction, config: RopeConfig, precision: int
) -> tuple[list[Any], list[Any], list[float], list[float], _Enclosure]:
    """(sin, cos at ``precision`` bits, their absolute error bounds, the enclosure)."""
    enclosure = _enclosure(config, precision + 32)
    half = config.d_r // 2
    if x == 0:
        return [gmpy2.mpfr(0)] * half, [gmpy2.mpfr(1)] * half, [0.0] * half, [0.0] * half, enclosure
    sines, cosines, angle = _sin_cos_mpfr(x, config, precision)
    unit = math.ldexp(1.0, -precision)
    e_s = [(g + 2 * abs(float(v))) * SLACK * unit for g, v in zip(angle, sines, strict=True)]
    e_c = [(g + 2 * abs(float(v))) * SLACK * unit for g, v in zip(angle, cosines, strict=True)]
    return sines, cosines, e_s, e_c, enclosure


def _rotate_pair(
    a: float, b: float, x: Fraction, config: RopeConfig, j: int, precision: int
) -> tuple[float, float]:
    """The certified (y_a, y_b) of one pair, doubling the precision until decided."""
    while precision <= _MAX_PRECISION:
        sines, cosines, e_s, e_c, enclosure = _row_values(x, config, precision)
        with gmpy2.context(precision=precision):
            y_a, y_b = _pair_values(
                a, b, sines[j], cosines[j], e_s[j], e_c[j], enclosure, precision
            )
        if y_a is not None and y_b is not None:
            return y_a, y_b
        precision *= 2
    raise RuntimeError(f"could not certify the rotation at position {x}, pair {j}")


def _exact_pair(a: float, b: float, attention: Fraction) -> tuple[float, float]:
    """p = 0: y = A·(a, b) exactly rounded."""
    return float(attention * Fraction(a)), float(attention * Fraction(b))


def rotate(x: Any, positions: Any, config: RopeConfig) -> F64:
    """Certified rotated vectors: x (n, head_dim) or (..., n, head_dim), positions (n,).

    Each component is the correctly rounded float64 of SPEC §8.1's output for the exact
    float64 values of x; components k ≥ d_r are copied.
    """
    config = _check_config(config)
    values = np.asarray(x)
    if values.dtype.kind != "f" or values.ndim < 2 or values.shape[-1] != config.head_dim:
        raise ValueError(
            f"x must be a float array of shape (..., n, head_dim={config.head_dim}); "
            f"got dtype {values.dtype}, shape {values.shape}"
        )
    values = values.astype(np.float64)
    shape, xs = exact_positions(positions)
    if shape != (values.shape[-2],):
        raise ValueError(f"positions must have shape (n,) = ({values.shape[-2]},); got {shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("x must be finite")
    read_a, read_b, write_a, write_b = pair_indices(config)
    flat_in = values.reshape(-1, *values.shape[-2:])
    attention_exact = _exact_attention(config)
    out: F64 = values.copy()
    flat_out = out.reshape(-1, *values.shape[-2:])
    for row, position in enumerate(xs):
        precision = _row_precision(config, position)
        state = _row_values(position, config, precision)
        for batch in range(flat_in.shape[0]):
            a = flat_in[batch, row, read_a]
            b = flat_in[batch, row, read_b]
            if position == 0 and attention_exact is not None:
                pairs = [
                    _exact_pair(u, v, attention_exact)
                    for u, v in zip(a.tolist(), b.tolist(), strict=True)
                ]
                y_a, y_b = (np.array(v, dtype=np.float64) for v in zip(*pairs, strict=True))
            else:
                y_a, y_b = _rotate_row(a, b, position, config, state, precision)
            flat_out[batch, row, write_a] = y_a
            flat_out[batch, row, write_b] = y_b
    return out


def _rotate_row(
    a: F64,
    b: F64,
    position: Fraction,
    config: RopeConfig,
    state: tuple[list[Any], list[Any], list[float], list[float], _Enclosure],
    precision: int,
) -> tuple[F64, F64]:
    """Certified (y_a, y_b) for one vector's pairs: vectorised bounds, rare scalar retries."""
    sines, cosines, e_s, e_c, enclosure = state
    unit = math.ldexp(1.0, -precision)
    a_list, b_list = a.tolist(), b.tolist()
    results = []
    with gmpy2.context(precision=precision):
        for first, second in ((a_list, [-v for v in b_list]), (b_list, a_list)):
            # y_a = A(a c − b s) (first = a, second = −b); y_b = A(b c + a s)
            products_c = [f * c for f, c in zip(first, cosines, strict=True)]
            products_s = [g * s for g, s in zip(second, sines, strict=True)]
            t = [p + q for p, q in zip(products_c, products_s, strict=True)]
            y = [enclosure.attention * v for v in t]
            magnitude = (
                np.abs([float(v) for v in products_c])
                + np.abs([float(v) for v in products_s])
                + np.abs([float(v) for v in t])
            )
            t_err = (
                np.abs(first) * np.array(e_c) + np.abs(second) * np.array(e_s) + magnitude * unit
            ) * SLACK
            err = abs(float(enclosure.attention)) * t_err + enclosure.attention_radius * (
                np.abs([float(v) for v in t]) + t_err
            )
            with np.errstate(over="ignore", invalid="ignore"):
                term = np.ldexp(err * SLACK**2, precision)
            term[~np.isfinite(term)] = np.inf
            results.append(round_certified(y, term, 1, 0, precision))
    outputs = [hi for hi, _ in results]
    for index, (_, failed) in enumerate(results):
        for j in failed:
            pair = (
                (0.0, 0.0)
                if a[j] == 0.0 and b[j] == 0.0
                else _rotate_pair(float(a[j]), float(b[j]), position, config, j, 2 * precision)
            )
            outputs[index][j] = pair[index]
    return outputs[0], outputs[1]
