"""Rotary properties (SPEC §8.8), each written once: used by the suite and by the tests.

Every property takes ``call(x, positions) -> (n, head_dim) array`` (a guarded backend bound to
one configuration), the configuration, the level and the output dtype, and returns an
:class:`Outcome`: the worst element's error and bound (ratio > 1 fails), a message and where.
Inputs x are multiples of 1/64 with |x| ≤ 2 (at most 8 significant bits): exact in bfloat16 and
float16, and sums of two such vectors (linearity) are too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.ratio import WorstRatio
from pespec.rope.config import RopeConfig
from pespec.rope.errormodel import RopeLevel, element_bound, tolerance
from pespec.rope.inputs import SUITE_HALF, rotary_x

__all__ = [
    "PROPERTIES",
    "Outcome",
    "accuracy",
    "finish_outcome",
    "fold_outcome",
    "linearity",
    "norm",
    "r_zero",
    "relative_position",
    "row_independence",
    "unplanned",
]

F64 = NDArray[np.float64]
Call = Callable[[F64, NDArray[Any]], NDArray[Any]]

_U64: Final = 2.0**-53
CHUNK_ROWS: Final = 8192
"""Rows per backend call in :func:`accuracy` (memory stays bounded for 2^20 positions)."""


@dataclass
class Outcome:
    """A property's result: ``ratio`` = worst error / its bound (≤ 1 passes)."""

    ratio: float
    error: float
    bound: float
    position: float | None
    column: int | None
    compared: int
    message: str = ""

    @property
    def passed(self) -> bool:
        return self.compared > 0 and self.ratio <= 1.0

    def result_fields(self) -> dict[str, Any]:
        """The fields of the check result it gives (status, message, the worst element and
        its details), for ``CheckResult``/``PlannedCheck.result`` keywords."""
        finite = bool(np.isfinite(self.ratio))
        return {
            "status": "passed" if self.passed else "failed",
            "message": self.message,
            "max_error": self.error,
            "bound": self.bound,
            "worst_position": self.position,
            "worst_column": self.column,
            "details": {
                "max_ratio": self.ratio if finite else None,
                "values_compared": self.compared,
            },
        }


def fold_outcome(
    outcome: Outcome | None, error: F64, bound: F64, positions: NDArray[Any]
) -> Outcome:
    """Merge one block's |error| against ``bound`` (same shape, rows = positions), by the one
    worst-ratio accumulator (:class:`~pespec.numerics.ratio.WorstRatio`)."""
    current = outcome or Outcome(-1.0, 0.0, 0.0, None, None, 0)
    worst = WorstRatio(current.ratio)
    flat = worst.fold(error, bound)
    current.compared += worst.compared
    if flat is not None and worst.error is not None and worst.bound is not None:
        shape = np.shape(error)
        row, col = np.unravel_index(flat, shape) if len(shape) == 2 else (flat, 0)
        current.ratio, current.error, current.bound = worst.ratio, worst.error, worst.bound
        current.position = float(np.asarray(positions).reshape(-1)[row])
        current.column = int(col)
    return current


def _plain(position: float | None) -> int | float | None:
    """A position as a plain Python number for a message (``5``, not ``np.float64(5.0)``)."""
    if position is None:
        return None
    number = float(position)
    return int(number) if number.is_integer() else number


def finish_outcome(outcome: Outcome, what: str) -> Outcome:
    """Write ``outcome``'s message (within the bound, or the worst element) for ``what``."""
    if outcome.passed:
        outcome.message = (
            f"{what}: {outcome.compared} values within the bound (worst at "
            f"{outcome.ratio:.3g} of its bound)"
        )
    else:
        outcome.message = (
            f"{what}: |error| {outcome.error:.3g} > bound {outcome.bound:.3g} "
            f"(ratio {outcome.ratio:.3g}) at position {_plain(outcome.position)!r}, "
            f"column {outcome.column}"
        )
    return outcome


def accuracy(
    call: Call, positions: NDArray[Any], config: RopeConfig, level: RopeLevel, output_dtype: str
) -> Outcome:
    """Every element within :func:`element_bound` of the exact value (SPEC §8.7), against the
    exact float64 reference (its proved :func:`~pespec.rope.rotation_bound` added: the one
    :func:`~pespec.rope.errormodel.tolerance`), in chunks."""
    from pespec.rope.reference import rotate

    outcome: Outcome | None = None
    for r0 in range(0, positions.shape[0], CHUNK_ROWS):
        p = positions[r0 : r0 + CHUNK_ROWS]
        x = rotary_x(p.shape[0], config.head_dim, seed=r0 // CHUNK_ROWS, half=SUITE_HALF)
        y = np.asarray(call(x, p), dtype=np.float64)
        bound = tolerance(x, p, config, level, output_dtype)
        outcome = fold_outcome(outcome, np.abs(y - rotate(x, p, config)), bound, p)
    return finish_outcome(outcome or Outcome(-1.0, 0.0, 0.0, None, None, 0), "accuracy")


def norm(
    call: Call, positions: NDArray[Any], config: RopeConfig, level: RopeLevel, output_dtype: str
) -> Outcome:
    """‖rotary part of y‖ = A·‖rotary part of x‖ within ‖bound‖₂ per row; the pass-through
    dimensions k ≥ d_r come back bit for bit."""
    from pespec.rope.oracle import attention_factor

    x = rotary_x(positions.shape[0], config.head_dim, seed=11, half=SUITE_HALF)
    y = np.asarray(call(x, positions), dtype=np.float64)
    d_r = config.d_r
    if not np.array_equal(y[:, d_r:], x[:, d_r:]):
        rows, cols = np.nonzero(y[:, d_r:] != x[:, d_r:])
        return Outcome(
            np.inf,
            float(abs(y[rows[0], d_r + cols[0]] - x[rows[0], d_r + cols[0]])),
            0.0,
            float(positions[rows[0]]),
            int(d_r + cols[0]),
            y.size,
            f"norm: pass-through column {d_r + cols[0]} changed at position "
            f"{positions[rows[0]].item()!r} (must be bit for bit)",
        )
    big_a = attention_factor(config)
    bound = np.sqrt(
        np.sum(element_bound(x, positions, config, level, output_dtype)[:, :d_r] ** 2, axis=1)
    )
    exact = big_a * np.sqrt(np.sum(x[:, :d_r] ** 2, axis=1))
    got = np.sqrt(np.sum(y[:, :d_r] ** 2, axis=1))
    bound = bound + 4 * d_r * _U64 * (exact + bound)  # our float64 sums and roots
    outcome = fold_outcome(None, np.abs(got - exact)[:, None], bound[:, None], positions)
    return finish_outcome(outcome, "norm")


def r_zero(call: Call, config: RopeConfig, level: RopeLevel, output_dtype: str) -> Outcome:
    """R(0) = A·identity: rows at position 0 equal A·x (pairs in the output layout) within the
    bound at p = 0."""
    from pespec.rope.oracle import attention_factor

    x = rotary_x(16, config.head_dim, seed=3, half=SUITE_HALF)
    p = np.zeros(16, dtype=np.int64)
    y = np.asarray(call(x, p), dtype=np.float64)
    from pespec.rope.reference import pair_views

    big_a = attention_factor(config)
    exact = x.copy()  # R(0) = A·identity on the pairs, laid out in the output layout
    a, b = pair_views(x, config, output=False)
    ya, yb = pair_views(exact, config, output=True)
    ya[...], yb[...] = big_a * a, big_a * b
    bound = tolerance(x, p, config, level, output_dtype, 2 * _U64 * np.abs(exact))
    return finish_outcome(fold_outcome(None, np.abs(y - exact), bound, p), "R(0) = A·I")


def linearity(
    call: Call, positions: NDArray[Any], config: RopeConfig, level: RopeLevel, output_dtype: str
) -> Outcome:
    """R(p)(x + z) = R(p)x + R(p)z within the sum of the three element bounds."""
    n = positions.shape[0]
    x, z = (
        rotary_x(n, config.head_dim, seed=5, half=SUITE_HALF),
        rotary_x(n, config.head_dim, seed=6, half=SUITE_HALF),
    )
    s = x + z  # |k| ≤ 254 over 64: 8 significant bits, exact in bfloat16 and float16
    ys = [np.asarray(call(v, positions), dtype=np.float64) for v in (x, z, s)]
    bound = sum(element_bound(v, positions, config, level, output_dtype) for v in (x, z, s))
    bound = np.asarray(bound) + 2 * _U64 * (np.abs(ys[0]) + np.abs(ys[1]))
    outcome = fold_outcome(None, np.abs(ys[2] - ys[0] - ys[1]), bound, positions)
    return finish_outcome(outcome, "linearity")


def row_independence(
    call: Call, positions: NDArray[Any], config: RopeConfig, level: RopeLevel, output_dtype: str
) -> Outcome:
    """A row rotated alone equals the same row in a batch, within twice its bound (ℓ is in
    the configuration, so the schedule does not depend on the batch)."""
    x = rotary_x(positions.shape[0], config.head_dim, seed=7, half=SUITE_HALF)
    batch = np.asarray(call(x, positions), dtype=np.float64)
    picks = np.unique(np.linspace(0, positions.shape[0] - 1, 8).astype(np.intp))
    outcome: Outcome | None = None
    for i in picks.tolist():
        alone = np.asarray(call(x[i : i + 1], positions[i : i + 1]), dtype=np.float64)
        bound = 2 * element_bound(x[i : i + 1], positions[i : i + 1], config, level, output_dtype)
        outcome = fold_outcome(
            outcome, np.abs(alone - batch[i : i + 1]), bound, positions[i : i + 1]
        )
    return finish_outcome(outcome or Outcome(-1.0, 0.0, 0.0, None, None, 0), "row independence")


def relative_position(
    call: Call, pairs: NDArray[Any], config: RopeConfig, level: RopeLevel, output_dtype: str
) -> Outcome:
    """⟨R(m)q, R(n)k⟩ = A²·g(m − n) for (m, n) rows of ``pairs`` (shape (k, 2)), g from the
    exact reference's cos/sin of (m − n)·ω' (SPEC §8.8); bound from the element bounds."""
    from pespec.rope.oracle import attention_factor
    from pespec.rope.reference import cos_sin, pair_views

    m, n_ = pairs[:, 0], pairs[:, 1]
    q = rotary_x(m.shape[0], config.head_dim, seed=8, half=SUITE_HALF)
    k = rotary_x(m.shape[0], config.head_dim, seed=9, half=SUITE_HALF)
    yq = np.asarray(call(q, m), dtype=np.float64)
    yk = np.asarray(call(k, n_), dtype=np.float64)
    got = np.sum(yq * yk, axis=1)
    cos, sin = cos_sin(m - n_, config)
    qa, qb = pair_views(q, config, output=False)
    ka, kb = pair_views(k, config, output=False)
    big_a = attention_factor(config)
    d_r = config.d_r
    exact = big_a**2 * np.sum((qa * ka + qb * kb) * cos + (qa * kb - qb * ka) * sin, axis=1)
    exact += np.sum(q[:, d_r:] * k[:, d_r:], axis=1)
    bq = element_bound(q, m, config, level, output_dtype)
    bk = element_bound(k, n_, config, level, output_dtype)
    mq = _exact_magnitude(q, config, big_a)
    mk = _exact_magnitude(k, config, big_a)
    bound = np.sum(bq * mk + mq * bk + bq * bk, axis=1)
    scale = np.sum(mq * mk, axis=1)
    bound += 4 * (config.head_dim + 4) * _U64 * (scale + bound) + 2.0**-52 * big_a**2 * scale
    return finish_outcome(
        fold_outcome(None, np.abs(got - exact)[:, None], bound[:, None], m), "relative position"
    )


def _exact_magnitude(x: F64, config: RopeConfig, big_a: float) -> F64:
    """Per element, a bound on |exact output|: A·‖(a_j, b_j)‖ in the rotary part, |x| beyond."""
    from pespec.rope.reference import pair_views

    out = np.abs(x).copy()
    a, b = pair_views(x, config, output=False)
    pair = big_a * np.hypot(a, b) * (1 + 4 * _U64)
    ya, yb = pair_views(out, config, output=True)
    ya[...] = pair
    yb[...] = pair
    result: F64 = out
    return result


PROPERTIES: dict[str, str] = {
    "accuracy": "every element within the stage bound of SPEC §8.7 (positions up to 2^20)",
    "norm": "the rotary part keeps its norm times A; pass-through dimensions bit for bit",
    "r-zero": "R(0) = A·identity",
    "relative-position": "<R(m)q, R(n)k> = A^2 g(m - n) for m, n up to 2^20",
    "linearity": "R(p)(x + z) = R(p)x + R(p)z",
    "row-independence": "a row rotated alone equals the same row in a batch",
    "config-independence": "configuration A, then B, then A: A bit-identical, B as defined",
}
"""The properties the suite checks, by id, with the statement each checks (SPEC §8.8)."""


def unplanned(config: RopeConfig) -> frozenset[str]:
    """The properties the suite does not plan for ``config``: accuracy (the reference stage),
    and with xPos those stated with A alone (norm, R(0), relative position: σ_j(p) and the
    role change them, SPEC Annex J), and row independence when c is each call's n//2."""
    if config.xpos_scale_base is None:
        return frozenset({"accuracy"})
    out = {"accuracy", "norm", "r-zero", "relative-position"}
    if config.xpos_center is None:
        out.add("row-independence")
    return frozenset(out)
