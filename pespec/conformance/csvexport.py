"""The one CSV export shape every family writes (issue 38, rule 4 of the design note).

A header line, then one line per row; comma-separated, ``\\n`` line ends, ASCII; a float cell
is its shortest round-trip decimal (``repr``), an int its digits, a string as given (a cell a
family formats itself, e.g. an empty one). What the columns are is the family's content (its
rows); how they are written is this module's alone. Every file goes through
:func:`pespec._atomic.write_atomic`.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from pespec._atomic import write_atomic

__all__ = ["Cell", "csv_table", "write_csv"]

Cell = str | int | float
"""One CSV cell: a float is written as ``repr`` (round-trips), an int as its digits."""


def _cell(value: Cell) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


def csv_table(header: Sequence[Cell], rows: Iterable[Sequence[Cell]]) -> bytes:
    """The bytes of a CSV file: ``header``, then each row of ``rows`` (module docstring)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([_cell(v) for v in header])
    writer.writerows([_cell(v) for v in row] for row in rows)
    return buffer.getvalue().encode("ascii")


def write_csv(path: str | Path, header: Sequence[Cell], rows: Iterable[Sequence[Cell]]) -> None:
    """Write :func:`csv_table` to ``path`` atomically; ``"-"``: standard output."""
    data = csv_table(header, rows)
    if str(path) == "-":
        sys.stdout.write(data.decode("ascii"))
    else:
        write_atomic(path, data)
