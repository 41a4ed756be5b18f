"""The rotary suite's check bodies (SPEC §8.8): the contract stage on its probe, the
golden rows inside the position domain (R8.18), and the diagnosis sentence for a backend that
raised (R8.19). :mod:`pespec.rope.suite` plans and runs them.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import BackendFailure, first_non_finite
from pespec.conformance.report import Report
from pespec.conformance.stage import ProbedContract
from pespec.numerics.formats import DTYPES, dtype_name
from pespec.rope import properties as props
from pespec.rope.config import RopeConfig
from pespec.rope.domain import PositionDomain
from pespec.rope.errormodel import RopeLevel, check_rope_claim, rope_level_for_dtype
from pespec.rope.inputs import SUITE_HALF, rotary_x

__all__ = [
    "CONTRACT",
    "RopeContract",
    "golden_outcome",
    "raised_sentence",
    "skipped_rows",
]

CONTRACT: Final = {
    "shape": "returns an array of shape (n, head_dim)",
    "dtype": "output dtype is float64, float32, float16 or bfloat16 and stays the same",
    "finite": "every value is finite",
    "deterministic": "two calls with the same input are bit-identical",
    "input-unchanged": "x and positions are not modified",
}


def raised_sentence(raised: list[tuple[str, str]], report: Report) -> str:
    """The diagnosis sentence when the backend raised: the first failing check and call
    (its positions), then the probes' finding unless it is "no bug found"."""
    check_id, message = raised[0]
    more = f" (and in {len(raised) - 1} more checks)" if len(raised) > 1 else ""
    text = f"check {check_id} failed because {message}{more}"
    found = report.diagnosis_sentence
    reach = (report.diagnosis or {}).get("max_position_within_1e-2")
    if found and "no bug found" not in found:
        text += f"; the diagnosis probes: {found}"
    elif reach is not None:
        text += (
            f"; where it returned values, the probes found the configured rotation "
            f"(within 1e-2 of exact up to position {reach})"
        )
    return text


class RopeContract(ProbedContract):
    """The engine's contract stage on the rotary probe of ``run`` (a
    :class:`~pespec.rope.suite.RopeRun`): positions 0, 1, 2, 3, 100, 4096, 65536 and the
    domain's largest, those admitted, with seeded inputs x; the evaluation fixes the run's
    output dtype and its level (the dtype's default, or the claim when it only tightens it)."""

    not_evaluated = "not evaluated: the backend produced no output"

    def __init__(self, run: Any) -> None:
        super().__init__(run, CONTRACT)

    def probes(self) -> list[tuple[NDArray[np.float64], NDArray[Any]]]:
        run = self.run
        positions = run.admitted(
            np.unique(np.array([0, 1, 2, 3, 100, 4096, 65536, run.max_position], dtype=np.int64))
        )
        return [
            (rotary_x(positions.shape[0], run.config.head_dim, seed=1, half=SUITE_HALF), positions)
        ]

    def arguments(self, probe: tuple[NDArray[Any], NDArray[Any]]) -> tuple[Any, ...]:
        return (*probe, self.run.config)

    def changed(self, probe: tuple[NDArray[Any], ...], given: tuple[Any, ...]) -> str | None:
        x, positions = probe
        if np.array_equal(given[0], x) and np.array_equal(given[1], positions):
            return None
        return "the backend modified x or positions"

    def output_problems(
        self, output: NDArray[Any], probe: tuple[NDArray[Any], ...]
    ) -> list[tuple[str, str]]:
        x, positions = probe
        found = []
        if output.shape != x.shape:
            found.append(("shape", f"output shape must be {x.shape}; got {output.shape}"))
        if dtype_name(output.dtype) is None:
            message = f"output dtype must be one of {sorted(DTYPES)}; got {output.dtype}"
            return [*found, ("dtype", message)]
        bad = first_non_finite(output) if output.ndim == 2 else None
        if bad is not None:
            found.append(
                (
                    "finite",
                    f"output must be finite; got {float(output[bad])!r} at "
                    f"position {positions[bad[0]].item()!r}, column {bad[1]}",
                )
            )
        return found

    def differ(self, probe: Any) -> str:
        return "two calls with the same input gave different outputs"

    def expected_dtype(self) -> str | None:
        return None  # the run fixes it from this stage's outputs (:meth:`finish`)

    def failed(self, failure: BackendFailure) -> None:
        if failure.kind == "raised":
            self.run.raised.append(("contract:shape", failure.message))

    def finish(self) -> None:
        """The run's output dtype, then its level: the claim, checked against that dtype's
        default (ValueError if looser), else the default."""
        run = self.run
        run.output_dtype = self.output_dtype
        if run.output_dtype is not None:
            default = rope_level_for_dtype(run.output_dtype)
            claim = run.requested_rope_level
            run.rope_level = default if claim is None else check_rope_claim(claim, run.output_dtype)
            run.guard.expected_dtype = run.output_dtype


def skipped_rows(fixture: Any, domain: PositionDomain) -> dict[str, Any]:
    """How many fixture rows lie outside the domain, and why (SPEC R8.18: skipped, counted,
    never failed)."""
    positions = np.asarray(fixture.positions, dtype=np.float64)
    outside = ~domain.admits(positions)
    fractional = int(np.sum(outside & (positions != np.round(positions))))
    beyond = int(
        np.sum(outside & (positions > domain.max_position) & (positions == np.round(positions)))
    )
    skipped = int(np.sum(outside))
    reasons = [f"{beyond} beyond position {domain.max_position}"] if beyond else []
    if fractional:
        reasons.append(f"{fractional} fractional")
    why = (
        (
            f"{skipped} of {positions.size} rows skipped, outside {domain.describe()} "
            f"({', '.join(reasons)}; declare max_position / fractional_positions to check "
            "them)"
        )
        if skipped
        else ""
    )
    return {
        "rows_checked": int(positions.size) - skipped,
        "rows_skipped": skipped,
        "rows_skipped_why": why,
    }


def golden_outcome(
    call: props.Call,
    fixture: Any,
    config: RopeConfig,
    level: RopeLevel,
    output_dtype: str,
    domain: PositionDomain,
) -> props.Outcome:
    """The fixture's rows inside the domain (integer positions as int64; fractional ones,
    when claimed, as float64) against its correctly rounded y values."""
    from pespec.rope.errormodel import tolerance

    positions = np.asarray(fixture.positions, dtype=np.float64)
    keep = domain.admits(positions)
    integer = keep & (positions == np.round(positions))
    outcome: props.Outcome | None = None
    groups: list[tuple[NDArray[np.bool_], Any]] = [
        (integer, np.int64),
        (keep & ~integer, np.float64),
    ]
    for mask, dtype in groups:
        if not mask.any():
            continue
        p = positions[mask].astype(dtype)
        x, exact = fixture.x[mask], fixture.y[mask]
        y = np.asarray(call(x, p), dtype=np.float64)
        bound = tolerance(x, p, config, level, output_dtype, 2.0**-53 * np.abs(exact))
        outcome = props.fold_outcome(outcome, np.abs(y - exact), bound, p)
    return props.finish_outcome(outcome or props.Outcome(-1.0, 0.0, 0.0, None, None, 0), "golden")
