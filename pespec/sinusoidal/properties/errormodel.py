"""The error model of SPEC §4: a per-element bound |y − x| for a backend's output y.

A backend computes pair k of position p in working precision T_work (unit roundoff u_w)
and stores the result in T_out (unit roundoff u_out). With the exact angle θ = q·ω_k,
q = c·(p + o) the scaled position, λ_k = |ln ω_k| and Δq the error of q in T_work,

    E(p, k) = u_w·K_f + γ(K_θ(k))·|θ| + ω_k·Δq·(1 + γ(K_θ(k))),
    K_f = c_f,  K_θ(k) ≥ (2·c_f + 2)·(1 + λ_k),  γ(n) = n·u_w / (1 − n·u_w),
    |y − x| ≤ ρ + E,  ρ = ½·ulp*_out(min(|x| + E, 1)) [+ ½·ulp*_32(…) via float32],

where c_f is the accuracy in ulps assumed for sin, cos, exp, log and pow in T_work
(:data:`~pespec.numerics.formats.FUNCTION_ULPS`, SPEC §4.1 A2) and ulp* is the spacing
of T_out below 1 (SPEC §4 has the derivation). Pair 0 has γ = 0 (ω̂_0 = 1, so θ̂ = q̂); a
float64 → float16/bfloat16 cast may round through float32 (the bracketed term); c_f·u_w + ρ
alone bounds the distance to (sin θ̂, cos θ̂) of the backend's own angle (the norm, §5.3).
Everything here is float64 NumPy; shapes are (n, d_model) with columns ordered by
``config.convention``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import (
    DTYPES,
    FUNCTION_ULPS,
    MAX_FINITE,
    SIGNIFICAND_BITS,
    gamma,
    rounding_term,
    ulp,
)
from pespec.sinusoidal.properties.base import LEVELS, EncodingConfig, Level
from pespec.sinusoidal.properties.loglinear import log_linear_gamma
from pespec.sinusoidal.reference.conventions import CANONICAL, Convention
from pespec.sinusoidal.reference.validation import check_base, check_d_model

__all__ = [
    "EVALUATION_SAFETY",
    "TABLE_LEVELS",
    "ElementBound",
    "angle_coefficients",
    "angle_gamma",
    "element_bound",
    "element_bound_parts",
    "frequencies_and_logs",
    "intermediate_dtype",
    "max_element_bound",
    "meaningful_position_limit",
    "output_rounding",
    "reference_error_bound",
    "sup_working_error",
    "u_function",
    "uniqueness_position_limit",
    "working_error",
]

EVALUATION_SAFETY = 1.0 + 2.0**-40
"""The bound is evaluated in float64 with a relative error below 2^-45; this factor keeps
the evaluated number above the exact bound."""

TABLE_LEVELS: tuple[Level, ...] = (
    LEVELS["float64"],
    LEVELS["float32"],
    LEVELS["float16"],
    LEVELS["bfloat16"],
    Level("float32", "float64"),
    Level("float16", "float64"),
    Level("bfloat16", "float64"),
)
"""The levels tabulated in SPEC §4: the four defaults and three claimed stricter levels."""


def frequencies_and_logs(
    d_model: int, base: float = 10000.0, convention: Convention = CANONICAL
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(ω_k, λ_k = |ln ω_k|) for k = 0 .. d/2 − 1, from mpmath at 80 bits, rounded to float64.

    These feed the bound only (relative error ≤ 2^-53, covered by EVALUATION_SAFETY).
    The arrays are read-only (cached).
    """
    d = check_d_model(d_model)
    return _frequencies_and_logs(d, check_base(base), convention.denominator(d))


@lru_cache(maxsize=256)
def _frequencies_and_logs(
    d: int, base: float, den: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    with mpmath.workprec(80):
        log_base = mpmath.log(mpmath.mpf(base))
        steps = [k * log_base / mpmath.mpf(den) for k in range(d // 2)]
        lam = np.array([float(t) for t in steps], dtype=np.float64)
        omega = np.array([float(mpmath.exp(-t)) for t in steps], dtype=np.float64)
    lam.flags.writeable = False
    omega.flags.writeable = False
    return omega, lam


def angle_coefficients(level: Level, lam: NDArray[np.float64], base: float) -> NDArray[np.float64]:
    """K_θ(k): rounding-error count of the angle θ̂ = fl(q̂·ω̂_k), ≥ (2·c_f + 2)·(1 + λ_k).

    The larger of (2c_f + 2)(1 + λ_k) and K_b(k), the exact count when the library's log is
    applied to base rounded once to T_work (SPEC §4.2): K_b = (n_1 + m·λ_k − n_1·M·u)/(1 − m·u)
    with m = 2c_f + 2 + r, M = m·(1 + λ_k), r = 1/((1 − u)·ln base). K_b is below the first
    term whenever k/(d/2 − s) < (1 − u)(1 − u·M), e.g. for every canonical convention.
    """
    c_f = FUNCTION_ULPS[level.working_dtype]
    u = level.u_work
    n1 = 2.0 * c_f + 1.0
    n2 = 2.0 * c_f + 2.0
    r = 1.0 / ((1.0 - u) * math.log(base))
    m = n2 + r
    with np.errstate(divide="ignore", invalid="ignore"):
        rounded_base = np.where(
            m * u < 1.0, (n1 + m * lam - n1 * m * (1.0 + lam) * u) / (1.0 - m * u), np.inf
        )
    coefficients: NDArray[np.float64] = np.maximum(n2 * (1.0 + lam), rounded_base)
    return coefficients


def angle_gamma(level: Level, lam: NDArray[np.float64], base: float) -> NDArray[np.float64]:
    """γ(K_θ(k)) per pair, shape (d/2,), with pair 0 exact: ω̂_0 = 1 in every library
    (exp(0) = pow(b, 0) = 1, SPEC §4.1 A3), so θ̂ = fl(q̂·1) = q̂ and the angle term is 0."""
    g = gamma(angle_coefficients(level, lam, base), level.u_work)
    g[..., :1] = 0.0
    return g


def intermediate_dtype(level: Level) -> str | None:
    """The format a float64 → float16/bfloat16 cast may round through (SPEC §4.1 A6): float32
    (ml_dtypes ``.astype`` and torch ``.to`` do so); None when the cast rounds once."""
    wide = SIGNIFICAND_BITS[level.working_dtype] > SIGNIFICAND_BITS["float32"]
    narrow = SIGNIFICAND_BITS[level.output_dtype] < SIGNIFICAND_BITS["float32"]
    return "float32" if wide and narrow else None


def output_rounding(magnitude: NDArray[np.float64], level: Level) -> NDArray[np.float64]:
    """Error of storing a T_work value of size ≤ |v| ≤ 1 in T_out (SPEC §4.2): ½·ulp*_out(|v|),
    plus ½·ulp*_32(|v|) where the cast may round through float32 first (double rounding)."""
    term = rounding_term(magnitude, level.output_dtype)
    via = intermediate_dtype(level)
    if via is not None:
        term = term + rounding_term(magnitude, via)
    return term


def _position_error(
    q: NDArray[np.float64], p: NDArray[Any], config: EncodingConfig, level: Level
) -> NDArray[np.float64]:
    """Δq ≥ |q̂ − q|: error of the scaled position q = c·(p + o) once in T_work (shape (n,)).

    Conversions and operations round to nearest; a canonical convention only converts p.
    """
    work = level.working_dtype
    u = level.u_work
    convention = config.convention
    p_float = p.astype(np.float64)
    exact_p = _representable(p, work)
    delta = np.where(exact_p, 0.0, 0.5 * ulp(np.abs(p_float), work))
    scale = abs(float(convention.argument_scale))
    offset = float(convention.position_offset)
    if offset != 0.0:
        delta = delta + u * (np.abs(p_float) + abs(offset))
    if scale != 1.0:
        delta = scale * delta + 2.0 * u * np.abs(q)
    result: NDArray[np.float64] = delta
    return result


def _representable(p: NDArray[Any], dtype_name: str) -> NDArray[np.bool_]:
    """True where position p is exactly a finite number of ``dtype_name`` (shape (n,))."""
    dtype = DTYPES[dtype_name]
    with np.errstate(over="ignore", invalid="ignore"):
        back = p.astype(dtype).astype(np.float64)  # one rounding to nearest, then exact
        finite = np.isfinite(back)
        if p.dtype.kind in "iu":
            # An integer rounds to an integer-valued float; compare exactly in int64.
            fits = finite & (np.abs(back) < 2.0**63)
            as_int = np.where(fits, back, 0.0).astype(np.int64)
            same_int: NDArray[np.bool_] = fits & (as_int == p.astype(np.int64))
            return same_int
        same: NDArray[np.bool_] = finite & (back == p)
        return same


@dataclass(frozen=True)
class ElementBound:
    """The parts of the §4 bound for one configuration; arrays have shape (n, d_model).

    ``working``: E, the error before rounding to T_out. ``rounding``: ½·ulp*_out(min(|x|+E, 1)).
    ``total`` = working + rounding (inf where the level cannot represent the position).
    ``function``: c_f·u_w, the sine's or cosine's own error, the part of E that does not
    depend on the angle; ``angle_free`` = function + rounding bounds |y − (sin θ̂, cos θ̂)|.
    """

    working: NDArray[np.float64]
    rounding: NDArray[np.float64]
    theta_pairs: NDArray[np.float64]
    pair: NDArray[np.intp]
    function: float

    @property
    def theta(self) -> NDArray[np.float64]:
        """|θ| per element, shape (n, d_model): taken from the (n, d/2) pairs only when asked
        (the comparison loop never asks: one pass over each block fewer)."""
        theta: NDArray[np.float64] = np.take(self.theta_pairs, self.pair, axis=1)
        return theta

    @property
    def angle_free(self) -> NDArray[np.float64]:
        finite = np.isfinite(self.working)  # beyond T_work's range: no claim (SPEC §4.1)
        free: NDArray[np.float64] = np.where(
            finite, (self.function + self.rounding) * EVALUATION_SAFETY, np.inf
        )
        return free

    @property
    def total(self) -> NDArray[np.float64]:
        total: NDArray[np.float64] = (self.working + self.rounding) * EVALUATION_SAFETY
        return total


def u_function(level: Level) -> float:
    """K_f·u_w = c_f·u_w: the error of sin or cos (|result| ≤ 1) in T_work (SPEC §4.1 A2)."""
    return FUNCTION_ULPS[level.working_dtype] * level.u_work


def _scaled_positions(config: EncodingConfig) -> NDArray[np.float64]:
    """q = c·(p + o) in float64, shape (n,); used only to size the bound."""
    convention = config.convention
    shifted = config.positions.astype(np.float64) + float(convention.position_offset)
    scaled: NDArray[np.float64] = float(convention.argument_scale) * shifted
    return scaled


def working_error(
    config: EncodingConfig, level: Level
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(E, |θ|) per (position, pair): shapes (n, d/2); E is the error before output rounding."""
    omega, lam = frequencies_and_logs(config.d_model, config.base, config.convention)
    q = _scaled_positions(config)
    theta = np.abs(q)[:, None] * omega[None, :]
    g = _angle_terms(config, level, lam)[None, :]
    delta_q = _position_error(q, config.positions, config, level)
    with np.errstate(over="ignore", invalid="ignore"):
        error = u_function(level) + g * theta
        error = error + omega[None, :] * delta_q[:, None] * (1.0 + g)
        overflow = np.abs(q) > MAX_FINITE[level.working_dtype]
        error = np.where(overflow[:, None] | ~np.isfinite(error), np.inf, error)
    return error, theta


def _angle_terms(
    config: EncodingConfig, level: Level, lam: NDArray[np.float64]
) -> NDArray[np.float64]:
    """γ(K_θ(k)) per pair (A3), or for a convention declaring the log-linear frequency formula
    the larger of it and that formula's term (A8, Annex A.8): either computation passes."""
    g = angle_gamma(level, lam, config.base)
    if config.convention.frequency_formula == "log-linear":
        g = np.maximum(g, log_linear_gamma(level, config.d_model, config.base, config.convention))
    return g


def reference_error_bound(config: EncodingConfig) -> NDArray[np.float64]:
    """Bound on |x_ref − x| for the float64 reference used to size ½ulp(x), shape (n, d).

    Any float64-level backend satisfies it (the naive formula and the exact reference alike),
    so the rounding term stays sound whichever reference is installed.
    """
    return element_bound_parts(config, LEVELS["float64"], None).total


def element_bound_parts(
    config: EncodingConfig, level: Level, exact_values: NDArray[Any] | None = None
) -> ElementBound:
    """The §4 bound split into its working and rounding parts; arrays of shape (n, d_model).

    ``exact_values`` (n, d), when given, are the exact x (or a float64 reference whose error
    is added). None: the rounding term uses its worst case ½·ulp*_out(1) = u_out/2.
    """
    error_pairs, theta_pairs = working_error(config, level)
    pair, _ = config.convention.column_roles(config.d_model)
    working = np.take(error_pairs, pair, axis=1)  # = error_pairs[:, pair], without the
    # slower general fancy-indexing path; |θ| per element is taken on demand (ElementBound.theta)
    exact = None if exact_values is None else np.abs(np.asarray(exact_values, dtype=np.float64))
    function = u_function(level)
    if config.convention.output_scale != 1.0:
        working, function = _scaled_working(working, exact, config, level)
    magnitude = np.ones_like(working) if exact is None else exact + working
    rounding = output_rounding(magnitude, level)
    return ElementBound(
        working=working, rounding=rounding, theta_pairs=theta_pairs, pair=pair, function=function
    )


def _scaled_working(
    working: NDArray[np.float64],
    exact: NDArray[np.float64] | None,
    config: EncodingConfig,
    level: Level,
) -> tuple[NDArray[np.float64], float]:
    """(E_A, A·(c_f·u_w + γ(4))): the working error after the output scale (SPEC §4.1 A7).

    ŷ = fl(Â·v̂) with |v̂ − v| ≤ E, |v̂| ≤ m = min(|v| + E, 1) (A5) and |Â − A| ≤ γ(3)·A:
    |ŷ − A·v| ≤ u_w·|Â·v̂| + |Â − A|·|v̂| + A·|v̂ − v| ≤ A·(E + m·((1 + u_w)(1 + γ(3)) − 1))
    ≤ A·(E + m·γ(4)) (Higham 2002, Lemma 3.3). |v| = |x|/A from the scaled exact x.
    """
    amplitude = config.convention.amplitude(config.d_model)  # within 2^-53: EVALUATION_SAFETY
    g4 = float(gamma(np.array(4.0), level.u_work))
    if exact is None:
        m = np.ones_like(working)
    else:
        m = np.minimum(exact / amplitude + working, 1.0)
    scaled: NDArray[np.float64] = amplitude * (working + m * g4)
    return scaled, amplitude * (u_function(level) + g4)


def element_bound(config: EncodingConfig, level: Level) -> NDArray[np.float64]:
    """Per-element bound on |y − x| (SPEC §4) for output y at ``level``; shape (n, d_model).

    |x| for the rounding term comes from the naive float64 formula
    (:func:`pespec.sinusoidal.reference.naive.naive_encode`, defined for every int64 or float64
    position) plus its own float64-level bound, so the result is sound at any position.
    """
    from pespec.sinusoidal.reference.naive import naive_encode

    reference = naive_encode(
        config.positions, config.d_model, base=config.base, convention=config.convention
    )
    magnitude_bound = np.abs(reference) + reference_error_bound(config)
    return element_bound_parts(config, level, np.minimum(magnitude_bound, 1.0)).total


def sup_working_error(
    level: Level, position: float, d_model: int, base: float = 10000.0
) -> NDArray[np.float64]:
    """Per-pair E (shape (d/2,)) at its supremum over integer positions |p'| ≤ |position|,
    canonical convention; E is non-decreasing in |p'| once Δq takes its sup ½·ulp_w(|p|)."""
    p = abs(float(position))
    omega, lam = frequencies_and_logs(d_model, base)
    work = level.working_dtype
    g = angle_gamma(level, lam, base)
    # Integers up to 2^p_work are exact in T_work; above, Δq ≤ ½·ulp_w(|p|) at worst.
    exact = p <= 2.0 ** SIGNIFICAND_BITS[work]
    delta = 0.0 if exact else 0.5 * float(ulp(np.array([p]), work)[0])
    with np.errstate(over="ignore", invalid="ignore"):
        error: NDArray[np.float64] = u_function(level) + g * p * omega + omega * delta * (1.0 + g)
    if p > MAX_FINITE[work]:
        error = np.full_like(error, np.inf)
    return error


def max_element_bound(level: Level, position: float, d_model: int, base: float = 10000.0) -> float:
    """The largest §4 bound over all columns, all |x| ≤ 1 and all integer |p'| ≤ |position|."""
    error = sup_working_error(level, position, d_model, base)
    rounding = float(output_rounding(np.array([1.0]), level)[0])
    return float(np.max(error) + rounding) * EVALUATION_SAFETY


def _largest_integer_below(predicate_holds: Any, hi: int) -> int:
    """Largest integer n in [0, hi] with predicate_holds(n) for a monotone predicate; −1 if none."""
    if not predicate_holds(0):
        return -1
    if predicate_holds(hi):
        return hi
    lo = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicate_holds(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _position_cap(level: Level) -> int:
    """Largest integer position the level can hold: int64, and T_work's largest finite value."""
    cap = min(float(2**62), MAX_FINITE[level.working_dtype])
    return int(cap)


def meaningful_position_limit(
    level: Level, d_model: int, base: float = 10000.0, threshold: float = 1e-2
) -> float:
    """Largest integer position P such that the level's bound is < ``threshold`` for every
    column and every integer |p| ≤ P (SPEC Annex A.2); 0.0 ≤ P ≤ min(2^62, max finite of T_work).

    Returns −1.0 when even position 0 exceeds the threshold.
    """
    check_d_model(d_model)
    check_base(base)
    if not (isinstance(threshold, float | int) and math.isfinite(threshold) and threshold > 0):
        raise ValueError(f"threshold must be a positive finite number; got {threshold!r}")
    limit = _largest_integer_below(
        lambda n: max_element_bound(level, float(n), d_model, base) < threshold,
        _position_cap(level),
    )
    return float(limit)


def adjacent_separation(d_model: int, base: float = 10000.0) -> float:
    """‖x_{p+1} − x_p‖ = (2·Σ_k (1 − cos ω_k))^½, the same for every p (mpmath, 80 bits)."""
    d = check_d_model(d_model)
    b = check_base(base)
    with mpmath.workprec(80):
        log_base = mpmath.log(mpmath.mpf(b))
        total = mpmath.fsum(
            2 * mpmath.sin(mpmath.exp(-2 * k * log_base / d) / 2) ** 2 for k in range(d // 2)
        )
        return float(mpmath.sqrt(2 * total))


def uniqueness_position_limit(level: Level, d_model: int, base: float = 10000.0) -> float:
    """Largest integer P such that adjacent rows p, p + 1 with |p| + 1 ≤ P are guaranteed
    distinct at ``level``: ‖x_{p+1} − x_p‖ > ‖b_p‖ + ‖b_{p+1}‖ (SPEC §5.6)."""
    separation = adjacent_separation(d_model, base)

    def holds(n: int) -> bool:
        # ‖b_p‖ over the d columns: each pair contributes two elements of size ≤ E_k + ρ.
        error = sup_working_error(level, float(n), d_model, base)
        rounding = float(output_rounding(np.array([1.0]), level)[0])
        norm = math.sqrt(2.0 * float(np.sum((error + rounding) ** 2))) * EVALUATION_SAFETY
        return 2.0 * norm < separation

    return float(_largest_integer_below(holds, _position_cap(level)))
