"""The multi-axis rotary diagnosis (SPEC R9.13, R9.16): which neighbour the output is.

A neighbour is a (configuration, positions) pair whose exact reference the output is
compared with, every element within the level's bound plus the reference's proved error:
the configurations of :func:`pespec.multiaxis.rope.report.candidates` at the checked positions, then
the declared configuration at the positions rounded to bfloat16 or float16 (position ids
cast to a low precision: diffusers' bf16 positions under autocast, where neighbouring ids
collapse to one; the same for sectioned, interleaved and per-axis layouts, since the
rounding is of the ids, before any section reads them), then for Wan's split of the head the
table read with the other split (:mod:`pespec.multiaxis.rope.splits`: no configuration, compared
against its own exact value under the same bound).

The rows compared (:func:`diagnosis_rows`): up to 128 of the rows the declared reference
fails on and up to 128 evenly spaced over all checked rows, so a neighbour must explain the
failures and agree elsewhere (text ids, t = h = w, cannot tell axes apart on their own; small
ids are exact in bfloat16). No new backend call: the run's judged output is reused.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import BackendFailure
from pespec.conformance.report import Report
from pespec.multiaxis.rope.config import MultiAxisRopeConfig
from pespec.multiaxis.rope.measure import axis_facts
from pespec.multiaxis.rope.reference import apply, tolerance
from pespec.multiaxis.rope.splits import misread_apply, other_split
from pespec.numerics.formats import DTYPES
from pespec.rope.errormodel import RopeLevel

__all__ = ["LOW_PRECISION", "DiagnosisView", "diagnose", "diagnosis_rows", "low_precision"]

LOW_PRECISION = ("bfloat16", "float16")
HALF_ROWS = 128


class DiagnosisView(Protocol):
    """What the diagnosis reads of a run or a saved file."""

    config: MultiAxisRopeConfig
    positions: NDArray[Any]
    x: NDArray[np.float64]
    output_dtype: str | None

    def judged(
        self,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...

    def level_object(self) -> RopeLevel: ...


def diagnosis_rows(
    y: NDArray[np.float64], exact: NDArray[np.float64], bound: NDArray[np.float64]
) -> NDArray[np.intp]:
    """Indices of the rows compared: failing rows and rows over the whole range, sorted."""
    failing = np.flatnonzero(np.any(np.abs(y - exact) > bound, axis=1))
    n = y.shape[0]
    spread = np.linspace(0, n - 1, min(n, HALF_ROWS)).astype(np.intp)
    if failing.size:
        failing = failing[
            np.linspace(0, failing.size - 1, min(failing.size, HALF_ROWS)).astype(int)
        ]
    return np.unique(np.concatenate([failing, spread]).astype(np.intp))


def low_precision(positions: NDArray[Any]) -> dict[str, NDArray[np.float64]]:
    """The positions rounded to each of :data:`LOW_PRECISION` where that changes one."""
    found = {}
    exact = np.asarray(positions, dtype=np.float64)
    for dtype in LOW_PRECISION:
        low = exact.astype(DTYPES[dtype]).astype(np.float64)
        if not np.array_equal(low, exact):
            found[f"position ids rounded to {dtype} (positions in low precision)"] = low
    return found


def _matches(
    y: NDArray[np.float64],
    x: NDArray[np.float64],
    positions: NDArray[Any],
    config: MultiAxisRopeConfig,
    view: DiagnosisView,
    exact: NDArray[np.float64] | None = None,
) -> bool:
    """``y`` within the level's bound plus the reference's of ``exact`` (default: the
    exact reference of ``config`` at ``positions``)."""
    assert view.output_dtype is not None
    bound = tolerance(x, positions, config, view.level_object(), view.output_dtype)
    want = apply(x, positions, config) if exact is None else exact
    return bool(np.all(np.abs(y - want) <= bound))


def _name(report: Report, name: str) -> None:
    report.diagnosis = {"cause": name}
    report.diagnosis_sentence = f"the output is the declared encoding with {name}"


def _misread(
    y: NDArray[np.float64], x: NDArray[np.float64], p: NDArray[Any], view: DiagnosisView
) -> str | None:
    """The name of the other-split neighbour when the output is it
    (:mod:`pespec.multiaxis.rope.splits`)."""
    other = other_split(view.config)
    if other is None:
        return None
    exact = misread_apply(x, p, view.config, other[1])
    return other[0] if _matches(y, x, p, view.config, view, exact) else None


def _contract_only(report: Report) -> None:
    """The measured fact when only contract checks failed (NaN/inf, shape, a raise)."""
    failed = [c for c in report.checks if c.status == "failed"]
    if failed and not report.diagnosis_sentence:
        first = failed[0]
        report.diagnosis_sentence = (
            f"no neighbour compared: {first.id} failed ({first.message.split(';')[0]})"
        )


def diagnose(view: DiagnosisView, report: Report) -> None:
    """Name the first neighbour the output matches on :func:`diagnosis_rows`, if one does."""
    from pespec.multiaxis.rope.report import candidates

    if not any(c.status == "failed" and c.stage == "reference" for c in report.checks):
        _contract_only(report)
        return
    try:
        y_all, exact, bound = view.judged()
    except BackendFailure as failure:  # the backend failed the contract: nothing to compare
        report.diagnosis_sentence = (
            f"no neighbour compared: the output failed the contract ({failure})"
        )
        return
    rows = diagnosis_rows(y_all, exact, bound)
    y, x, p = y_all[rows], view.x[rows], view.positions[rows]
    neighbours = [(name, config, p) for name, config in candidates(view.config).items()]
    for name, config, positions in neighbours:
        if _matches(y, x, positions, config, view):
            return _name(report, name)
    misread = _misread(y, x, p, view)
    if misread is not None:
        return _name(report, misread)
    for name, low in low_precision(p).items():
        if _matches(y, x, low, view.config, view):
            return _name(report, name)
    facts = axis_facts(y_all, view.x, view.positions, view.config)
    if facts:
        report.diagnosis = {"cause": "measured per axis: " + "; ".join(facts)}
        report.diagnosis_sentence = (
            "no neighbouring configuration reproduces the output; measured per axis: "
            + "; ".join(facts)
        )
        return None
    report.diagnosis_sentence = (
        "no neighbouring configuration (axes mixed up, sections permuted or resized, "
        "sectioned vs interleaved, axes_dim permuted, pairs halves vs interleaved, the t/h/w "
        "split computed the other way, position ids in bfloat16 or float16) reproduces the output"
    )
