"""The multi-axis rotary checks (SPEC §9.7): each section against the 1-D rotary reference,
separability across axes, and per-axis relative position of scores.

No tolerance of its own: an element's bound b is the 1-D level bound (SPEC §8.7) plus the
reference's proved error (Annex C.6), of the section that writes it. ``separability``
allows b + b' (both outputs within their bound of one exact value). ``relative`` compares
q·k of rows at (m, n) and at (m + s·e_a, n + s·e_a): both scores are within
Σ_c (|q̂_c|·b^k_c + |k̂_c|·b^q_c + b^q_c·b^k_c) + γ_D·Σ_c |q̂_c||k̂_c| of the same exact
score (the rotation's per-axis relative property), so their difference within the sum.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.conformance.report import CheckResult
from pespec.conformance.stage import contract_plan
from pespec.multiaxis.combinator import separability_result
from pespec.multiaxis.rope.config import MultiAxisRopeConfig
from pespec.multiaxis.rope.presets import Preset
from pespec.multiaxis.rope.reference import level_bound, tolerance
from pespec.rope.errormodel import RopeLevel

__all__ = ["RELATIVE_PAIRS", "RELATIVE_SHIFT", "RunView", "dispatch", "plan"]

RELATIVE_PAIRS = 512
"""(q, k) row pairs the relative stage scores per axis."""
RELATIVE_SHIFT = 7
"""The shift s applied to one axis of both rows."""
_U64 = 2.0**-53


class RunView(Protocol):
    """What the stages use of a run (:class:`pespec.multiaxis.rope.run.MRopeRun`)."""

    config: MultiAxisRopeConfig
    preset: Preset
    positions: NDArray[Any]
    x: NDArray[np.float64]
    stages: tuple[str, ...]
    output_dtype: str | None

    def output(self, x: NDArray[Any], positions: NDArray[Any]) -> NDArray[np.float64]: ...

    def output_all(self, x: NDArray[Any], positions: NDArray[Any]) -> NDArray[np.float64]: ...

    def judged(
        self,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...

    def level_object(self) -> RopeLevel: ...


def plan(run: RunView) -> list[PlannedCheck]:
    """Every check of the selected stages, with stable ids naming sections and axes."""
    config, planned = run.config, []
    if "contract" in run.stages:
        planned += contract_plan("§9.7", {"shape": "returns an array of shape (n, head_dim)"})
    if "golden" in run.stages:
        from pespec.multiaxis.rope.golden_stage import golden_planned

        planned += golden_planned(run)
    if "reference" in run.stages:
        planned += [
            PlannedCheck(f"reference:section-{i}", "reference", config.describe(i), "§9.7", i)
            for i in range(len(config.sections))
        ]
    for stage, title in (
        ("separability", "moving axis {a} leaves the other axes' columns"),
        ("relative", "q·k scores unchanged when axis {a} of both rows moves"),
    ):
        if stage in run.stages:
            planned += [
                PlannedCheck(f"{stage}:axis-{a}", stage, title.format(a=a), "§9.7", a)
                for a in range(config.axes)
            ]
    return planned


def dispatch(run: RunView, planned: PlannedCheck) -> CheckResult:
    """Run one planned check (BackendFailure propagates: the engine fails the check)."""
    if planned.stage == "golden":
        from pespec.multiaxis.rope.golden_stage import golden_check

        return golden_check(run, planned)
    if planned.stage == "reference":
        return _section(run, planned, int(planned.payload))
    if planned.stage == "separability":
        compare = partial(_separability, run, planned)
        return separability_result(planned, run.config.sections, run.positions, compare)
    return _relative(run, planned, int(planned.payload))


def _worst(error: NDArray[np.float64], bound: NDArray[np.float64]) -> tuple[float, int, int]:
    ratio = np.where(
        bound > 0, error / np.where(bound > 0, bound, 1.0), np.where(error > 0, np.inf, 0.0)
    )
    r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    return float(ratio[r, c]), int(r), int(c)


def _section(run: RunView, planned: PlannedCheck, index: int) -> CheckResult:
    y, exact, bound = run.judged()
    columns = run.config.section_columns(index)
    error = np.abs(y[:, columns] - exact[:, columns])
    ratio, r, c = _worst(error, bound[:, columns])
    fields: dict[str, Any] = {
        "max_error": float(error[r, c]),
        "bound": float(bound[r, columns[c]]),
        "worst_column": int(columns[c]),
        "details": {
            "section": index,
            "ratio": ratio,
            "position": run.positions[r].tolist(),
            "rows": int(y.shape[0]),
            "violations": int(np.count_nonzero(error > bound[:, columns])),
        },
    }
    where = f"position {run.positions[r].tolist()}, column {int(columns[c])}"
    if ratio > 1.0:
        return planned.result("failed", f"error {ratio:.3g}× the bound at {where}", **fields)
    return planned.result("passed", f"worst error {ratio:.3g}× the bound ({where})", **fields)


def _separability(
    run: RunView, planned: PlannedCheck, others: list[int], moved: NDArray[Any]
) -> CheckResult:
    """The sections ``others`` (not reading the moved axis) unchanged at ``moved``."""
    config, axis = run.config, int(planned.payload)
    y, _, bound = run.judged()
    y_moved = run.output_all(run.x, moved)
    assert run.output_dtype is not None
    bound_moved = level_bound(run.x, moved, config, run.level_object(), run.output_dtype)
    columns = np.concatenate([config.section_columns(i) for i in others])
    change = np.abs(y_moved[:, columns] - y[:, columns])
    ratio, r, c = _worst(change, bound[:, columns] + bound_moved[:, columns])
    fields = {
        "worst_column": int(columns[c]),
        "details": {"ratio": ratio, "position": run.positions[r].tolist()},
    }
    if ratio > 1.0:
        message = (
            f"moving axis {axis} changed column {int(columns[c])} (not fed by axis {axis}) by "
            f"{ratio:.3g}× its bound: it depends on axis {axis}"
        )
        return planned.result("failed", message, **fields)
    return planned.result(
        "passed", f"other axes' columns within b + b' (worst {ratio:.3g})", **fields
    )


def _score_bound(
    yq: NDArray[np.float64],
    yk: NDArray[np.float64],
    bq: NDArray[np.float64],
    bk: NDArray[np.float64],
) -> NDArray[np.float64]:
    d = yq.shape[1]
    gamma = d * _U64 / (1 - d * _U64)
    mass = np.sum(np.abs(yq) * np.abs(yk), axis=1)
    propagated = np.sum(np.abs(yq) * bk + np.abs(yk) * bq + bq * bk, axis=1)
    out: NDArray[np.float64] = (propagated + gamma * mass) * (1 + 4 * _U64)
    return out


def _relative(run: RunView, planned: PlannedCheck, axis: int) -> CheckResult:
    n = run.positions.shape[0]
    rng = np.random.default_rng(axis)
    count = min(RELATIVE_PAIRS, n)
    qi, ki = rng.integers(0, n, size=count), rng.integers(0, n, size=count)
    q, k = run.x[qi], run.x[(ki + 1) % n]
    scores, bounds = [], []
    for shift in (0, RELATIVE_SHIFT):
        pq, pk = run.positions[qi].copy(), run.positions[ki].copy()
        pq[:, axis] += shift
        pk[:, axis] += shift
        yq, yk = run.output(q, pq), run.output(k, pk)
        assert run.output_dtype is not None
        level = run.level_object()
        bq = tolerance(q, pq, run.config, level, run.output_dtype)
        bk = tolerance(k, pk, run.config, level, run.output_dtype)
        scores.append(np.sum(yq * yk, axis=1))
        bounds.append(_score_bound(yq, yk, bq, bk))
    change = np.abs(scores[1] - scores[0])
    allowed = bounds[0] + bounds[1]
    ratio = float(np.max(change / allowed))
    worst = int(np.argmax(change / allowed))
    fields = {
        "max_error": float(change[worst]),
        "bound": float(allowed[worst]),
        "details": {
            "ratio": ratio,
            "q_position": run.positions[qi[worst]].tolist(),
            "pairs": count,
        },
    }
    if ratio > 1.0:
        message = (
            f"shifting axis {axis} of q and k by {RELATIVE_SHIFT} changed q·k by {ratio:.3g}× "
            "its bound: the score is not a function of the per-axis differences"
        )
        return planned.result("failed", message, **fields)
    return planned.result("passed", f"scores within their bound (worst {ratio:.3g})", **fields)
