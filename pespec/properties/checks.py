"""The properties of SPEC §5, each written once for our tests and the conformance suite.

Every check has the signature ``check_<name>(encoder, config, level) -> PropertyResult``
(extra keyword arguments have defaults), evaluates ``encoder`` on ``config`` and compares
with the certified oracle (:func:`pespec.reference.oracle.encode`, correctly rounded, so
each reference value is within ½ulp ≤ 2^-54 of the exact one). Tolerances come from the
element bound b of SPEC §4 (:mod:`pespec.properties.errormodel`) and from rigorous bounds
on the float64 arithmetic of the check itself. A failed check raises
:class:`~pespec.properties.base.PropertyViolation` whose message says what was expected,
what was found, by how much, where, and how to reproduce it; a backend that raises,
returns the wrong shape or a non-float array also gets a violation, never a crash.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
from numpy.typing import NDArray

from pespec.properties.base import (
    Encoder,
    EncodingConfig,
    Level,
    PropertyResult,
    PropertyViolation,
)
from pespec.properties.errormodel import (
    EVALUATION_SAFETY,
    element_bound_parts,
    gamma,
)
from pespec.properties.output import output_problems
from pespec.properties.ratio import error_ratio
from pespec.reference import oracle

__all__ = [
    "DEFAULT_OFFSETS",
    "MAX_ROWS",
    "ORACLE_ERROR",
    "PROPERTIES",
    "PropertyCheck",
    "check_accuracy",
    "check_boundedness",
    "check_determinism",
    "check_dot_products",
    "check_frequency_structure",
    "check_low_precision",
    "check_norm",
    "check_rotation",
    "check_uniqueness",
]

ORACLE_ERROR = 2.0**-54
"""|x_ref − x| for the oracle: correctly rounded float64 of a value in [−1, 1] (½ulp ≤ 2^-54)."""

U64 = 2.0**-53
"""Unit roundoff of float64, the arithmetic of the checks themselves."""

DEFAULT_OFFSETS: tuple[int, ...] = (1, 5, 10, 50)
"""Offsets k of the rotation property (SPEC §5.4), the seed's list."""

MAX_ROWS = 32
"""Rows (the first positions of a configuration) used by the pairwise properties §5.5–§5.6."""

PropertyFunction = Callable[[Encoder, EncodingConfig, Level], PropertyResult]


@dataclass(frozen=True)
class PropertyCheck:
    """A registered property: its name, SPEC section, one-line statement and check function."""

    name: str
    section: str
    statement: str
    function: PropertyFunction

    def __call__(self, encoder: Encoder, config: EncodingConfig, level: Level) -> PropertyResult:
        return self.function(encoder, config, level)


@dataclass(frozen=True)
class _Context:
    """What every message needs: the property, the backend and its configuration."""

    name: str
    section: str
    encoder: Encoder
    config: EncodingConfig
    level: Level

    def header(self) -> str:
        c = self.config
        return (
            f"{self.name} (SPEC §{self.section}) violated at level {self.level.name} "
            f"(d_model={c.d_model}, base={c.base!r}, convention={c.convention.name})"
        )

    def column_role(self, column: int) -> str:
        pair, is_sin = self.config.convention.column_roles(self.config.d_model)
        return f"pair {int(pair[column])}, {'sin' if is_sin[column] else 'cos'}"

    def convention_argument(self) -> str:
        """``, convention=...`` for oracle.encode, empty for the canonical convention."""
        c = self.config
        if c.convention.is_canonical:
            return ""
        return f", convention=pespec.Convention.from_dict({c.convention.to_dict()!r})"

    def pair_snippet(self, positions: str, columns: list[int], relation: str) -> str:
        """Reproduction of a relation between two positions: the backend's and the exact
        rows at ``positions`` (text of a list), ``columns``, and what must hold."""
        c = self.config
        return (
            f"y = encoder(np.array({positions}), {c.d_model}, {c.base!r})[:, {columns}]; "
            f"x = pespec.reference.oracle.encode({positions}, {c.d_model}, base={c.base!r}"
            f"{self.convention_argument()})[:, {columns}]; {relation}"
        )

    def reproduction(self, position: Any, column: int | None) -> str:
        c = self.config
        index = f"[0, {column}]" if column is not None else "[0]"
        convention = self.convention_argument()
        exact = (
            f"; x = pespec.reference.oracle.encode([{position!r}], {c.d_model}, "
            f"base={c.base!r}{convention}){index}"
        )
        return f"y = encoder(np.array([{position!r}]), {c.d_model}, {c.base!r}){index}" + (
            exact if column is not None else ""
        )

    def violation(
        self,
        *,
        expected: str,
        found: str,
        excess: str,
        position: Any = None,
        column: int | None = None,
        max_error: float | None = None,
        bound: float | None = None,
        details: dict[str, Any] | None = None,
        snippet: str | None = None,
    ) -> PropertyViolation:
        """The violation; ``snippet`` replaces the one-element reproduction for a property
        that relates two positions (rotation, frequency structure)."""
        where = ""
        if position is not None:
            where = f" at position {position!r}"
            if column is not None:
                where += f", column {column} ({self.column_role(column)})"
        message = f"{self.header()}: expected {expected}; found {found} ({excess}){where}."
        if position is not None:
            message += " Reproduce (encoder = the backend under test): " + (
                snippet or self.reproduction(position, column)
            )
        return PropertyViolation(
            self.result(False, message, max_error, bound, position, column, details)
        )

    def result(
        self,
        passed: bool,
        message: str,
        max_error: float | None,
        bound: float | None,
        position: Any = None,
        column: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> PropertyResult:
        """The result; max_error and bound None when there are no numbers (no output)."""
        return PropertyResult(
            property=self.name,
            section=self.section,
            passed=passed,
            max_error=None if max_error is None else float(max_error),
            bound=None if bound is None else float(bound),
            worst_position=position,
            worst_column=column,
            message=message,
            details=details or {},
        )

    def passed(
        self,
        max_error: float,
        bound: float,
        position: Any = None,
        column: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> PropertyResult:
        message = f"{self.name} (SPEC §{self.section}) holds at level {self.level.name}"
        return self.result(True, message, max_error, bound, position, column, details)


@dataclass(frozen=True)
class _Rows:
    """Backend output at some positions with the exact values and the §4 bound; (m, d)."""

    positions: NDArray[Any]
    raw: NDArray[Any]
    y: NDArray[np.float64]
    x: NDArray[np.float64]
    bound: NDArray[np.float64]
    angle_free: NDArray[np.float64]
    """Bound on |y − (sin θ̂, cos θ̂)| for the backend's own angle θ̂ (SPEC §4.2), (m, d)."""


def _position_value(positions: NDArray[Any], row: int) -> int | float:
    value = positions[row].item()
    return int(value) if isinstance(value, int) else float(value)


def _call(ctx: _Context, positions: NDArray[Any]) -> NDArray[Any]:
    """Run the backend; any exception, wrong shape or non-float result is a violation."""
    c = ctx.config
    n = positions.shape[0]
    first = _position_value(positions, 0) if n else None
    try:
        out = ctx.encoder(positions.copy(), c.d_model, c.base)
        array = np.asarray(out)
    except (Exception, SystemExit, GeneratorExit) as exc:  # a verdict, never a crash or an exit
        text = str(exc)  # the suite's guard already says "the backend raised X: ..."
        if not text.startswith("the backend "):
            text = f"the backend raised {type(exc).__name__}: {exc}"
        raise ctx.violation(
            expected=f"an array of shape ({n}, {c.d_model})",
            found=text,
            excess="no output",
            position=first,
        ) from exc
    for problem in output_problems(array, positions, c.d_model, check_finite=False):
        raise ctx.violation(  # the first problem, in the contract's wording
            expected=f"output {problem.subject}{problem.expected}",
            found=f"{problem.subject}{problem.found}",
            excess=f"wrong {problem.kind}",
            position=first,
        )
    return array


def _sub_config(config: EncodingConfig, positions: NDArray[Any]) -> EncodingConfig:
    return EncodingConfig(positions, config.d_model, config.base, config.convention)


def _oracle(
    config: EncodingConfig, positions: NDArray[Any], convention: Any = None
) -> NDArray[np.float64]:
    """Certified values at ``positions`` (n, d); memoised, since checks share positions."""
    chosen = config.convention if convention is None else convention
    return _oracle_cached(
        positions.tobytes(), positions.dtype.str, config.d_model, config.base, chosen
    )


@lru_cache(maxsize=128)
def _oracle_cached(
    data: bytes, dtype: str, d_model: int, base: float, convention: Any
) -> NDArray[np.float64]:
    positions = np.frombuffer(data, dtype=np.dtype(dtype))
    values: NDArray[np.float64] = oracle.encode(
        positions,
        d_model,
        base=base,
        convention=convention,
        workers=1 if positions.size * d_model < oracle.PARALLEL_THRESHOLD else None,
    )
    values.flags.writeable = False
    return values


def _rows(ctx: _Context, positions: NDArray[Any]) -> _Rows:
    """Backend rows, oracle rows and the §4 element bound b ≥ |y − x| at ``positions``."""
    raw = _call(ctx, positions)
    y = raw.astype(np.float64)
    sub = _sub_config(ctx.config, positions)
    x = _oracle(ctx.config, positions)
    parts = element_bound_parts(sub, ctx.level, np.abs(x) + ORACLE_ERROR)
    return _Rows(
        positions=positions, raw=raw, y=y, x=x, bound=parts.total, angle_free=parts.angle_free
    )


def _admitted(ctx: _Context, positions: NDArray[Any]) -> NDArray[np.bool_]:
    """Mask of ``positions`` the encoder declares it takes (its ``admits`` attribute, set by
    the conformance suite from the declared capabilities; all when it has none). Shifted rows
    outside it are skipped and counted, like inexact shifts, rather than requested."""
    admits = getattr(ctx.encoder, "admits", None)
    if admits is None:
        return np.ones(positions.shape[0], dtype=bool)
    return np.asarray(admits(positions), dtype=bool)


def _batched_rows(ctx: _Context, blocks: list[NDArray[Any]]) -> list[_Rows]:
    """:func:`_rows` of several position arrays in one backend call, split back per block
    (a table-based backend builds its table once per call)."""
    nonempty = [block for block in blocks if block.size]
    if not nonempty:
        return [_Rows(b, b, b.astype(np.float64), b.astype(np.float64), b, b) for b in blocks]
    dtype = np.result_type(*nonempty)
    joined = _rows(ctx, np.concatenate([b.astype(dtype) for b in blocks]))
    split: list[_Rows] = []
    start = 0
    for block in blocks:
        part = slice(start, start + block.shape[0])
        split.append(
            _Rows(
                positions=joined.positions[part],
                raw=joined.raw[part],
                y=joined.y[part],
                x=joined.x[part],
                bound=joined.bound[part],
                angle_free=joined.angle_free[part],
            )
        )
        start += block.shape[0]
    return split


def _norm_up(values: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """An upper bound on the Euclidean norm along ``axis`` (float64 evaluation error covered).

    A non-finite input gives 0: the residual that uses it is non-finite and fails anyway.
    """
    count = values.shape[axis] + 2
    with np.errstate(over="ignore", invalid="ignore"):
        norm = np.sqrt(np.sum(values * values, axis=axis))
    norm = np.where(np.isfinite(norm), norm, 0.0)
    result: NDArray[np.float64] = norm * (1.0 + gamma(count, U64))
    return result


def _norm_down(values: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """A lower bound on the Euclidean norm along ``axis``."""
    count = values.shape[axis] + 2
    with np.errstate(over="ignore", invalid="ignore"):
        norm = np.sqrt(np.sum(values * values, axis=axis))
    result: NDArray[np.float64] = norm * (1.0 - gamma(count, U64))
    return result


def _worst(ratio: NDArray[np.float64]) -> tuple[int, ...]:
    """Index of the largest ratio (NaN counts as worst)."""
    safe = np.where(np.isnan(ratio), np.inf, ratio)
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(safe)), safe.shape))


def _describe_excess(error: float, bound: float) -> str:
    if not math.isfinite(error):
        return "not finite"
    if bound > 0:
        return f"{error:.3e} = {error / bound:.3g}× the tolerance {bound:.3e}"
    return f"{error:.3e} above the tolerance 0"


def _elementwise(ctx: _Context, rows: _Rows, what: str) -> PropertyResult:
    """|y − x_ref| ≤ b + 2^-54 element by element (shared by §5.1 and §5.7)."""
    with np.errstate(invalid="ignore"):
        error = np.abs(rows.y - rows.x)
    error = np.where(np.isfinite(rows.y), error, np.inf)
    tolerance = rows.bound + ORACLE_ERROR
    ratio = error_ratio(error, tolerance)
    r, j = _worst(ratio)
    position = _position_value(rows.positions, r)
    details = {"max_ratio": float(ratio[r, j]), "elements": int(error.size)}
    if not ratio[r, j] <= 1.0:
        raise ctx.violation(
            expected=f"{what} |y − x| ≤ {tolerance[r, j]:.3e} (SPEC §4 bound + oracle 2^-54)",
            found=f"y = {float(rows.y[r, j])!r}, exact x = {float(rows.x[r, j])!r}, "
            f"|y − x| = {error[r, j]:.3e}",
            excess=_describe_excess(float(error[r, j]), float(tolerance[r, j])),
            position=position,
            column=j,
            max_error=float(error[r, j]),
            bound=float(tolerance[r, j]),
            details=details,
        )
    details["max_abs_error"] = float(np.max(error))
    return ctx.passed(float(error[r, j]), float(tolerance[r, j]), position, j, details)


def check_accuracy(encoder: Encoder, config: EncodingConfig, level: Level) -> PropertyResult:
    """SPEC §5.1 accuracy: |y(p, j) − x(p, j)| ≤ b(p, j) + 2^-54 for every element."""
    ctx = _Context("accuracy", "5.1", encoder, config, level)
    return _elementwise(ctx, _rows(ctx, config.positions), "every element")


def check_boundedness(encoder: Encoder, config: EncodingConfig, level: Level) -> PropertyResult:
    """SPEC §5.2 boundedness: every element is finite and |y| ≤ 1 exactly (no tolerance)."""
    ctx = _Context("boundedness", "5.2", encoder, config, level)
    raw = _call(ctx, config.positions)
    y = raw.astype(np.float64)
    excess = np.where(np.isfinite(y), np.abs(y) - 1.0, np.inf)
    r, j = _worst(excess)
    position = _position_value(config.positions, r)
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
        f"boundedness (SPEC §5.2) holds at level {level.name}: max |y| = {largest!r} ≤ 1",
        None,
        None,
        position,
        j,
        {"max_abs_value": largest},
    )
    return result


def check_norm(encoder: Encoder, config: EncodingConfig, level: Level) -> PropertyResult:
    """SPEC §5.3 norm: | ‖y_p‖ − √(d/2) | ≤ ‖a_p‖ for every row (plus float64 evaluation).

    a = c_f·u_w + output rounding, without the angle terms: sine and cosine of the same θ̂
    (SPEC §4.1 A5) give a row of norm exactly √(d/2) whatever θ̂ is, and y is within a of it.
    """
    ctx = _Context("norm", "5.3", encoder, config, level)
    rows = _rows(ctx, config.positions)
    d = config.d_model
    exact = math.sqrt(d / 2)
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.sqrt(np.sum(rows.y * rows.y, axis=1))
        error = np.where(np.isfinite(norms), np.abs(norms - exact), np.inf)
    bound_norm = _norm_up(rows.angle_free)
    evaluation = gamma(d + 4, U64) * (exact + bound_norm)
    tolerance = (bound_norm + evaluation) * EVALUATION_SAFETY
    ratio = error_ratio(error, tolerance)
    (r,) = _worst(ratio)
    position = _position_value(config.positions, r)
    details = {"max_ratio": float(ratio[r])}
    if not ratio[r] <= 1.0:
        raise ctx.violation(
            expected=f"‖y_p‖ = √(d/2) = {exact!r} within ‖a_p‖ = {tolerance[r]:.3e} "
            "(sine/cosine accuracy and output rounding; no angle term)",
            found=f"‖y_p‖ = {float(norms[r])!r}",
            excess=_describe_excess(float(error[r]), float(tolerance[r])),
            position=position,
            max_error=float(error[r]),
            bound=float(tolerance[r]),
            details=details,
        )
    details["max_abs_error"] = float(np.max(error))
    return ctx.passed(float(error[r]), float(tolerance[r]), position, None, details)


def _without_offset(config: EncodingConfig) -> Any:
    """The convention with position offset 0: angles of a position *difference*."""
    return dataclasses.replace(config.convention, position_offset=0)


def _shifted(positions: NDArray[Any], shift: int | float) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """(positions + shift, mask of rows where that sum is exact in the positions' dtype)."""
    if positions.dtype.kind in "iu":
        exact = np.array([abs(int(p) + int(shift)) < 2**63 for p in positions.tolist()], dtype=bool)
        safe = np.where(exact, positions, 0)
        return (safe + np.int64(shift)).astype(np.int64), exact
    shifted = positions + float(shift)
    exact = np.array(
        [
            math.isfinite(s) and Fraction(s) == Fraction(p) + Fraction(shift)
            for p, s in zip(positions.tolist(), shifted.tolist(), strict=True)
        ],
        dtype=bool,
    )
    return shifted, exact


def _pair_columns(config: EncodingConfig) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    c = config.convention
    return c.sin_columns(config.d_model), c.cos_columns(config.d_model)


def check_rotation(
    encoder: Encoder,
    config: EncodingConfig,
    level: Level,
    *,
    offsets: Sequence[int] = DEFAULT_OFFSETS,
) -> PropertyResult:
    """SPEC §5.4 rotation: ‖M_k y_p − y_{p+k}‖ ≤ ‖b_p‖ + ‖b_{p+k}‖ (+ evaluation terms), with
    one M_k = diag(R_i(k)) for every p (M_k from the oracle's sin, cos of c·k·ω_i)."""
    ctx = _Context("rotation", "5.4", encoder, config, level)
    base_rows = _rows(ctx, config.positions)
    sin_cols, cos_cols = _pair_columns(config)
    d = config.d_model
    worst: tuple[float, float, float, Any, int, int] = (-1.0, 0.0, 0.0, None, 0, 0)
    skipped = 0
    plans = []
    for k in offsets:
        shifted, exact = _shifted(config.positions, int(k))
        exact &= _admitted(ctx, shifted)
        skipped += int(np.count_nonzero(~exact))
        plans.append((k, shifted, exact))
    moved = _batched_rows(ctx, [shifted[exact] for _, shifted, exact in plans])
    for (k, _, exact), k_rows in zip(plans, moved, strict=True):
        if not np.any(exact):
            continue
        p_rows = _Rows(
            positions=base_rows.positions[exact],
            raw=base_rows.raw[exact],
            y=base_rows.y[exact],
            x=base_rows.x[exact],
            bound=base_rows.bound[exact],
            angle_free=base_rows.angle_free[exact],
        )
        angle = _oracle(config, np.array([int(k)], dtype=np.int64), _without_offset(config))[0]
        sin_k, cos_k = angle[sin_cols], angle[cos_cols]
        a, b = p_rows.y[:, sin_cols], p_rows.y[:, cos_cols]
        rotated = np.empty_like(p_rows.y)
        rotated[:, sin_cols] = a * cos_k + b * sin_k
        rotated[:, cos_cols] = b * cos_k - a * sin_k
        with np.errstate(invalid="ignore", over="ignore"):
            residual_vec = rotated - k_rows.y
            residual = np.sqrt(np.sum(residual_vec * residual_vec, axis=1))
        residual = np.where(np.isfinite(residual), residual, np.inf)
        norm_p = _norm_up(p_rows.y)
        norm_k = _norm_up(k_rows.y)
        tolerance = (
            (1.0 + gamma(d + 2, U64))
            * (
                _norm_up(p_rows.bound)
                + _norm_up(k_rows.bound)
                + 2.0 * ORACLE_ERROR * norm_p
                + gamma(3, U64) * (math.sqrt(2.0) * norm_p + norm_k)
            )
            * EVALUATION_SAFETY
        )
        ratio = error_ratio(residual, tolerance)
        (r,) = _worst(ratio)
        if ratio[r] > worst[0] or worst[3] is None:
            column = int(
                np.argmax(np.where(np.isnan(residual_vec[r]), np.inf, np.abs(residual_vec[r])))
            )
            worst = (
                float(ratio[r]),
                float(residual[r]),
                float(tolerance[r]),
                _position_value(p_rows.positions, r),
                column,
                int(k),
            )
    ratio_max, residual_max, tolerance_max, position, column, k_max = worst
    details = {"max_ratio": ratio_max, "offset": k_max, "skipped_inexact_shifts": skipped}
    if position is None:
        return ctx.passed(0.0, 0.0, None, None, details)
    if not ratio_max <= 1.0:
        raise ctx.violation(
            expected=f"y_(p+{k_max}) = M_{k_max}·y_p within ‖b_p‖ + ‖b_(p+{k_max})‖ = "
            f"{tolerance_max:.3e} (M_k block-diagonal rotations R_i({k_max}), the same for "
            "every p)",
            found=f"‖M_k y_p − y_(p+k)‖ = {residual_max:.3e}, largest in column {column}",
            excess=_describe_excess(residual_max, tolerance_max),
            snippet=_rotation_snippet(ctx, position, k_max, column),
            position=position,
            column=column,
            max_error=residual_max,
            bound=tolerance_max,
            details=details,
        )
    return ctx.passed(residual_max, tolerance_max, position, column, details)


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
    ctx: _Context, max_rows: int
) -> tuple[NDArray[Any], _Rows, NDArray[Any], NDArray[np.intp], NDArray[np.bool_]]:
    """The first ``max_rows`` positions, their rows, and their pairwise |p − q| (see
    :func:`_differences`): the common start of the pairwise properties §5.5–§5.6."""
    positions = ctx.config.positions[:max_rows]
    diffs, index, valid = _differences(positions)
    return positions, _rows(ctx, positions), diffs, index, valid


def check_dot_products(
    encoder: Encoder, config: EncodingConfig, level: Level, *, max_rows: int = MAX_ROWS
) -> PropertyResult:
    """SPEC §5.5 dot products: y_p·y_q = S(p − q) = Σ_i cos(c·ω_i·(p − q)) within
    √(d/2)(‖b_p‖ + ‖b_q‖) + ‖b_p‖‖b_q‖, for all pairs of the first ``max_rows`` rows."""
    ctx = _Context("dot_products", "5.5", encoder, config, level)
    positions, rows, diffs, index, valid = _pairs(ctx, max_rows)
    d = config.d_model
    if diffs.size == 0:
        return ctx.passed(0.0, 0.0)
    _, cos_cols = _pair_columns(config)
    cosines = _oracle(config, diffs, _without_offset(config))[:, cos_cols]
    sums = np.sum(cosines, axis=1)
    sum_error = (d / 2) * ORACLE_ERROR + gamma(d, U64) * (d / 2)
    expected = sums[index]
    with np.errstate(invalid="ignore", over="ignore"):
        dots = rows.y @ rows.y.T
        error = np.where(np.isfinite(dots), np.abs(dots - expected), np.inf)
    norm_y = _norm_up(rows.y)
    norm_b = _norm_up(rows.bound)
    root = math.sqrt(d / 2)
    tolerance = (
        root * (norm_b[:, None] + norm_b[None, :])
        + norm_b[:, None] * norm_b[None, :]
        + gamma(d + 2, U64) * norm_y[:, None] * norm_y[None, :]
        + sum_error
    ) * EVALUATION_SAFETY
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
        r, s = _worst(ratio)
    else:
        r, s = _worst(np.where(informative, ratio, -1.0))
    p, q = _position_value(positions, r), _position_value(positions, s)
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
            f"dot_products (SPEC §5.5) holds at level {level.name}; every pair's bound exceeds "
            "any error a finite output could have (positions too large for the level to "
            "resolve p·ω), so no pair tested the values",
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
            excess=_describe_excess(float(error[r, s]), float(tolerance[r, s])),
            position=p,
            max_error=float(error[r, s]),
            bound=float(tolerance[r, s]),
            details=details,
        )
    details["max_abs_error"] = float(np.max(np.where(valid, error, 0.0)))
    return ctx.passed(float(error[r, s]), float(tolerance[r, s]), p, None, details)


def check_uniqueness(
    encoder: Encoder, config: EncodingConfig, level: Level, *, max_rows: int = MAX_ROWS
) -> PropertyResult:
    """SPEC §5.6 uniqueness: ‖y_p − y_q‖ ≥ σ(p − q) − ‖b_p‖ − ‖b_q‖ > 0 for every pair of the
    first ``max_rows`` rows whose exact separation σ = 2·(Σ_i sin²(c·ω_i·(p − q)/2))^½
    exceeds ‖b_p‖ + ‖b_q‖ (other pairs are not claimed distinct)."""
    ctx = _Context("uniqueness", "5.6", encoder, config, level)
    positions, rows, diffs, index, valid = _pairs(ctx, max_rows)
    d = config.d_model
    if diffs.size == 0:
        return ctx.passed(0.0, 0.0)
    halves = diffs.astype(np.float64) / 2.0  # exact: |p − q| < 2^63 and float halving
    halves_exact = np.array(
        [
            Fraction(h) * 2 == Fraction(v)
            for h, v in zip(halves.tolist(), diffs.tolist(), strict=True)
        ],
        dtype=bool,
    )
    sin_cols, _ = _pair_columns(config)
    sines = _oracle(config, halves, _without_offset(config))[:, sin_cols]
    # ‖ŝ − s‖ ≤ 2^-54·√(d/2), so σ ≥ 2·(‖ŝ‖ − 2^-54·√(d/2)).
    sigma_low = 2.0 * np.maximum(_norm_down(sines) - ORACLE_ERROR * math.sqrt(d / 2), 0.0)
    sigma_low = np.where(halves_exact, sigma_low, 0.0)
    norm_b = _norm_up(rows.bound)
    margin = (norm_b[:, None] + norm_b[None, :]) * EVALUATION_SAFETY
    required = sigma_low[index] - margin
    claimed = valid & (required > 0) & ~np.eye(len(positions), dtype=bool)
    separation = np.empty((len(positions), len(positions)))
    with np.errstate(invalid="ignore", over="ignore"):
        for r in range(len(positions)):
            diff = rows.y - rows.y[r]
            separation[r] = np.sqrt(np.sum(diff * diff, axis=1)) * (1.0 + gamma(d + 3, U64))
    separation = np.where(np.isfinite(separation), separation, -np.inf)
    shortfall = np.where(claimed, required - separation, -np.inf)
    # As error and tolerance: the deficit σ − ‖y_p − y_q‖ may be at most ‖b_p‖ + ‖b_q‖.
    with np.errstate(invalid="ignore"):
        deficit = np.where(claimed, np.maximum(sigma_low[index] - separation, 0.0), 0.0)
    ratio = np.where(claimed, error_ratio(deficit, margin), -np.inf)
    r, s = _worst(ratio)
    off_diagonal = valid & ~np.eye(len(positions), dtype=bool)
    details: dict[str, Any] = {
        "claimed_pairs": int(np.count_nonzero(claimed)),
        "unclaimed_pairs": int(np.count_nonzero(off_diagonal & ~claimed)),
    }
    if not np.any(claimed):
        return ctx.passed(0.0, 0.0, None, None, details)
    p, q = _position_value(positions, r), _position_value(positions, s)
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


LOW_PRECISION = ("float16", "bfloat16")


def check_low_precision(encoder: Encoder, config: EncodingConfig, level: Level) -> PropertyResult:
    """SPEC §5.7 low precision: at a float16/bfloat16 level the output has that dtype and every
    element is within its §4 bound; for other levels the property does not apply (passes)."""
    ctx = _Context("low_precision", "5.7", encoder, config, level)
    if level.output_dtype not in LOW_PRECISION:
        reason = f"SPEC §5.7 states it for float16/bfloat16 levels; the level is {level.name}"
        return ctx.passed(0.0, 0.0, details={"applicable": False, "reason": reason})
    rows = _rows(ctx, config.positions)
    if rows.raw.dtype != level.numpy_output_dtype:
        raise ctx.violation(
            expected=f"output dtype {level.output_dtype}",
            found=f"dtype {rows.raw.dtype}",
            excess="wrong dtype for the claimed level",
            position=_position_value(config.positions, 0),
        )
    result = _elementwise(ctx, rows, f"{level.output_dtype} output,")
    result.details["applicable"] = True
    return result


def _wavelength(config: EncodingConfig, pair: int) -> Any:
    """λ = 2π/(|c|·ω_pair), the wavelength in positions, as an mpmath number (120 bits)."""
    den = config.convention.denominator(config.d_model)
    with mpmath.workprec(120):
        omega = mpmath.power(mpmath.mpf(config.base), -mpmath.mpf(pair) / mpmath.mpf(den))
        scale = abs(mpmath.mpf(float(config.convention.argument_scale)))
        return 2 * mpmath.pi / (omega * scale)


def _rotation_snippet(ctx: _Context, position: Any, k: int, column: int) -> str:
    """Reproduction of a rotation failure: rows p and p + k of the failing pair, and the
    relation y(p + k) = R(k)·y(p) with R(k)'s sin and cos from the exact row at k (offset 0
    there: the angles of a position difference)."""
    sin_cols, cos_cols = _pair_columns(ctx.config)
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
        shifted, exact = _shifted(positions, step)
        with mpmath.workprec(120):
            label = f"y(p + {step}) (≈ {float(target / wavelength):g}·λ)"
        return shifted, exact, label
    with mpmath.workprec(120):
        target = wavelength / 2 if half else wavelength
    shifted = positions + float(target)
    return shifted, np.isfinite(shifted), f"y(p + {'λ/2' if half else 'λ'})"


def check_frequency_structure(
    encoder: Encoder, config: EncodingConfig, level: Level, *, max_rows: int = MAX_ROWS
) -> PropertyResult:
    """SPEC §5.8 frequency structure: pair 0 has wavelength 2π and the last pair
    2π·base^((d−2)/d): shifting p by about λ repeats the pair and by about λ/2 negates it, so
    y(p′) ∓ y(p) must equal the exact x(p′) ∓ x(p) (≈ 0) within b(p′) + b(p) (integer
    positions are shifted by integers m ≈ N·λ); and each column's variance over the
    positions equals the exact variance, within derived tolerances."""
    ctx = _Context("frequency_structure", "5.8", encoder, config, level)
    positions = config.positions[:max_rows]
    d = config.d_model
    rows = _rows(ctx, positions)
    sin_cols, cos_cols = _pair_columns(config)
    worst: tuple[float, float, float, Any, int, str] = (-1.0, 0.0, 0.0, None, 0, "")
    moved_to: Any = None
    moved_op = "−"
    compared = 0  # (row, shift) pairs compared; a shift past the positions' range is skipped
    plans = []
    for pair in sorted({0, d // 2 - 1}):
        wavelength = _wavelength(config, pair)
        for half in (False, True):
            shifted, usable, label = _shift_plan(positions, wavelength, half)
            usable &= _admitted(ctx, shifted)  # a shift past the declared range is skipped
            compared += int(np.count_nonzero(usable))
            plans.append((pair, wavelength, half, shifted, usable, label))
    batch = _batched_rows(ctx, [plan[3][plan[4]] for plan in plans])  # one backend call
    for (pair, wavelength, half, shifted, usable, label), moved in zip(plans, batch, strict=True):
        if not np.any(usable):
            continue
        columns = np.array([sin_cols[pair], cos_cols[pair]])
        sign = -1.0 if half else 1.0
        # (y′ ∓ y) − (x′ ∓ x) = e′ ∓ e: within b′ + b + 2·2^-54 (oracle), and the three
        # float64 subtractions add at most a factor (1 + γ(2)).
        with np.errstate(invalid="ignore"):
            error = np.abs(
                (moved.y[:, columns] - moved.x[:, columns])
                - sign * (rows.y[usable][:, columns] - rows.x[usable][:, columns])
            )
        error = np.where(np.isfinite(error), error, np.inf)
        tolerance = (
            (moved.bound[:, columns] + rows.bound[usable][:, columns] + 2 * ORACLE_ERROR)
            * (1 + gamma(2, U64))
            * EVALUATION_SAFETY
        )
        ratio = error_ratio(error, tolerance)
        # An element whose tolerance exceeds any error of finite outputs (|y′ ∓ y| ≤
        # |y′| + |y|) cannot fail; the worst reported is an informative one (as in
        # dot_products: at |p| ≈ 1e16 the bound is that wide).
        possible = (
            np.abs(moved.y[:, columns])
            + np.abs(rows.y[usable][:, columns])
            + np.abs(moved.x[:, columns] - sign * rows.x[usable][:, columns])
        )
        shown = np.where((ratio > 1.0) | ~(tolerance >= possible), ratio, -1.0)
        r, j = _worst(shown)
        if shown[r, j] > worst[0]:
            exact = float(moved.x[r, columns[j]] - sign * rows.x[usable][r, columns[j]])
            found = float(moved.y[r, columns[j]] - sign * rows.y[usable][r, columns[j]])
            worst = (
                float(ratio[r, j]),
                float(error[r, j]),
                float(tolerance[r, j]),
                _position_value(positions[usable], r),
                int(columns[j]),
                f"{label} {'+' if half else '−'} y(p) = exact {exact!r} for pair {pair} "
                f"(λ = {float(wavelength)!r}); found {found!r}",
            )
            moved_to = _position_value(shifted[usable], r)
            moved_op = "+" if half else "−"
    ratio_max, err_max, tol_max, position, column, statement = worst
    if position is not None and not ratio_max <= 1.0:
        expected, _, found_text = statement.partition("; found ")
        raise ctx.violation(
            expected=f"{expected} within {tol_max:.3e}",
            found=f"{found_text}, off by {err_max:.3e}",
            excess=_describe_excess(err_max, tol_max),
            snippet=ctx.pair_snippet(
                f"[{position!r}, {moved_to!r}]",
                [column],
                f"y[1, 0] {moved_op} y[0, 0] must equal x[1, 0] {moved_op} x[0, 0] (≈ 0) "
                f"within {tol_max:.3e} (SPEC §5.8)",
            ),
            position=position,
            column=column,
            max_error=err_max,
            bound=tol_max,
            details={"max_ratio": ratio_max},
        )
    _check_variances(ctx, rows)
    details = {"max_ratio": max(ratio_max, 0.0), "shifted_rows": compared}
    if position is None:
        return ctx.passed(0.0, 0.0, None, None, details)
    return ctx.passed(err_max, tol_max, position, column, details)


def _check_variances(ctx: _Context, rows: _Rows) -> None:
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
    (j,) = _worst(ratio)
    if not ratio[j] <= 1.0:
        raise ctx.violation(
            expected=f"variance of column {j} over the {m} positions = {float(var_x[j])!r} "
            f"within {tolerance[j]:.3e}",
            found=f"variance {float(var_y[j])!r}",
            excess=_describe_excess(float(error[j]), float(tolerance[j])),
            position=_position_value(rows.positions, 0),
            column=j,
            max_error=float(error[j]),
            bound=float(tolerance[j]),
        )


def check_determinism(encoder: Encoder, config: EncodingConfig, level: Level) -> PropertyResult:
    """SPEC §5.9 determinism: two calls with the same arguments give bit-identical arrays."""
    ctx = _Context("determinism", "5.9", encoder, config, level)
    first = _call(ctx, config.positions)
    second = _call(ctx, config.positions)
    if first.dtype != second.dtype:
        raise ctx.violation(
            expected="the same dtype from both calls",
            found=f"{first.dtype} then {second.dtype}",
            excess="dtype changed",
            position=_position_value(config.positions, 0),
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
            position=_position_value(config.positions, r),
            column=j,
            max_error=float(abs(y1 - y2)) if math.isfinite(y1 - y2) else math.inf,
            bound=0.0,  # bit-identical: no difference is allowed
        )
    return ctx.passed(0.0, 0.0)


PROPERTIES: dict[str, PropertyCheck] = {
    check.name: check
    for check in (
        PropertyCheck("accuracy", "5.1", "|y − x| ≤ b elementwise", check_accuracy),
        PropertyCheck("boundedness", "5.2", "|y| ≤ 1 exactly", check_boundedness),
        PropertyCheck("norm", "5.3", "‖y_p‖ = √(d/2) within ‖a_p‖", check_norm),
        PropertyCheck("rotation", "5.4", "y_(p+k) = M_k y_p, M_k independent of p", check_rotation),
        PropertyCheck("dot_products", "5.5", "y_p·y_q = Σ cos(ω_i(p − q))", check_dot_products),
        PropertyCheck("uniqueness", "5.6", "distinct positions, distinct rows", check_uniqueness),
        PropertyCheck(
            "low_precision", "5.7", "float16/bfloat16 within their level", check_low_precision
        ),
        PropertyCheck(
            "frequency_structure",
            "5.8",
            "wavelengths 2π … 2π·base^((d−2)/d); variances",
            check_frequency_structure,
        ),
        PropertyCheck("determinism", "5.9", "bit-identical repeated calls", check_determinism),
    )
}
"""The properties in SPEC order; the conformance suite iterates over this registry."""
