"""The structure of the encoding (SPEC §5.7–§5.9): low-precision outputs within their level,
the wavelengths of the first and last pairs and the columns' variances, and determinism.

Tolerances come from the element bound b of SPEC §4 and rigorous bounds on the check's own
float64 arithmetic; see :mod:`pespec.sinusoidal.properties.registry` for how a property is
registered
and called.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import mpmath
import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import gamma
from pespec.numerics.ratio import error_ratio, is_worse
from pespec.sinusoidal.properties.accuracy import elementwise
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
    call,
    evaluate,
    evaluate_blocks,
    pair_columns,
    shift_positions,
    worst_index,
)

__all__ = ["LOW_PRECISION", "prop_determinism", "prop_frequency_structure", "prop_low_precision"]

LOW_PRECISION = ("float16", "bfloat16")


@spec_property("5.7", "float16/bfloat16 within their level")
def prop_low_precision(ctx: Context) -> PropertyResult:
    """At a float16/bfloat16 level the output has that dtype and every
    element is within its §4 bound; for other levels the property does not apply (passes)."""
    config, level = ctx.config, ctx.level
    if level.output_dtype not in LOW_PRECISION:
        reason = f"SPEC §5.7 states it for float16/bfloat16 levels; the level is {level.name}"
        return ctx.passed(0.0, 0.0, details={"applicable": False, "reason": reason})
    rows = evaluate(ctx, config.positions)
    if rows.raw.dtype != level.numpy_output_dtype:
        raise ctx.violation(
            expected=f"output dtype {level.output_dtype}",
            found=f"dtype {rows.raw.dtype}",
            excess="wrong dtype for the claimed level",
            position=position_value(config.positions, 0),
        )
    result = elementwise(ctx, rows, f"{level.output_dtype} output,")
    result.details["applicable"] = True
    return result


def _wavelength(config: EncodingConfig, pair: int) -> Any:
    """λ = 2π/(|c|·ω_pair), the wavelength in positions, as an mpmath number (120 bits)."""
    den = config.convention.denominator(config.d_model)
    with mpmath.workprec(120):
        omega = mpmath.power(mpmath.mpf(config.base), -mpmath.mpf(pair) / mpmath.mpf(den))
        scale = abs(mpmath.mpf(float(config.convention.argument_scale)))
        return 2 * mpmath.pi / (omega * scale)


def _integer_shift(wavelength: Any, half: bool) -> tuple[int, Any]:
    """An integer shift m ≈ N·λ (N = 1, 2, …) or ≈ (N − ½)·λ with the smallest angle drift
    2π·|m/λ − N| among m ≤ max(1024, 2λ) (so the exact shifted difference, and the position
    p + m at which the backend is evaluated, stay small); returns (m, that multiple of λ as
    an mpmath number). For λ = 2π: 710 ≈ 113·2π and 355 ≈ 56.5·2π, both within 7·10^-5."""
    lam = float(wavelength)
    limit = max(1024.0, 2.0 * lam)
    multiples = np.arange(1, int(limit / lam) + 2, dtype=np.float64) - (0.5 if half else 0.0)
    shifts = np.maximum(np.round(multiples * lam), 1.0)
    usable = shifts <= limit
    drift = np.where(usable, np.abs(shifts / lam - multiples), np.inf)
    best = int(np.argmin(drift))
    with mpmath.workprec(120):
        return int(shifts[best]), mpmath.mpf(float(multiples[best])) * wavelength


def _shift_plan(
    positions: NDArray[Any], wavelength: Any, half: bool
) -> tuple[NDArray[Any], NDArray[np.bool_], str]:
    """Shifted positions, the rows where the shift is usable, and a label. Integer positions
    get an integer shift m ≈ N·λ (usable by integer-only backends); float positions get
    p′ = fl(p + λ) (or λ/2)."""
    if positions.dtype.kind in "iu":
        step, target = _integer_shift(wavelength, half)
        shifted, exact = shift_positions(positions, step)
        with mpmath.workprec(120):
            label = f"y(p + {step}) (≈ {float(target / wavelength):g}·λ)"
        return shifted, exact, label
    with mpmath.workprec(120):
        target = wavelength / 2 if half else wavelength
    shifted = positions + float(target)
    return shifted, np.isfinite(shifted), f"y(p + {'λ/2' if half else 'λ'})"


class _Shift(NamedTuple):
    """One shift of §5.8: pair, its wavelength λ, whole (y′ − y ≈ 0) or half (y′ + y ≈ 0)
    period, the shifted positions, the rows where the shift is usable, and a label."""

    pair: int
    wavelength: Any
    half: bool
    positions: NDArray[Any]
    usable: NDArray[np.bool_]
    label: str

    @property
    def op(self) -> str:
        """The relation's operator: y(p′) − y(p) for a whole period, + for a half."""
        return "+" if self.half else "−"


class _ShiftWorst(NamedTuple):
    """The worst element of one shift: |(y′ ∓ y) − (x′ ∓ x)| against its tolerance."""

    ratio: float
    error: float
    tolerance: float
    position: int | float
    column: int
    expected: str
    """What y(p′) ∓ y(p) should equal: the exact x(p′) ∓ x(p), the pair and λ."""
    found: str
    """The backend's y(p′) ∓ y(p)."""
    moved_to: int | float
    op: str


def _shifts(ctx: Context, positions: NDArray[Any]) -> list[_Shift]:
    """The four shifts (pairs 0 and d/2 − 1, whole and half period), rows past the declared
    range marked unusable."""
    shifts = []
    for pair in sorted({0, ctx.config.d_model // 2 - 1}):
        wavelength = _wavelength(ctx.config, pair)
        for half in (False, True):
            moved, usable, label = _shift_plan(positions, wavelength, half)
            usable &= admitted(ctx, moved)  # a shift past the declared range is skipped
            shifts.append(_Shift(pair, wavelength, half, moved, usable, label))
    return shifts


def _shift_worst(ctx: Context, rows: Rows, shift: _Shift, moved: Rows) -> _ShiftWorst | None:
    """The worst informative element of one shift; None when no element can fail or tell."""
    sin_cols, cos_cols = pair_columns(ctx.config)
    base = rows.take(shift.usable)
    columns = np.array([sin_cols[shift.pair], cos_cols[shift.pair]])
    sign = -1.0 if shift.half else 1.0
    # (y′ ∓ y) − (x′ ∓ x) = e′ ∓ e: within b′ + b + 2·2^-54 (oracle), and the three
    # float64 subtractions add at most a factor (1 + γ(2)).
    with np.errstate(invalid="ignore"):
        error = np.abs(
            (moved.y[:, columns] - moved.x[:, columns])
            - sign * (base.y[:, columns] - base.x[:, columns])
        )
    error = np.where(np.isfinite(error), error, np.inf)
    tolerance = (
        (moved.bound[:, columns] + base.bound[:, columns] + 2 * ORACLE_ERROR)
        * (1 + gamma(2, U64))
        * EVALUATION_SAFETY
    )
    ratio = error_ratio(error, tolerance)
    # An element whose tolerance exceeds any error of finite outputs (|y′ ∓ y| ≤
    # |y′| + |y|) cannot fail; the worst reported is an informative one (as in
    # dot_products: at |p| ≈ 1e16 the bound is that wide).
    possible = (
        np.abs(moved.y[:, columns])
        + np.abs(base.y[:, columns])
        + np.abs(moved.x[:, columns] - sign * base.x[:, columns])
    )
    shown = np.where((ratio > 1.0) | ~(tolerance >= possible), ratio, -1.0)
    r, j = worst_index(shown)
    if not shown[r, j] > -1.0:
        return None
    column = int(columns[j])
    exact = float(moved.x[r, column] - sign * base.x[r, column])
    found = float(moved.y[r, column] - sign * base.y[r, column])
    return _ShiftWorst(
        ratio=float(ratio[r, j]),
        error=float(error[r, j]),
        tolerance=float(tolerance[r, j]),
        position=position_value(base.positions, r),
        column=column,
        expected=f"{shift.label} {shift.op} y(p) = exact {exact!r} for pair {shift.pair} "
        f"(λ = {float(shift.wavelength)!r})",
        found=f"{found!r}",
        moved_to=position_value(shift.positions[shift.usable], r),
        op=shift.op,
    )


@spec_property("5.8", "wavelengths 2π … 2π·base^((d−2)/d); variances")
def prop_frequency_structure(ctx: Context, *, max_rows: int = MAX_ROWS) -> PropertyResult:
    """Pair 0 has wavelength 2π and the last pair 2π·base^((d−2)/d): shifting p by about λ
    repeats the pair and by about λ/2 negates it, so y(p′) ∓ y(p) must equal the exact
    x(p′) ∓ x(p) (≈ 0) within b(p′) + b(p) (integer positions are shifted by integers
    m ≈ N·λ); and each column's variance over the positions equals the exact variance,
    within derived tolerances."""
    positions = ctx.config.positions[:max_rows]
    rows = evaluate(ctx, positions)
    shifts = _shifts(ctx, positions)
    compared = sum(int(np.count_nonzero(s.usable)) for s in shifts)  # (row, shift) pairs
    batch = evaluate_blocks(ctx, [s.positions[s.usable] for s in shifts])  # one backend call
    worst: _ShiftWorst | None = None
    for shift, moved in zip(shifts, batch, strict=True):
        if np.any(shift.usable):
            candidate = _shift_worst(ctx, rows, shift, moved)
            current = None if worst is None else worst.ratio
            if candidate is not None and is_worse(candidate.ratio, current):
                worst = candidate
    if worst is not None and not worst.ratio <= 1.0:
        raise ctx.violation(
            expected=f"{worst.expected} within {worst.tolerance:.3e}",
            found=f"{worst.found}, off by {worst.error:.3e}",
            excess=describe_excess(worst.error, worst.tolerance),
            snippet=ctx.pair_snippet(
                f"[{worst.position!r}, {worst.moved_to!r}]",
                [worst.column],
                f"y[1, 0] {worst.op} y[0, 0] must equal x[1, 0] {worst.op} x[0, 0] (≈ 0) "
                f"within {worst.tolerance:.3e} (SPEC §5.8)",
            ),
            position=worst.position,
            column=worst.column,
            max_error=worst.error,
            bound=worst.tolerance,
            details={"max_ratio": worst.ratio},
        )
    _compare_variances(ctx, rows)
    if worst is None:
        return ctx.passed(0.0, 0.0, None, None, {"max_ratio": 0.0, "shifted_rows": compared})
    details = {"max_ratio": max(worst.ratio, 0.0), "shifted_rows": compared}
    return ctx.passed(worst.error, worst.tolerance, worst.position, worst.column, details)


def _compare_variances(ctx: Context, rows: Rows) -> None:
    """Per-column variance over the rows: |Var y_j − Var x_j| ≤ mean(b(2|x| + b)) + b̄(2|x̄| + b̄)."""
    m = rows.y.shape[0]
    if m < 2:
        return
    b = rows.bound + ORACLE_ERROR
    with np.errstate(invalid="ignore", over="ignore"):
        var_y = np.var(rows.y, axis=0)
        var_x = np.var(rows.x, axis=0)
        error = np.where(np.isfinite(var_y), np.abs(var_y - var_x), np.inf)
    b_mean = np.mean(b, axis=0)
    tolerance = (
        np.mean(b * (2 * np.abs(rows.x) + b), axis=0)
        + b_mean * (2 * np.abs(np.mean(rows.x, axis=0)) + b_mean)
        + gamma(m + 4, U64) * 4.0
    ) * EVALUATION_SAFETY
    ratio = error_ratio(error, tolerance)
    (j,) = worst_index(ratio)
    if not ratio[j] <= 1.0:
        raise ctx.violation(
            expected=f"variance of column {j} over the {m} positions = {float(var_x[j])!r} "
            f"within {tolerance[j]:.3e}",
            found=f"variance {float(var_y[j])!r}",
            excess=describe_excess(float(error[j]), float(tolerance[j])),
            position=position_value(rows.positions, 0),
            column=j,
            max_error=float(error[j]),
            bound=float(tolerance[j]),
        )


@spec_property("5.9", "bit-identical repeated calls")
def prop_determinism(ctx: Context) -> PropertyResult:
    """Two calls with the same arguments give bit-identical arrays."""
    config = ctx.config
    first = call(ctx, config.positions)
    second = call(ctx, config.positions)
    if first.dtype != second.dtype:
        raise ctx.violation(
            expected="the same dtype from both calls",
            found=f"{first.dtype} then {second.dtype}",
            excess="dtype changed",
            position=position_value(config.positions, 0),
        )
    a = np.ascontiguousarray(first).view(np.uint8).reshape(first.shape[0], -1)
    b = np.ascontiguousarray(second).view(np.uint8).reshape(second.shape[0], -1)
    differs = np.any((a != b).reshape(first.shape[0], first.shape[1], first.dtype.itemsize), axis=2)
    if np.any(differs):
        r, j = (int(i) for i in np.argwhere(differs)[0])
        y1, y2 = first.astype(np.float64)[r, j], second.astype(np.float64)[r, j]
        raise ctx.violation(
            expected="bit-identical outputs from two calls",
            found=f"y = {float(y1)!r} then {float(y2)!r}",
            excess=f"{int(np.count_nonzero(differs))} elements differ",
            position=position_value(config.positions, r),
            column=j,
            max_error=float(abs(y1 - y2)) if math.isfinite(y1 - y2) else math.inf,
            bound=0.0,  # bit-identical: no difference is allowed
        )
    return ctx.passed(0.0, 0.0)
