"""What the ``--from-file`` checks of k-column positions share (SPEC §6.5): the rows' positions.

A family whose position is a point of k axes checks a saved (n, width) output at n positions
(n, k): read from ``--positions FILE`` (:func:`read_positions_table`), else stored in the
file, else the preset's whole grid (:func:`file_positions`); and reports the file the same
way (:func:`file_report`). The families differ only in how positions are validated and what
the whole grid is; this module takes those as arguments and names no family.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.filecheck import saved_file_report
from pespec.conformance.filerules import file_record
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.savedfile import SavedOutput, read_npy, read_text_table

__all__ = ["file_positions", "file_report", "one_row_each", "read_positions_table"]


def read_positions_table(path: str | Path) -> NDArray[Any]:
    """The array of a ``--positions`` file: a ``.npy``, or a ``.csv``/``.txt`` table (a
    header line is skipped; one starting with "position" gives its column back); ValueError
    naming the file when it is missing or of another kind. The caller checks the shape."""
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"--positions must be an existing .npy or .csv file; got {str(file)!r}")
    suffix = file.suffix.lower()
    if suffix == ".npy":
        return np.asarray(read_npy(file))
    if suffix in (".csv", ".txt"):
        table = read_text_table(file)
        array = table.values
        if table.positions is not None:  # a header starting with "position": one more column
            array = np.concatenate([np.reshape(table.positions, (-1, 1)), array], axis=1)
        return array
    raise ValueError(f"--positions must end in .npy or .csv; got {str(file)!r}")


def file_positions(
    name: str,
    output: NDArray[Any],
    columns: tuple[int, str],
    given: tuple[str | None, Any],
    read: Callable[[str], NDArray[Any]],
    stored_positions: Callable[[Any], NDArray[Any]],
    whole: Callable[[], tuple[NDArray[Any], str]],
) -> tuple[NDArray[Any], str]:
    """The positions of the rows of file ``name``'s ``output`` and how they were given.

    ``columns``: (the width a row must have, what that width is, e.g. ``"D of <config>"``);
    ``given``: (the ``--positions`` option, the positions stored in the file), each None
    when absent. The option is read with ``read``, stored positions checked with
    ``stored_positions``, and ``whole()`` gives (the grid's positions, how they are named)
    when neither is there. ValueError naming the file when the output is not 2-D of that
    width or its row count is not the positions'.
    """
    width, what = columns
    if output.ndim != 2 or output.shape[1] != width:
        raise ValueError(
            f"from_file {name!r} must hold a 2-D array of {width} columns ({what}); it "
            f"holds shape {output.shape}"
        )
    option, stored = given
    if option is not None:
        positions, how = read(option), f"--positions {option}"
    elif stored is not None:
        positions, how = stored_positions(stored), "stored in the file"
    else:
        positions, how = whole()
    return one_row_each(name, output, positions, how)


def one_row_each(
    name: str, output: NDArray[Any], positions: NDArray[Any], how: str
) -> tuple[NDArray[Any], str]:
    """(``positions``, ``how``) when file ``name``'s ``output`` has one row per position
    (``how``: how the positions were given); ValueError naming the file and both counts
    otherwise."""
    if positions.shape[0] != output.shape[0]:
        raise ValueError(
            f"from_file {name!r} has {output.shape[0]} rows but {how} are "
            f"{positions.shape[0]} positions; give one row per position"
        )
    return positions, how


def file_report(
    saved: SavedOutput,
    name: str,
    rows: tuple[int, str],
    width: tuple[str, int],
    checks: list[CheckResult],
    started: tuple[str, float],
    fields: dict[str, Any],
) -> Report:
    """The report of file ``name`` (read as ``saved``): ``checks``, the family's report
    ``fields``, and its record (:func:`~pespec.conformance.filerules.file_record`) of
    ``rows`` (how many, how their positions were given) of ``width`` (what, how many)."""
    report = saved_file_report(name, checks, started, fields)
    count, given = rows
    indices = np.arange(count)
    report.source_file = file_record(name, saved, indices, f"{given}; row indices", width, (1, ""))
    return report
