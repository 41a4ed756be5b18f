"""``pespec check --from-file``: a saved output file checked as the user meant it (SPEC §6.5).

:func:`check_file` reads the file (:mod:`pespec.conformance._readers`), checks that it fits
the command (a 2-D array, ``d_model`` columns when given, else d_model is the column count,
and one position per row: else a ValueError naming the option, the file and what is wrong,
which the CLI reports as a usage error, exit 2), runs
:func:`pespec.sinusoidal.fromfile.compare_saved_output`, and records the file's identity
and coverage (:func:`pespec.conformance.filerules.file_record`) in the report. Failures of a
text file say which dtype it was read as and when the errors look like decimal truncation
(:func:`pespec.conformance.filerules.truncation_note`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np

from pespec.conformance.filerules import file_record, truncation_note
from pespec.conformance.report import Report
from pespec.sinusoidal.compare import compare_blocks
from pespec.sinusoidal.filediagnosis import file_diagnosis
from pespec.sinusoidal.fromfile import compare_saved_output, parse_positions, read_output
from pespec.sinusoidal.properties.base import parse_level
from pespec.sinusoidal.reference.validation import check_d_model

__all__ = ["check_file"]

SMALL_SAMPLE_POSITIONS: Final = 128
"""A file of fewer positions is called a small sample in its verdict line: 128 is the length
of the d64-L128 golden set (positions 0 … 127), the shortest run of consecutive positions the
suite checks. (A rotary file's threshold is its configuration's inputs, §8.6.)"""


def check_file(
    path: str | Path,
    d_model: int | None = None,
    *,
    positions: str | None = None,
    base: float = 10000.0,
    level: str | None = None,
    key: str | None = None,
) -> Report:
    """Check the output saved in ``path`` (.npy, .npz or .csv) for ``d_model`` (default: the
    file's column count; a ``d_model`` that differs from it is a usage error).

    ``positions``: ``START:STOP``, ``a,b,c`` or a file (default: the positions stored in
    the file, else one per row from 0). Raises ValueError for a file or an option that does
    not fit (see the module docstring); returns the report otherwise.
    """
    name = str(path)
    text_dtype = None if level is None else parse_level(level).output_dtype
    saved = read_output(path, key=key, text_dtype=text_dtype)
    output = saved.array
    d = _d_model(name, output.shape, d_model)
    chosen, given = _positions(positions, saved.positions, output.shape[0])
    if chosen.shape[0] != output.shape[0]:
        source = f"--positions {given}" if positions is not None else "the file's positions"
        raise ValueError(
            f"{source} give {chosen.shape[0]} positions but {name!r} has {output.shape[0]} "
            "rows; give one position per row"
        )
    report = compare_saved_output(output, chosen, d, base, level=level, name=name)
    report.source_file = file_record(
        name,
        saved,
        np.asarray(chosen),
        given,
        ("d_model", d),
        (SMALL_SAMPLE_POSITIONS, "the length of the d64-L128 golden set"),
    )
    text = not name.lower().endswith((".npy", ".npz"))
    failed = [r for r in report.failed if r.stage in ("reference", "golden")]
    if failed and not report.diagnosis_sentence:
        report.diagnosis_sentence = file_diagnosis(output, np.asarray(chosen), d, base)
    note = ""
    if failed and text and report.level is not None:
        judged = parse_level(report.level)
        note = truncation_note(
            saved.decimals,
            lambda slack: (
                compare_blocks(output, chosen, d, base, judged, slack=slack).violations == 0
            ),
        )
    for result in failed:
        if level is None and text:  # text records no dtype: say which one was assumed
            result.message += (
                "; the text file was read as float64 (it records no dtype): give --level "
                "float32, float16 or bfloat16 for an output computed in that dtype"
            )
        result.message += note
    return report


def _d_model(name: str, shape: tuple[int, ...], d_model: int | None) -> int:
    """``--d-model`` checked against the file's column count, or that count when not given."""
    if len(shape) != 2:
        raise ValueError(
            f"from_file {name!r} must hold a 2-D array (one row per position, d_model "
            f"columns); it holds shape {shape}"
        )
    columns = shape[1]
    if d_model is None:
        if columns % 2 or columns < 2:
            raise ValueError(
                f"from_file {name!r} has {columns} column{'s' if columns != 1 else ''}; "
                "d_model (its column count) must be even and positive"
                + _columns_hint(shape, columns - 1)
            )
        return check_d_model(columns, "d_model (the file's column count)")
    d = check_d_model(d_model, "--d-model")
    if columns != d:
        raise ValueError(
            f"--d-model {d} does not match {name!r}, which has {columns} "
            f"column{'s' if columns != 1 else ''}" + _columns_hint(shape, d)
        )
    return d


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
