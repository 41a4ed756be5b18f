"""``pespec check --from-file``: a saved output file checked as the user meant it (SPEC §6.5).

:func:`check_file` reads the file (:mod:`pespec.conformance._readers`), checks that it fits
the command (a 2-D array with ``d_model`` columns and one position per row: else a
ValueError naming the option, the file and what is wrong, which the CLI reports as a usage
error, exit 2), runs :func:`pespec.conformance.fromfile.compare_saved_output`, and records the
file's identity (path, SHA-256, size, positions) in the report. Failures of a text file
say which dtype it was read as and when the errors look like decimal truncation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pespec.conformance.fromfile import compare_saved_output, parse_positions, read_output
from pespec.conformance.report import CheckResult, Report
from pespec.properties.base import parse_level
from pespec.reference.validation import check_d_model

__all__ = ["check_file"]


def check_file(
    path: str | Path,
    d_model: int,
    *,
    positions: str | None = None,
    base: float = 10000.0,
    level: str | None = None,
    key: str | None = None,
) -> Report:
    """Check the output saved in ``path`` (.npy, .npz or .csv) for ``d_model``.

    ``positions``: ``START:STOP``, ``a,b,c`` or a file (default: the positions stored in
    the file, else one per row from 0). Raises ValueError for a file or an option that does
    not fit (see the module docstring); returns the report otherwise.
    """
    d = check_d_model(d_model, "--d-model")
    name = str(path)
    text_dtype = None if level is None else parse_level(level).output_dtype
    saved = read_output(path, key=key, text_dtype=text_dtype)
    output = saved.array
    if output.ndim != 2:
        raise ValueError(
            f"from_file {name!r} must hold a 2-D array (one row per position, d_model "
            f"columns); it holds shape {output.shape}"
        )
    if output.shape[1] != d:
        raise ValueError(
            f"--d-model {d} does not match {name!r}, which has {output.shape[1]} "
            f"column{'s' if output.shape[1] != 1 else ''}" + _columns_hint(output.shape, d)
        )
    chosen, given = _positions(positions, saved.positions, output.shape[0])
    if chosen.shape[0] != output.shape[0]:
        source = f"--positions {given}" if positions is not None else "the file's positions"
        raise ValueError(
            f"{source} give {chosen.shape[0]} positions but {name!r} has {output.shape[0]} "
            "rows; give one position per row"
        )
    report = compare_saved_output(output, chosen, d, base, level=level, name=name)
    report.source_file = {
        "path": name,
        "sha256": saved.sha256,
        "bytes": saved.size,
        "positions": {
            "given": given,
            "count": int(chosen.shape[0]),
            "first": chosen[0].item() if chosen.size else None,
            "last": chosen[-1].item() if chosen.size else None,
        },
    }
    text = not name.lower().endswith((".npy", ".npz"))
    for result in report.failed:
        if result.stage not in ("reference", "golden"):
            continue
        if level is None and text:  # text records no dtype: say which one was assumed
            result.message += (
                "; the text file was read as float64 (it records no dtype): give --level "
                "float32, float16 or bfloat16 for an output computed in that dtype"
            )
        result.message += _truncation_note(saved.decimals, result)
    return report


def _positions(text: str | None, stored: Any, rows: int) -> tuple[Any, str]:
    """(positions, how they were given): the option, else the file's, else 0 … rows − 1."""
    if text is not None:
        return parse_positions(text), text
    if stored is not None:
        return np.ravel(stored), "stored in the file"
    return np.arange(rows, dtype=np.int64), f"0:{rows} (default: one per row)"


def _columns_hint(shape: tuple[int, ...], d_model: int) -> str:
    """Why a file's column count may differ from --d-model: a position column, a transpose."""
    if shape[1] == d_model + 1:
        return " (is the first column the positions? start the header line with 'position')"
    if shape[0] == d_model:
        return f" and {shape[0]} rows (transposed? rows must be positions)"
    return ""


def _truncation_note(decimals: int | None, result: CheckResult) -> str:
    """A note when the errors are what printing with too few decimals gives (C's %f prints
    6): every error within one unit of the last printed decimal."""
    if decimals is None:
        return ""
    largest = result.details.get("max_abs_error")
    if not isinstance(largest, float) or not largest <= 10.0**-decimals:
        return ""
    return (
        f"; the values carry at most {decimals} decimals and every error is within "
        f"{10.0**-decimals:g}: this looks like decimal truncation (C's %f prints 6 decimals); "
        "print with %.17g for float64 or %.9g for float32"
    )
