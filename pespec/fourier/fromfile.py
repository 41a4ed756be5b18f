"""``pespec check --family fourier --from-file OUT --config C``: a saved Fourier output.

For implementations that are not Python (SPEC §10.7): the file (``.npy``, ``.npz`` or
``.csv``; never pickle) holds one encoded row per input, (n, D). Its inputs x (n, k) are an
``.npz``'s ``positions`` array when it holds one, else the suite's inputs
(:func:`~pespec.fourier.inputs.suite_inputs` of the convention, n rows; ``python -m
pespec.fourier.fromfile CONFIG N OUT.csv`` writes them). The checks are those that need no
call: the one-array contract items (shape, dtype, finite), the golden set when the file holds
its inputs, every element against the oracle (the reference stage), and the properties (they
read only the output and x). A failure is diagnosed as a run's is (SPEC §10.9).

The level is the file's dtype (text: float64), or a claim at least as tight (a float64 or text
file may claim any level; a looser claim is a usage error).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.filecheck import saved_file_report, started_now
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.savedfile import read_output
from pespec.fourier.convention import FourierConvention
from pespec.fourier.errormodel import LEVELS
from pespec.fourier.inputs import suite_inputs
from pespec.fourier.oracle import oracle_encode
from pespec.fourier.presets import convention_from
from pespec.numerics.formats import dtype_name

__all__ = ["check_file", "write_inputs"]

SECTION = "§10.7"


def _level(claim: str | None, file_dtype: str | None, text: bool) -> str | None:
    """The level judged: the claim, else the file's dtype; a looser claim than a narrow
    file's dtype is refused (LEVELS runs from the tightest to the loosest)."""
    if claim is not None and claim not in LEVELS:
        raise ValueError(f"--level must be one of {', '.join(LEVELS)}; got {claim!r}")
    if file_dtype is None or file_dtype not in LEVELS:
        return claim
    if claim is None:
        return "float64" if text else file_dtype
    if not text and file_dtype != "float64" and LEVELS.index(claim) > LEVELS.index(file_dtype):
        raise ValueError(
            f"--level {claim} is looser than the file's dtype {file_dtype}: a {file_dtype} "
            f"file may claim {', '.join(LEVELS[: LEVELS.index(file_dtype) + 1])}"
        )
    return claim


def _inputs(name: str, stored: Any, rows: int, conv: FourierConvention) -> NDArray[np.float64]:
    if stored is None:
        return suite_inputs(conv, rows) if rows >= 3 else suite_inputs(conv, 3)[:rows]
    x = np.asarray(stored, dtype=np.float64).reshape(rows, -1)
    if x.shape[1] != conv.in_dims or not np.all(np.isfinite(x)):
        raise ValueError(
            f"{name!r}: its positions array must be (rows, {conv.in_dims}) finite inputs x; "
            f"got shape {np.asarray(stored).shape}"
        )
    return x


def _result(check_id: str, stage: str, status: str, message: str, **kw: Any) -> CheckResult:
    title = check_id.partition(":")[2]
    return CheckResult(check_id, stage, title, SECTION, status, message, **kw)


@dataclass
class _FileGuard:
    """What the diagnosis calls: the file's rows for the file's inputs."""

    out: NDArray[np.float64]

    def raw_call(self, x: Any, conv: Any) -> NDArray[np.float64]:
        return self.out


@dataclass
class _FileRun:
    x: NDArray[np.float64]
    conv: FourierConvention
    level: str | None
    guard: _FileGuard


def check_file(
    path: str | Path,
    config: Any,
    *,
    level: str | None = None,
    key: str | None = None,
) -> Report:
    """Check the Fourier output saved in ``path`` for ``config`` (a preset name, a dict, a
    FourierConvention or a JSON file). Raises ValueError for a file or level that does not fit.
    """
    from pespec.fourier.report import report_fields
    from pespec.fourier.run import compare

    started = started_now()
    conv = convention_from(config)
    name = str(path)
    text = not name.lower().endswith((".npy", ".npz"))
    narrow = None if level is None or not text else level
    saved = read_output(path, key=key, text_dtype=narrow)
    array = saved.array
    file_dtype = dtype_name(array.dtype)
    chosen = _level(level, file_dtype, text)
    checks: list[CheckResult] = []
    rows = array.shape[0] if array.ndim == 2 else 0
    shape_ok = array.ndim == 2 and array.shape[1] == conv.width and rows > 0
    checks.append(
        _result("contract:shape", "contract", "passed" if shape_ok else "failed",
                "ok" if shape_ok else f"shape {array.shape}, not (n, {conv.width})")
    )  # fmt: skip
    out = np.asarray(array, dtype=np.float64) if shape_ok and file_dtype else None
    finite = out is not None and bool(np.all(np.isfinite(out)))
    checks.append(
        _result("contract:dtype", "contract", "passed" if file_dtype in LEVELS else "failed",
                f"dtype {array.dtype}" if file_dtype in LEVELS else f"dtype {array.dtype} is "
                f"not one of {', '.join(LEVELS)}")
    )  # fmt: skip
    checks.append(
        _result("contract:finite", "contract", "passed" if finite else "failed",
                "ok" if finite else "not evaluated or a non-finite value")
    )  # fmt: skip
    run = None
    if out is not None and finite and chosen is not None and file_dtype in LEVELS:
        x = _inputs(name, saved.positions, rows, conv)
        run = _FileRun(x, conv, chosen, _FileGuard(out))
        checks += _comparisons(out, x, conv, chosen, compare)
    else:
        checks.append(
            _result("reference:file", "reference", "failed",
                    "not evaluated: the output failed the contract or has no level")
        )  # fmt: skip
    report = saved_file_report(name, checks, started, report_fields(conv, file_dtype, chosen))
    if run is not None and not report.conformant:
        from pespec.fourier.diagnosis import diagnose

        diagnose(run, report)
    return report


def _comparisons(
    out: NDArray[np.float64], x: NDArray[np.float64], conv: FourierConvention, level: str,
    compare: Any,
) -> list[CheckResult]:  # fmt: skip
    """The golden set (when the file holds its inputs), every element, the properties."""
    from pespec.fourier.errormodel import tolerance
    from pespec.fourier.golden import fixture_for
    from pespec.fourier.properties import applicable, evaluate

    results = []
    fixture = fixture_for(conv)
    if fixture is not None and x.shape[0] > int(np.max(fixture.rows)):
        rows = np.asarray(fixture.rows, dtype=np.intp)
        if np.array_equal(x[rows], fixture.x):
            results.append(_judged(f"golden:{fixture.name}", "golden", out[rows], fixture.x,
                                   fixture.values, conv, level, compare, tolerance))  # fmt: skip
    want = oracle_encode(x, conv)
    results.append(
        _judged("reference:file", "reference", out, x, want, conv, level, compare, tolerance)
    )
    for prop in applicable(conv):
        holds, residual, bound, where = evaluate(prop, out, x, conv, level)
        status = "passed" if holds else "failed"
        message = f"holds (worst residual {residual:.3g})" if holds else (
            f"fails: residual {residual:.3g} > {bound:.3g}")  # fmt: skip
        extra = {} if where is None else {"worst_position": where[0]}
        results.append(_result(f"property:{prop}", "property", status, message,
                               max_error=residual, bound=bound, **extra))  # fmt: skip
    return results


def _judged(
    check_id: str, stage: str, out: Any, x: Any, want: Any, conv: FourierConvention,
    level: str, compare: Any, tolerance: Any,
) -> CheckResult:  # fmt: skip
    fields = compare(out, want, tolerance(x, conv, level, want))
    bad = fields["details"]["violations"]
    if bad:
        message = f"{bad} of {out.size} elements beyond the error bound"
        return _result(check_id, stage, "failed", message, **fields)
    return _result(check_id, stage, "passed", f"all {out.size} elements within the bound", **fields)


def write_inputs(config: Any, rows: int, path: str | Path) -> NDArray[np.float64]:
    """Write the suite's ``rows`` inputs of ``config`` to ``path`` (CSV, header x0,x1,...,
    shortest round-trip decimals): what a file for :func:`check_file` is computed at."""
    from pespec.conformance.csvexport import write_csv

    conv = convention_from(config)
    x = suite_inputs(conv, rows)
    write_csv(path, [f"x{i}" for i in range(conv.in_dims)], x.astype(np.float64).tolist())
    return x


if __name__ == "__main__":  # python -m pespec.fourier.fromfile CONFIG ROWS OUT.csv
    if len(sys.argv) != 4:
        print("usage: python -m pespec.fourier.fromfile CONFIG ROWS OUT.csv", file=sys.stderr)
        raise SystemExit(2)
    write_inputs(sys.argv[1], int(sys.argv[2]), sys.argv[3])
