"""Checking a saved output: for implementations that are not Python (SPEC §6.5).

``pespec check --from-file out.npy [--d-model D] --positions 0:4096`` loads the array
(``.npy`` memory-mapped, ``.npz``, or ``.csv``; never with pickle) and runs the checks that
need no calls: the contract items that apply to a single output (shape, dtype, finite), the
comparison of every value with the exact reference (the primary verdict, in row blocks), and
the golden fixtures whose d_model, base and positions the file covers. Properties need calls
at positions the suite chooses, so they are reported as skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import (
    SECTIONS,
    PlannedCheck,
    Worst,
    comparison_result,
)
from pespec.conformance.contract import BackendFailure
from pespec.conformance.filecheck import saved_file_report, started_now
from pespec.conformance.filerules import claimed_file_level
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.savedfile import (
    SavedOutput,
    load_output,
    read_npy,
    read_output,
    read_text_table,
)
from pespec.numerics.formats import dtype_name
from pespec.numerics.validation import check_positions
from pespec.sinusoidal.call import validate_output
from pespec.sinusoidal.compare import compare_blocks, compare_fixture
from pespec.sinusoidal.golden import is_canonical_fixture, load_fixture_sets
from pespec.sinusoidal.properties.base import LEVELS, Level, parse_level
from pespec.sinusoidal.reference.validation import check_base, check_d_model
from pespec.sinusoidal.report import level_fields, report_fields

__all__ = ["SavedOutput", "compare_saved_output", "load_output", "parse_positions", "read_output"]


def parse_positions(text: str) -> NDArray[Any]:
    """Positions from ``START:STOP`` (integers START..STOP−1), ``a,b,c`` or a .npy/.csv file."""
    value = text.strip()
    if value.lower().endswith((".npy", ".csv", ".txt")) and not Path(value).is_file():
        raise ValueError(f"positions file {value!r} does not exist")
    if Path(value).is_file():
        file = Path(value)
        if file.suffix.lower() == ".npy":
            loaded: NDArray[Any] = np.asarray(read_npy(file))
        else:  # one position per line or comma-separated; a header line is skipped
            loaded = read_text_table(file).values
            if np.all(loaded == np.round(loaded)):
                loaded = loaded.astype(np.int64)
        return check_positions(np.ravel(loaded))
    usage = f"positions must be START:STOP with integers, a,b,c or a file; got {text!r}"
    if ":" in value:
        start, _, stop = value.partition(":")
        try:
            first, last = int(start), int(stop)
        except ValueError:
            raise ValueError(usage) from None
        if last <= first:
            raise ValueError(
                f"positions START:STOP must have START < STOP (STOP excluded); got {text!r}"
            )
        return np.arange(first, last, dtype=np.int64)
    try:
        items = [float(v) if any(c in v for c in ".eEn") else int(v) for v in value.split(",")]
    except ValueError:
        raise ValueError(usage) from None
    return check_positions(items)


def _result(
    check_id: str, stage: str, title: str, status: str, message: str, **kw: Any
) -> CheckResult:
    return CheckResult(check_id, stage, title, SECTIONS[stage], status, message, **kw)


def compare_saved_output(
    output: NDArray[Any],
    positions: Any,
    d_model: int,
    base: float = 10000.0,
    *,
    level: str | Level | None = None,
    name: str = "from-file",
) -> Report:
    """Compare an already computed (n, d_model) output for ``positions`` with the spec.

    ``level`` defaults to the default level of the array's dtype; a claim follows
    :func:`~pespec.conformance.filerules.claimed_file_level` (a float64 array may claim any
    level, another dtype only a tighter one: else ValueError). Returns the same
    :class:`Report` as :func:`pespec.conformance.check`.
    """
    started = started_now()
    d = check_d_model(d_model)
    b = check_base(base)
    p = check_positions(positions).reshape(-1)
    claim = parse_level(level) if isinstance(level, str) else level
    file_dtype = dtype_name(output.dtype)
    dtype_ok = file_dtype is not None
    chosen = claimed_file_level(claim, file_dtype, text=False, default_for=LEVELS.__getitem__)
    checks, shape_ok = _contract_results(output, p, d, b)
    if chosen is not None and shape_ok and dtype_ok:
        worst = compare_blocks(output, p, d, b, chosen)
        title = f"all {p.size} rows against the exact reference"
        checks.append(_comparison(worst, chosen, "reference:file", "reference", title))
        checks += _golden_from_table(output, p, d, b, chosen)
    else:
        checks.append(
            _result(
                "reference:file",
                "reference",
                "comparison",
                "failed",
                "not evaluated: the output failed the contract or has no level",
            )
        )
    checks.append(
        _result(
            "property:*",
            "property",
            "properties",
            "skipped",
            "properties need calls at positions the suite chooses; not from a file",
        )
    )
    return saved_file_report(name, checks, started, {**level_fields(chosen), **report_fields()})


def _contract_results(
    array: NDArray[Any], p: NDArray[Any], d: int, b: float
) -> tuple[list[CheckResult], bool]:
    """The one-array contract items (shape, dtype, finite; the rest need calls), and
    whether the shape was right. An item after the first failed one is not evaluated. The
    dtype must be one pespec knows; how it relates to the level is the claim rule's
    (:func:`~pespec.conformance.filerules.claimed_file_level`)."""
    order = ["shape", "dtype", "finite"]
    messages = dict.fromkeys(order, "ok")
    failed_kind = None
    try:
        validate_output(array, p, d, b)
    except BackendFailure as failure:
        failed_kind = failure.kind
        messages[failure.kind] = failure.message
    checks: list[CheckResult] = []
    for item in order:
        if failed_kind is not None and order.index(item) > order.index(failed_kind):
            status, message = "failed", f"not evaluated: contract:{failed_kind} failed"
        else:
            status, message = ("failed" if item == failed_kind else "passed"), messages[item]
        checks.append(_result(f"contract:{item}", "contract", item, status, message))
    for item in ("deterministic", "input-unchanged"):
        checks.append(
            _result(f"contract:{item}", "contract", item, "skipped", "needs calls; not from a file")
        )
    return checks, failed_kind != "shape"


def _comparison(worst: Worst, level: Level, check_id: str, stage: str, title: str) -> CheckResult:
    return comparison_result(PlannedCheck(check_id, stage, title, SECTIONS[stage]), worst, level)


def _golden_from_table(
    array: NDArray[Any], positions: NDArray[Any], d_model: int, base: float, level: Level
) -> list[CheckResult]:
    """Golden fixtures with this d_model and base, on the rows the file holds."""
    index = {float(p): i for i, p in enumerate(positions.tolist())}
    results = []
    for fixture in load_fixture_sets():
        if int(fixture.d_model) != d_model or float(fixture.base) != base:
            continue
        if not is_canonical_fixture(fixture):
            continue
        fixture_positions = np.asarray(fixture.positions)
        wanted = [
            (r, index[float(p)])
            for r, p in enumerate(fixture_positions.tolist())
            if float(p) in index
        ]
        if not wanted:
            continue
        rows = np.array([w[0] for w in wanted], dtype=np.intp)
        file_rows = np.array([w[1] for w in wanted], dtype=np.intp)
        worst = compare_fixture(
            np.asarray(array[file_rows]), fixture, rows, fixture_positions[rows], level
        )
        results.append(
            _comparison(worst, level, f"golden:{fixture.name}", "golden", fixture.description)
        )
    return results
