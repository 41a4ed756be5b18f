"""Checking a saved output: for implementations that are not Python (SPEC §9.5).

``pespec check --from-file out.npy --d-model D --positions 0:4096`` loads the array
(``.npy`` memory-mapped, ``.npz``, or ``.csv``; never with pickle) and runs the checks that
need no calls: the contract items that apply to a single output (shape, dtype, finite), the
comparison of every value with the exact reference (the primary verdict, in row blocks), and
the golden fixtures whose d_model, base and positions the file covers. Properties need calls
at positions the suite chooses, so they are reported as skipped.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.contract import BackendFailure, validate_output
from pespec.conformance.report import CheckResult, Report
from pespec.properties.base import DTYPES, Level, level_for_dtype, parse_level
from pespec.reference.validation import check_base, check_d_model, check_positions

__all__ = ["check_output", "load_output", "parse_positions"]


def load_output(
    path: str | Path, *, key: str | None = None, text_dtype: str | None = None
) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """(array, positions or None) from ``.npy`` (memory-mapped), ``.npz`` or ``.csv``.

    An ``.npz`` may hold the output under ``key`` (default: its only array other than
    ``positions``, or ``encoding``) and the positions under ``positions``. No pickle.
    Text carries no dtype: a ``.csv`` is read as float64 and, when ``text_dtype`` (the
    claimed level's output dtype) is given, rounded to it, as ``strtof`` would read it; a
    first line that is not numbers is a header and skipped. NumPy stores an
    ``ml_dtypes.bfloat16`` array as 2-byte void (``|V2``); such an array is read as bfloat16.
    """
    file = Path(path)
    if not file.is_file():
        raise ValueError(
            f"from_file must be an existing .npy, .npz or .csv file; got {str(file)!r}"
        )
    suffix = file.suffix.lower()
    try:
        if suffix in (".npy", ".npz"):
            array, positions = _load_binary(file, suffix, key)
            return _bfloat16_from_void(array), positions
        if suffix in (".csv", ".txt"):
            text = _load_csv(file)
            return (text if text_dtype is None else text.astype(DTYPES[text_dtype])), None
    except (ValueError, OSError) as exc:
        if str(file) in str(exc):
            raise
        raise ValueError(f"from_file {str(file)!r} cannot be read: {exc}") from None
    raise ValueError(f"from_file must end in .npy, .npz or .csv; got {str(file)!r}")


def _bfloat16_from_void(array: NDArray[Any]) -> NDArray[Any]:
    """A 2-byte void array (how ``np.save`` records ml_dtypes.bfloat16) viewed as bfloat16."""
    if array.dtype.kind == "V" and array.dtype.itemsize == 2 and array.dtype.fields is None:
        return array.view(DTYPES["bfloat16"])
    return array


def _load_csv(file: Path) -> NDArray[np.float64]:
    """Comma-separated rows as float64; a first line that is not numbers (a header) is skipped."""
    with file.open(encoding="utf-8") as handle:
        first = handle.readline()
    try:
        [float(cell) for cell in first.split(",") if cell.strip()]
        header = 0
    except ValueError:
        header = 1
    return np.loadtxt(file, delimiter=",", dtype=np.float64, ndmin=2, skiprows=header)


def _load_binary(
    file: Path, suffix: str, key: str | None
) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """``.npy`` (memory-mapped) or ``.npz`` (output under ``key``, positions), never pickle."""
    if suffix == ".npy":
        return np.load(file, mmap_mode="r", allow_pickle=False), None
    if suffix == ".npz":
        with np.load(file, allow_pickle=False) as archive:
            names = [n for n in archive.files if n != "positions"]
            if key is None:
                if len(names) == 1:
                    key = names[0]
                elif "encoding" in names:
                    key = "encoding"
                else:
                    raise ValueError(
                        f"key must name the output array in {str(file)!r}; it holds {names}"
                    )
            if key not in archive.files:
                raise ValueError(f"key must be one of {names} in {str(file)!r}; got {key!r}")
            positions = archive["positions"] if "positions" in archive.files else None
            return archive[key], positions
    raise ValueError(f"from_file must end in .npy or .npz; got {str(file)!r}")


def parse_positions(text: str) -> NDArray[Any]:
    """Positions from ``START:STOP`` (integers START..STOP−1), ``a,b,c`` or a .npy/.csv file."""
    value = text.strip()
    if Path(value).is_file():
        file = Path(value)
        if file.suffix.lower() == ".npy":
            loaded = np.load(file, allow_pickle=False)
        else:  # one position per line or comma-separated; a header line is skipped
            loaded = _load_csv(file)
            if np.all(loaded == np.round(loaded)):
                loaded = loaded.astype(np.int64)
        return check_positions(np.ravel(loaded))
    if ":" in value:
        start, _, stop = value.partition(":")
        try:
            first, last = int(start), int(stop)
        except ValueError:
            raise ValueError(
                f"positions must be START:STOP with integers, a,b,c or a file; got {text!r}"
            ) from None
        return np.arange(first, last, dtype=np.int64)
    try:
        items = [float(v) if any(c in v for c in ".eE") else int(v) for v in value.split(",")]
    except ValueError:
        raise ValueError(
            f"positions must be START:STOP with integers, a,b,c or a file; got {text!r}"
        ) from None
    return check_positions(items)


def _result(
    check_id: str, stage: str, title: str, status: str, message: str, **kw: Any
) -> CheckResult:
    from pespec.conformance.runner import SECTIONS

    return CheckResult(check_id, stage, title, SECTIONS[stage], status, message, **kw)


def check_output(
    output: NDArray[Any],
    positions: Any,
    d_model: int,
    base: float = 10000.0,
    *,
    level: str | Level | None = None,
    name: str = "from-file",
) -> Report:
    """Check an already computed (n, d_model) output for ``positions`` against the spec.

    ``level`` defaults to the default level of the array's dtype. Returns the same
    :class:`Report` as :func:`pespec.conformance.check`.
    """
    from pespec.conformance.runner import compare_blocks

    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    clock = time.perf_counter()
    d = check_d_model(d_model)
    b = check_base(base)
    p = check_positions(positions).reshape(-1)
    if isinstance(level, str):
        level = parse_level(level)
    array = output
    checks: list[CheckResult] = []
    chosen: Level | None = level
    dtype_ok = any(array.dtype == known for known in DTYPES.values())
    if chosen is None and dtype_ok:
        chosen = level_for_dtype(array.dtype)
    shape_ok = True
    try:
        validate_output(
            array, p, d, b, expected_dtype=None if chosen is None else chosen.output_dtype
        )
        messages = {"shape": "ok", "dtype": "ok", "finite": "ok"}
        failed_kind = None
    except BackendFailure as failure:
        failed_kind = failure.kind
        messages = {"shape": "ok", "dtype": "ok", "finite": "ok", failure.kind: failure.message}
        shape_ok = failure.kind != "shape"
    order = ["shape", "dtype", "finite"]
    for item in order:
        if failed_kind is not None and order.index(item) > order.index(failed_kind):
            checks.append(
                _result(
                    f"contract:{item}",
                    "contract",
                    item,
                    "failed",
                    f"not evaluated: contract:{failed_kind} failed",
                )
            )
            continue
        status = "failed" if item == failed_kind else "passed"
        checks.append(_result(f"contract:{item}", "contract", item, status, messages[item]))
    for item in ("deterministic", "input-unchanged"):
        checks.append(
            _result(f"contract:{item}", "contract", item, "skipped", "needs calls; not from a file")
        )
    if chosen is not None and shape_ok and dtype_ok:
        worst = compare_blocks(array, p, d, b, chosen)
        checks.append(
            _comparison(
                worst,
                chosen,
                "reference:file",
                "reference",
                f"all {p.size} rows against the exact reference",
            )
        )
        checks += _golden_from_table(array, p, d, b, chosen)
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
    return Report(
        backend=name,
        backend_spec=None,
        device="file",
        capabilities={},
        output_dtype=None if chosen is None else chosen.output_dtype,
        level=None if chosen is None else chosen.name,
        working_dtype=None if chosen is None else chosen.working_dtype,
        profile="file",
        checks=checks,
        timestamp=started,
        duration_s=time.perf_counter() - clock,
    )


def _comparison(worst: Any, level: Level, check_id: str, stage: str, title: str) -> CheckResult:
    from pespec.conformance.runner import SECTIONS, PlannedCheck, comparison_result

    return comparison_result(PlannedCheck(check_id, stage, title, SECTIONS[stage]), worst, level)


def _golden_from_table(
    array: NDArray[Any], positions: NDArray[Any], d_model: int, base: float, level: Level
) -> list[CheckResult]:
    """Golden fixtures with this d_model and base, on the rows the file holds."""
    from pespec.conformance.runner import _is_canonical, compare_fixture
    from pespec.reference.golden import load_fixture_sets

    index = {float(p): i for i, p in enumerate(positions.tolist())}
    results = []
    for fixture in load_fixture_sets():
        if int(fixture.d_model) != d_model or float(fixture.base) != base:
            continue
        if not _is_canonical(fixture):
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
