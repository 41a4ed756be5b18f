"""The values themselves (SPEC §5.1–§5.3): accuracy element by element, boundedness, and the
norm of each row.

Tolerances come from the element bound b of SPEC §4 (:mod:`pespec.sinusoidal.properties.errormodel`)
and rigorous bounds on the check's own float64 arithmetic; see
:mod:`pespec.sinusoidal.properties.registry` for how a property is registered and called.
"""

from __future__ import annotations

import math

import numpy as np

from pespec.numerics.formats import gamma
from pespec.numerics.ratio import error_ratio
from pespec.sinusoidal.properties.base import PropertyResult
from pespec.sinusoidal.properties.context import Context, describe_excess, position_value
from pespec.sinusoidal.properties.errormodel import EVALUATION_SAFETY
from pespec.sinusoidal.properties.registry import spec_property
from pespec.sinusoidal.properties.rows import (
    ORACLE_ERROR,
    U64,
    Rows,
    call,
    evaluate,
    norm_up,
    worst_index,
)

__all__ = ["elementwise", "prop_accuracy", "prop_boundedness", "prop_norm"]


def elementwise(ctx: Context, rows: Rows, what: str) -> PropertyResult:
    """|y − x_ref| ≤ b + 2^-54 element by element (shared by §5.1 and §5.7)."""
    with np.errstate(invalid="ignore"):
        error = np.abs(rows.y - rows.x)
    error = np.where(np.isfinite(rows.y), error, np.inf)
    tolerance = rows.bound + ORACLE_ERROR
    ratio = error_ratio(error, tolerance)
    r, j = worst_index(ratio)
    position = position_value(rows.positions, r)
    details = {"max_ratio": float(ratio[r, j]), "elements": int(error.size)}
    if not ratio[r, j] <= 1.0:
        raise ctx.violation(
            expected=f"{what} |y − x| ≤ {tolerance[r, j]:.3e} (SPEC §4 bound + oracle 2^-54)",
            found=f"y = {float(rows.y[r, j])!r}, exact x = {float(rows.x[r, j])!r}, "
            f"|y − x| = {error[r, j]:.3e}",
            excess=describe_excess(float(error[r, j]), float(tolerance[r, j])),
            position=position,
            column=j,
            max_error=float(error[r, j]),
            bound=float(tolerance[r, j]),
            details=details,
        )
    details["max_abs_error"] = float(np.max(error))
    return ctx.passed(float(error[r, j]), float(tolerance[r, j]), position, j, details)


@spec_property("5.1", "|y − x| ≤ b elementwise")
def prop_accuracy(ctx: Context) -> PropertyResult:
    """|y(p, j) − x(p, j)| ≤ b(p, j) + 2^-54 for every element."""
    return elementwise(ctx, evaluate(ctx, ctx.config.positions), "every element")


@spec_property("5.2", "|y| ≤ 1 exactly")
def prop_boundedness(ctx: Context) -> PropertyResult:
    """Every element is finite and |y| ≤ 1 exactly (no tolerance)."""
    config = ctx.config
    raw = call(ctx, config.positions)
    y = raw.astype(np.float64)
    excess = np.where(np.isfinite(y), np.abs(y) - 1.0, np.inf)
    r, j = worst_index(excess)
    position = position_value(config.positions, r)
    if not excess[r, j] <= 0.0:
        raise ctx.violation(
            expected="|y| ≤ 1 exactly (rounding a value in [−1, 1] cannot leave it)",
            found=f"y = {float(y[r, j])!r}",
            excess=f"|y| − 1 = {excess[r, j]:.3e}",
            position=position,
            column=j,
            max_error=float(excess[r, j]),
        )
    largest = float(np.max(np.abs(y)))  # a value, not an error: no |error|, bound or ratio
    result = ctx.result(
        True,
        f"{ctx.name} (SPEC §{ctx.section}) holds at level {ctx.level.name}: "
        f"max |y| = {largest!r} ≤ 1",
        None,
        None,
        position,
        j,
        {"max_abs_value": largest},
    )
    return result


@spec_property("5.3", "‖y_p‖ = √(d/2) within ‖a_p‖")
def prop_norm(ctx: Context) -> PropertyResult:
    """| ‖y_p‖ − √(d/2) | ≤ ‖a_p‖ for every row (plus float64 evaluation).

    a = c_f·u_w + output rounding, without the angle terms: sine and cosine of the same θ̂
    (SPEC §4.1 A5) give a row of norm exactly √(d/2) whatever θ̂ is, and y is within a of it.
    """
    config = ctx.config
    rows = evaluate(ctx, config.positions)
    d = config.d_model
    exact = math.sqrt(d / 2) * config.convention.amplitude(d)  # A·√(d/2), two roundings
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.sqrt(np.sum(rows.y * rows.y, axis=1))
        error = np.where(np.isfinite(norms), np.abs(norms - exact), np.inf)
    bound_norm = norm_up(rows.angle_free)
    scaled = config.convention.output_scale != 1.0
    evaluation = gamma(d + (6 if scaled else 4), U64) * (exact + bound_norm)
    tolerance = (bound_norm + evaluation) * EVALUATION_SAFETY
    ratio = error_ratio(error, tolerance)
    (r,) = worst_index(ratio)
    position = position_value(config.positions, r)
    details = {"max_ratio": float(ratio[r])}
    if not ratio[r] <= 1.0:
        raise ctx.violation(
            expected=f"‖y_p‖ = √(d/2) = {exact!r} within ‖a_p‖ = {tolerance[r]:.3e} "
            "(sine/cosine accuracy and output rounding; no angle term)",
            found=f"‖y_p‖ = {float(norms[r])!r}",
            excess=describe_excess(float(error[r]), float(tolerance[r])),
            position=position,
            max_error=float(error[r]),
            bound=float(tolerance[r]),
            details=details,
        )
    details["max_abs_error"] = float(np.max(error))
    return ctx.passed(float(error[r]), float(tolerance[r]), position, None, details)
