"""The geometry of the rows (SPEC §5.4–§5.6): a position shift is one rotation M_k for every
p, dot products depend only on p − q, and distinct positions give distinct rows.

Each tolerance is the §4 bound carried through the relation (‖b_p‖ + ‖b_q‖ and the like)
plus rigorous bounds on the check's own float64 arithmetic; see
:mod:`pespec.sinusoidal.properties.registry` for how a property is registered and called.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import gamma
from pespec.numerics.ratio import error_ratio, is_worse
from pespec.sinusoidal.properties.base import EncodingConfig, PropertyResult
from pespec.sinusoidal.properties.context import Context, describe_excess, position_value
from pespec.sinusoidal.properties.errormodel import EVALUATION_SAFETY
from pespec.sinusoidal.properties.registry import spec_property
from pespec.sinusoidal.properties.rows import (
    MAX_ROWS,
    ORACLE_ERROR,
    U64,
    Rows,
    admitted,
    evaluate,
    evaluate_blocks,
    norm_down,
    norm_up,
    oracle_values,
    pair_columns,
    shift_positions,
    without_offset,
    worst_index,
)

__all__ = ["DEFAULT_OFFSETS", "prop_dot_products", "prop_rotation", "prop_uniqueness"]

DEFAULT_OFFSETS: tuple[int, ...] = (1, 5, 10, 50)
"""Offsets k of the rotation property (SPEC §5.4): 1, 5, 10, 50."""


class _RotationWorst(NamedTuple):
    """The worst row of one offset k: ‖M_k y_p − y_(p+k)‖ against its tolerance."""

    ratio: float
    residual: float
    tolerance: float
    position: int | float
    column: int
    """The column with the largest residual in that row."""
    offset: int


def _rotation_residual(ctx: Context, p_rows: Rows, k_rows: Rows, k: int) -> _RotationWorst:
    """Rotate the rows at p by M_k (sin, cos of c·k·ω_i from the oracle) and compare them
    with the rows at p + k: ‖M_k y_p − y_(p+k)‖ ≤ ‖b_p‖ + ‖b_(p+k)‖ + evaluation terms."""
    config = ctx.config
    sin_cols, cos_cols = pair_columns(config)
    angle = oracle_values(config, np.array([k], dtype=np.int64), without_offset(config))[0]
    sin_k, cos_k = angle[sin_cols], angle[cos_cols]
    a, b = p_rows.y[:, sin_cols], p_rows.y[:, cos_cols]
    rotated = np.empty_like(p_rows.y)
    rotated[:, sin_cols] = a * cos_k + b * sin_k
    rotated[:, cos_cols] = b * cos_k - a * sin_k
    with np.errstate(invalid="ignore", over="ignore"):
        residual_vec = rotated - k_rows.y
        residual = np.sqrt(np.sum(residual_vec * residual_vec, axis=1))
    residual = np.where(np.isfinite(residual), residual, np.inf)
    norm_p = norm_up(p_rows.y)
    norm_k = norm_up(k_rows.y)
    tolerance = (
        (1.0 + gamma(config.d_model + 2, U64))
        * (
            norm_up(p_rows.bound)
            + norm_up(k_rows.bound)
            + 2.0 * ORACLE_ERROR * norm_p
            + gamma(3, U64) * (math.sqrt(2.0) * norm_p + norm_k)
        )
        * EVALUATION_SAFETY
    )
    ratio = error_ratio(residual, tolerance)
    (r,) = worst_index(ratio)
    column = int(np.argmax(np.where(np.isnan(residual_vec[r]), np.inf, np.abs(residual_vec[r]))))
    return _RotationWorst(
        float(ratio[r]),
        float(residual[r]),
        float(tolerance[r]),
        position_value(p_rows.positions, r),
        column,
        k,
    )


@spec_property("5.4", "y_(p+k) = M_k y_p, M_k independent of p")
def prop_rotation(ctx: Context, *, offsets: Sequence[int] = DEFAULT_OFFSETS) -> PropertyResult:
    """‖M_k y_p − y_{p+k}‖ ≤ ‖b_p‖ + ‖b_{p+k}‖ (+ evaluation terms), with one
    M_k = diag(R_i(k)) for every p (M_k from the oracle's sin, cos of c·k·ω_i)."""
    positions = ctx.config.positions
    base_rows = evaluate(ctx, positions)
    skipped = 0
    plans = []
    for k in offsets:
        moved, exact = shift_positions(positions, int(k))
        exact &= admitted(ctx, moved)
        skipped += int(np.count_nonzero(~exact))
        plans.append((int(k), moved, exact))
    moved_rows = evaluate_blocks(ctx, [moved[exact] for _, moved, exact in plans])
    worst: _RotationWorst | None = None
    for (k, _, exact), k_rows in zip(plans, moved_rows, strict=True):
        if np.any(exact):
            candidate = _rotation_residual(ctx, base_rows.take(exact), k_rows, k)
            if is_worse(candidate.ratio, None if worst is None else worst.ratio):
                worst = candidate
    if worst is None:
        details = {"max_ratio": -1.0, "offset": 0, "skipped_inexact_shifts": skipped}
        return ctx.passed(0.0, 0.0, None, None, details)
    details = {"max_ratio": worst.ratio, "offset": worst.offset, "skipped_inexact_shifts": skipped}
    if not worst.ratio <= 1.0:
        k = worst.offset
        raise ctx.violation(
            expected=f"y_(p+{k}) = M_{k}·y_p within ‖b_p‖ + ‖b_(p+{k})‖ = "
            f"{worst.tolerance:.3e} (M_k block-diagonal rotations R_i({k}), the same for "
            "every p)",
            found=f"‖M_k y_p − y_(p+k)‖ = {worst.residual:.3e}, largest in column {worst.column}",
            excess=describe_excess(worst.residual, worst.tolerance),
            snippet=_rotation_snippet(ctx, worst.position, k, worst.column),
            position=worst.position,
            column=worst.column,
            max_error=worst.residual,
            bound=worst.tolerance,
            details=details,
        )
    return ctx.passed(worst.residual, worst.tolerance, worst.position, worst.column, details)


def _rotation_snippet(ctx: Context, position: Any, k: int, column: int) -> str:
    """Reproduction of a rotation failure: rows p and p + k of the failing pair, and the
    relation y(p + k) = R(k)·y(p) with R(k)'s sin and cos from the exact row at k (offset 0
    there: the angles of a position difference)."""
    sin_cols, cos_cols = pair_columns(ctx.config)
    pair = int(np.flatnonzero((sin_cols == column) | (cos_cols == column))[0])
    s_col, c_col = int(sin_cols[pair]), int(cos_cols[pair])
    shifted = position + k
    return ctx.pair_snippet(
        f"[{position!r}, {shifted!r}]",
        [s_col, c_col],
        f"(s, c) = exact (sin, cos) of k·ω for k = {k} in pair {pair}; y[1] must equal "
        f"(y[0, 0]·c + y[0, 1]·s, y[0, 1]·c − y[0, 0]·s), as x[1] equals that of x[0], "
        f"within {ctx.level.name} rounding (SPEC §5.4)",
    )


def _differences(
    positions: NDArray[Any],
) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[np.bool_]]:
    """Distinct |p − q| over all pairs (exactly), the index of each pair's |p − q| (m, m), and
    a mask of pairs whose difference is exact in the positions' dtype."""
    values = positions.tolist()
    m = len(values)
    exact_diff: dict[Fraction, int] = {}
    index = np.zeros((m, m), dtype=np.intp)
    valid = np.zeros((m, m), dtype=bool)
    is_int = positions.dtype.kind in "iu"
    for r in range(m):
        for s in range(m):
            diff = abs(Fraction(values[r]) - Fraction(values[s]))
            fits = diff < 2**63 if is_int else Fraction(float(diff)) == diff
            if not fits:
                continue
            valid[r, s] = True
            index[r, s] = exact_diff.setdefault(diff, len(exact_diff))
    ordered = sorted(exact_diff, key=exact_diff.__getitem__)
    if is_int:
        diffs: NDArray[Any] = np.array([int(v) for v in ordered], dtype=np.int64)
    else:
        diffs = np.array([float(v) for v in ordered], dtype=np.float64)
    return diffs, index, valid


def _pairs(
    ctx: Context, max_rows: int
) -> tuple[NDArray[Any], Rows, NDArray[Any], NDArray[np.intp], NDArray[np.bool_]]:
    """The first ``max_rows`` positions, their rows, and their pairwise |p − q| (see
    :func:`_differences`): the common start of the pairwise properties §5.5–§5.6."""
    positions = ctx.config.positions[:max_rows]
    diffs, index, valid = _differences(positions)
    return positions, evaluate(ctx, positions), diffs, index, valid


def _exact_dot_products(config: EncodingConfig, diffs: NDArray[Any]) -> NDArray[np.float64]:
    """S(δ) = Σ_i cos(c·ω_i·δ) for each distinct difference δ (shape (len(diffs),)), from
    the oracle's cosines at δ (offset 0)."""
    _, cos_cols = pair_columns(config)
    cosines = oracle_values(config, diffs, without_offset(config))[:, cos_cols]
    amplitude = config.convention.amplitude(config.d_model)
    sums: NDArray[np.float64] = np.sum(cosines, axis=1) * (amplitude * amplitude)  # A²·S
    return sums


def _dot_tolerance(
    rows: Rows, norm_y: NDArray[np.float64], d: int, amplitude: float = 1.0
) -> NDArray[np.float64]:
    """A√(d/2)(‖b_p‖ + ‖b_q‖) + ‖b_p‖‖b_q‖ plus the float64 error of the dot product and of
    A²·S (d/2 oracle cosines, each within 2^-54, A² and its product: γ(4)); shape (m, m)."""
    extra, widen = (0, 1.0) if amplitude == 1.0 else (4, 1.0 + 2.0**-50)
    sum_error = ((d / 2) * ORACLE_ERROR + gamma(d + extra, U64) * (d / 2)) * amplitude**2 * widen
    norm_b = norm_up(rows.bound)
    root = math.sqrt(d / 2) * amplitude * widen
    tolerance: NDArray[np.float64] = (
        root * (norm_b[:, None] + norm_b[None, :])
        + norm_b[:, None] * norm_b[None, :]
        + gamma(d + 2, U64) * norm_y[:, None] * norm_y[None, :]
        + sum_error
    ) * EVALUATION_SAFETY
    return tolerance


def _gram(y: NDArray[np.float64]) -> NDArray[np.float64]:
    """y·yᵀ (n, n) by NumPy's pairwise sums along each row, not a BLAS matmul: BLAS kernels
    sum in orders that depend on the CPU and its threads, so the reported error would differ
    in its last digits between machines (n ≤ MAX_ROWS rows: a loop of at most 32)."""
    return np.stack([np.sum(row * y, axis=1) for row in y]) if len(y) else y @ y.T


@spec_property("5.5", "y_p·y_q = Σ cos(ω_i(p − q))")
def prop_dot_products(ctx: Context, *, max_rows: int = MAX_ROWS) -> PropertyResult:
    """y_p·y_q = S(p − q) = Σ_i cos(c·ω_i·(p − q)) within
    √(d/2)(‖b_p‖ + ‖b_q‖) + ‖b_p‖‖b_q‖, for all pairs of the first ``max_rows`` rows."""
    positions, rows, diffs, index, valid = _pairs(ctx, max_rows)
    if diffs.size == 0:
        return ctx.passed(0.0, 0.0)
    expected = _exact_dot_products(ctx.config, diffs)[index]
    with np.errstate(invalid="ignore", over="ignore"):
        dots = _gram(rows.y)
        error = np.where(np.isfinite(dots), np.abs(dots - expected), np.inf)
    norm_y = norm_up(rows.y)
    config = ctx.config
    tolerance = _dot_tolerance(
        rows, norm_y, config.d_model, config.convention.amplitude(config.d_model)
    )
    ratio = np.where(valid, error_ratio(error, tolerance), 0.0)
    # A pair whose tolerance exceeds every error finite outputs could have (|y_p·y_q| ≤
    # ‖y_p‖‖y_q‖, |S| ≤ d/2) cannot fail: at positions so large that the level cannot resolve
    # p·ω (one float64 ulp of 1.4e16 is 2) the bound is that wide. Such pairs still count for
    # the verdict (a non-finite output fails them), but the worst pair reported is the worst
    # informative one, not a huge |error| under a vacuous bound.
    possible = norm_y[:, None] * norm_y[None, :] + np.abs(expected)
    vacuous = valid & np.isfinite(error) & (tolerance >= possible)
    informative = valid & ~vacuous
    if np.any(ratio > 1.0) or not np.any(informative):
        r, s = worst_index(ratio)
    else:
        r, s = worst_index(np.where(informative, ratio, -1.0))
    p, q = position_value(positions, r), position_value(positions, s)
    details = {
        "max_ratio": float(ratio[r, s]),
        "pairs": int(np.count_nonzero(valid)),
        "q": q,
        "pairs_with_vacuous_bound": int(np.count_nonzero(vacuous)),
    }
    if not np.any(informative) and not np.any(ratio > 1.0):
        details["max_ratio"] = 0.0
        return ctx.result(
            True,
            f"{ctx.name} (SPEC §{ctx.section}) holds at level {ctx.level.name}; every pair's "
            "bound exceeds any error a finite output could have (positions too large for the "
            "level to resolve p·ω), so no pair tested the values",
            None,
            None,
            None,
            None,
            details,
        )
    if not ratio[r, s] <= 1.0:
        raise ctx.violation(
            expected=f"y_p·y_q = Σ_i cos(ω_i·(p − q)) = {float(expected[r, s])!r} for q = {q!r} "
            f"within {tolerance[r, s]:.3e}",
            found=f"y_p·y_q = {float(dots[r, s])!r}",
            excess=describe_excess(float(error[r, s]), float(tolerance[r, s])),
            position=p,
            max_error=float(error[r, s]),
            bound=float(tolerance[r, s]),
            details=details,
        )
    details["max_abs_error"] = float(np.max(np.where(valid, error, 0.0)))
    return ctx.passed(float(error[r, s]), float(tolerance[r, s]), p, None, details)


def _separation_lower_bound(config: EncodingConfig, diffs: NDArray[Any]) -> NDArray[np.float64]:
    """A lower bound on the exact separation σ(δ) = 2·(Σ_i sin²(c·ω_i·δ/2))^½ for each
    distinct difference δ, from the oracle's sines at δ/2; 0 where δ/2 is not exact."""
    d = config.d_model
    halves = diffs.astype(np.float64) / 2.0  # exact: |p − q| < 2^63 and float halving
    halves_exact = np.array(
        [
            Fraction(h) * 2 == Fraction(v)
            for h, v in zip(halves.tolist(), diffs.tolist(), strict=True)
        ],
        dtype=bool,
    )
    sin_cols, _ = pair_columns(config)
    sines = oracle_values(config, halves, without_offset(config))[:, sin_cols]
    # ‖ŝ − s‖ ≤ 2^-54·√(d/2), so σ ≥ 2·(‖ŝ‖ − 2^-54·√(d/2)); times A (float64 A within u,
    # the product rounded down by the factor 1 − 2^-51)
    sigma_low = 2.0 * np.maximum(norm_down(sines) - ORACLE_ERROR * math.sqrt(d / 2), 0.0)
    sigma_low = sigma_low * (config.convention.amplitude(d) * (1.0 - 2.0**-51))
    bound: NDArray[np.float64] = np.where(halves_exact, sigma_low, 0.0)
    return bound


def _separations(y: NDArray[np.float64], d: int) -> NDArray[np.float64]:
    """Upper bounds on ‖y_p − y_q‖ for every pair of the rows y (m, d), (m, m); −inf where
    not finite."""
    m = y.shape[0]
    separation = np.empty((m, m))
    with np.errstate(invalid="ignore", over="ignore"):
        for r in range(m):
            diff = y - y[r]
            separation[r] = np.sqrt(np.sum(diff * diff, axis=1)) * (1.0 + gamma(d + 3, U64))
    result: NDArray[np.float64] = np.where(np.isfinite(separation), separation, -np.inf)
    return result


@spec_property("5.6", "distinct positions, distinct rows")
def prop_uniqueness(ctx: Context, *, max_rows: int = MAX_ROWS) -> PropertyResult:
    """‖y_p − y_q‖ ≥ σ(p − q) − ‖b_p‖ − ‖b_q‖ > 0 for every pair of the
    first ``max_rows`` rows whose exact separation σ = 2·(Σ_i sin²(c·ω_i·(p − q)/2))^½
    exceeds ‖b_p‖ + ‖b_q‖ (other pairs are not claimed distinct)."""
    positions, rows, diffs, index, valid = _pairs(ctx, max_rows)
    if diffs.size == 0:
        return ctx.passed(0.0, 0.0)
    sigma_low = _separation_lower_bound(ctx.config, diffs)
    norm_b = norm_up(rows.bound)
    margin = (norm_b[:, None] + norm_b[None, :]) * EVALUATION_SAFETY
    required = sigma_low[index] - margin
    claimed = valid & (required > 0) & ~np.eye(len(positions), dtype=bool)
    separation = _separations(rows.y, ctx.config.d_model)
    shortfall = np.where(claimed, required - separation, -np.inf)
    # As error and tolerance: the deficit σ − ‖y_p − y_q‖ may be at most ‖b_p‖ + ‖b_q‖.
    with np.errstate(invalid="ignore"):
        deficit = np.where(claimed, np.maximum(sigma_low[index] - separation, 0.0), 0.0)
    ratio = np.where(claimed, error_ratio(deficit, margin), -np.inf)
    r, s = worst_index(ratio)
    off_diagonal = valid & ~np.eye(len(positions), dtype=bool)
    details: dict[str, Any] = {
        "claimed_pairs": int(np.count_nonzero(claimed)),
        "unclaimed_pairs": int(np.count_nonzero(off_diagonal & ~claimed)),
    }
    if not np.any(claimed):
        return ctx.passed(0.0, 0.0, None, None, details)
    p, q = position_value(positions, r), position_value(positions, s)
    details["q"] = q
    details["max_ratio"] = float(ratio[r, s])
    if not ratio[r, s] <= 1.0:
        identical = bool(np.array_equal(rows.raw[r], rows.raw[s]))
        raise ctx.violation(
            expected=f"‖y_p − y_q‖ ≥ σ − ‖b_p‖ − ‖b_q‖ = {required[r, s]:.3e} for q = {q!r} "
            f"(exact separation σ ≥ {sigma_low[index[r, s]]:.6g})",
            found=(
                "identical rows"
                if identical
                else f"‖y_p − y_q‖ = {separation[r, s]:.3e}"
                if np.isfinite(separation[r, s])
                else "rows with non-finite values"
            ),
            excess=(
                f"short by {shortfall[r, s]:.3e}" if np.isfinite(shortfall[r, s]) else "not finite"
            ),
            position=p,
            max_error=float(deficit[r, s]),
            bound=float(margin[r, s]),
            details=details,
        )
    return ctx.passed(float(deficit[r, s]), float(margin[r, s]), p, None, details)
