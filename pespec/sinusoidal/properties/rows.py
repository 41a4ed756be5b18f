"""Evaluating a backend for the properties: one guarded call, the oracle's values and the §4
bound at the same positions (:class:`Rows`), and the float64 helpers the checks share.

A backend that raises, returns the wrong shape or a non-float array gets a violation
(:func:`call`), never a crash. The oracle (:func:`pespec.sinusoidal.reference.oracle.encode`) is
correctly rounded: each reference value is within ½ulp ≤ 2^-54 of the exact one.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import gamma
from pespec.numerics.ratio import worst_index
from pespec.sinusoidal.properties.base import EncodingConfig
from pespec.sinusoidal.properties.context import Context, position_value
from pespec.sinusoidal.properties.errormodel import element_bound_parts
from pespec.sinusoidal.properties.output import output_problems
from pespec.sinusoidal.reference import oracle

__all__ = [
    "MAX_ROWS",
    "ORACLE_ERROR",
    "U64",
    "Rows",
    "admitted",
    "call",
    "evaluate",
    "evaluate_blocks",
    "norm_down",
    "norm_up",
    "oracle_values",
    "pair_columns",
    "shift_positions",
    "without_offset",
    "worst_index",
]

ORACLE_ERROR = 2.0**-54
"""|x_ref − x| for the oracle: correctly rounded float64 of a value in [−1, 1] (½ulp ≤ 2^-54)."""

U64 = 2.0**-53
"""Unit roundoff of float64, the arithmetic of the checks themselves."""

MAX_ROWS = 32
"""Rows (the first positions of a configuration) used by the pairwise properties §5.5–§5.6
and by the frequency structure §5.8."""


@dataclass(frozen=True)
class Rows:
    """Backend output at some positions with the exact values and the §4 bound; (m, d)."""

    positions: NDArray[Any]
    raw: NDArray[Any]
    y: NDArray[np.float64]
    x: NDArray[np.float64]
    bound: NDArray[np.float64]
    angle_free: NDArray[np.float64]
    """Bound on |y − (sin θ̂, cos θ̂)| for the backend's own angle θ̂ (SPEC §4.2), (m, d)."""

    def take(self, rows: slice | NDArray[np.bool_]) -> Rows:
        """The same arrays restricted to ``rows`` (a slice or a boolean mask)."""
        return Rows(
            positions=self.positions[rows],
            raw=self.raw[rows],
            y=self.y[rows],
            x=self.x[rows],
            bound=self.bound[rows],
            angle_free=self.angle_free[rows],
        )


def call(ctx: Context, positions: NDArray[Any]) -> NDArray[Any]:
    """Run the backend; any exception, wrong shape or non-float result is a violation."""
    c = ctx.config
    n = positions.shape[0]
    first = position_value(positions, 0) if n else None
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


def sub_config(config: EncodingConfig, positions: NDArray[Any]) -> EncodingConfig:
    """``config`` at other positions (same d_model, base and convention)."""
    return EncodingConfig(positions, config.d_model, config.base, config.convention)


def oracle_values(
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


def evaluate(ctx: Context, positions: NDArray[Any]) -> Rows:
    """Backend rows, oracle rows and the §4 element bound b ≥ |y − x| at ``positions``."""
    raw = call(ctx, positions)
    y = raw.astype(np.float64)
    sub = sub_config(ctx.config, positions)
    x = oracle_values(ctx.config, positions)
    parts = element_bound_parts(sub, ctx.level, np.abs(x) + ORACLE_ERROR)
    return Rows(
        positions=positions, raw=raw, y=y, x=x, bound=parts.total, angle_free=parts.angle_free
    )


def admitted(ctx: Context, positions: NDArray[Any]) -> NDArray[np.bool_]:
    """Mask of ``positions`` the encoder declares it takes (its ``admits`` attribute, set by
    the conformance suite from the declared capabilities; all when it has none). Shifted rows
    outside it are skipped and counted, like inexact shifts, rather than requested."""
    admits = getattr(ctx.encoder, "admits", None)
    if admits is None:
        return np.ones(positions.shape[0], dtype=bool)
    return np.asarray(admits(positions), dtype=bool)


def evaluate_blocks(ctx: Context, blocks: list[NDArray[Any]]) -> list[Rows]:
    """:func:`evaluate` of several position arrays in one backend call, split back per block
    (a table-based backend builds its table once per call)."""
    nonempty = [block for block in blocks if block.size]
    if not nonempty:
        return [Rows(b, b, b.astype(np.float64), b.astype(np.float64), b, b) for b in blocks]
    dtype = np.result_type(*nonempty)
    joined = evaluate(ctx, np.concatenate([b.astype(dtype) for b in blocks]))
    split: list[Rows] = []
    start = 0
    for block in blocks:
        split.append(joined.take(slice(start, start + block.shape[0])))
        start += block.shape[0]
    return split


def norm_up(values: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """An upper bound on the Euclidean norm along ``axis`` (float64 evaluation error covered).

    A non-finite input gives 0: the residual that uses it is non-finite and fails anyway.
    """
    count = values.shape[axis] + 2
    with np.errstate(over="ignore", invalid="ignore"):
        norm = np.sqrt(np.sum(values * values, axis=axis))
    norm = np.where(np.isfinite(norm), norm, 0.0)
    result: NDArray[np.float64] = norm * (1.0 + gamma(count, U64))
    return result


def norm_down(values: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """A lower bound on the Euclidean norm along ``axis``."""
    count = values.shape[axis] + 2
    with np.errstate(over="ignore", invalid="ignore"):
        norm = np.sqrt(np.sum(values * values, axis=axis))
    result: NDArray[np.float64] = norm * (1.0 - gamma(count, U64))
    return result


def without_offset(config: EncodingConfig) -> Any:
    """The convention with position offset 0 and output scale 1: the sines and cosines of
    the angles of a position *difference* (the callers apply the output scale A)."""
    return dataclasses.replace(config.convention, position_offset=0, output_scale=1.0)


def shift_positions(
    positions: NDArray[Any], shift: int | float
) -> tuple[NDArray[Any], NDArray[np.bool_]]:
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


def pair_columns(config: EncodingConfig) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(sine columns, cosine columns) of each pair, in ``config``'s convention; (d/2,) each."""
    c = config.convention
    return c.sin_columns(config.d_model), c.cos_columns(config.d_model)
