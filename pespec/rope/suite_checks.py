"""The rotary suite's check bodies (SPEC §8.8): the contract items and their results, the
golden rows inside the position domain (R8.18), and the diagnosis sentence for a backend that
raised (R8.19). :mod:`pespec.rope.suite` plans and runs them.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import first_non_finite
from pespec.conformance.report import Report
from pespec.numerics.formats import DTYPES, dtype_name
from pespec.rope import properties as props
from pespec.rope.config import RopeConfig
from pespec.rope.domain import PositionDomain
from pespec.rope.errormodel import RopeLevel

__all__ = [
    "CONTRACT",
    "contract_results",
    "golden_outcome",
    "raised_sentence",
    "record_output_problems",
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


def record_output_problems(
    out: NDArray[Any],
    shape: tuple[int, ...],
    probes: NDArray[Any],
    problems: dict[str, list[str]],
    dtypes: set[str],
) -> None:
    """Add what is wrong with one contract call's output (shape, dtype, finiteness) to
    ``problems`` (by item), and its dtype name to ``dtypes``."""
    if out.shape != shape:
        problems["shape"].append(f"output shape must be {shape}; got {out.shape}")
    name = dtype_name(out.dtype)
    if name is None:
        problems["dtype"].append(f"output dtype must be one of {sorted(DTYPES)}; got {out.dtype}")
        return
    dtypes.add(name)
    bad = first_non_finite(out) if out.ndim == 2 else None
    if bad is not None:
        problems["finite"].append(
            f"output must be finite; got {float(out[bad])!r} at "
            f"position {probes[bad[0]].item()!r}, column {bad[1]}"
        )


def contract_results(
    problems: dict[str, list[str]], *, called: bool
) -> dict[str, tuple[bool, str]]:
    """{item: (passed, message)}: the item's distinct problems, else its rule; without any
    output (``called`` false) every item but shape fails as not evaluated."""
    results: dict[str, tuple[bool, str]] = {}
    for item, rule in CONTRACT.items():
        found = list(dict.fromkeys(problems[item]))
        if found:
            results[item] = (False, "; ".join(found))
        elif item != "shape" and not called:
            results[item] = (False, "not evaluated: the backend produced no output")
        else:
            results[item] = (True, rule)
    return results


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
