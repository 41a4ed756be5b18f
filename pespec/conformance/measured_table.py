"""The diagnosis's measured-vs-declared table as text (SPEC Annex D.9): Markdown and terminal.

A diagnosis may carry ``measured_vs_declared``: ``{"columns": [...], "rows": [[...], ...]}``,
one row per frequency (measured value, declared value, their ratio, ...), the last column
``deviates`` (bool). The JSON report keeps every row; the Markdown report shows every row;
the terminal shows the first deviating rows only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["TERMINAL_ROWS", "markdown_lines", "terminal_lines"]

TERMINAL_ROWS = 6
"""Deviating rows the terminal shows."""


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:.7g}"
    return "—" if value is None else str(value)


def _table(diagnosis: Mapping[str, Any] | None) -> tuple[Sequence[str], Sequence[Any]] | None:
    table = (diagnosis or {}).get("measured_vs_declared")
    if not isinstance(table, Mapping) or not table.get("rows"):
        return None
    return table["columns"], table["rows"]


def markdown_lines(diagnosis: Mapping[str, Any] | None) -> list[str]:
    """The whole table under a heading (empty when the diagnosis has none)."""
    found = _table(diagnosis)
    if found is None:
        return []
    columns, rows = found
    out = ["", "### Measured vs declared", "", "| " + " | ".join(columns) + " |"]
    out.append("|" + "---|" * len(columns))
    out += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return out


def terminal_lines(diagnosis: Mapping[str, Any] | None, limit: int = TERMINAL_ROWS) -> list[str]:
    """The first ``limit`` deviating rows, aligned (empty when none deviates)."""
    found = _table(diagnosis)
    if found is None:
        return []
    columns, rows = found
    bad = [row for row in rows if row and row[-1] is True]
    if not bad:
        return []
    shown = [list(columns[:-1])] + [[_cell(v) for v in row[:-1]] for row in bad[:limit]]
    widths = [max(len(str(r[i])) for r in shown) for i in range(len(shown[0]))]
    lines = [f"measured vs declared ({len(bad)} of {len(rows)} deviate; first {len(shown) - 1}):"]
    lines += [
        "  " + "  ".join(str(c).rjust(w) for c, w in zip(r, widths, strict=True)) for r in shown
    ]
    return lines
