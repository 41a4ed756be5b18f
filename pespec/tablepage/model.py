"""What the table page shows, computed from the table JSON alone (no client is imported).

A table row (one client × configuration × dtype) becomes a :class:`Cell`; cells of one client ×
configuration form a grid line; the grid's columns are the dtypes. Each cell carries the
values the page filters on (library, family, schedule, verdict, cause, device) and, given
history snapshots (:mod:`pespec.tablepage.history`), the snapshots since which its verdict
changed and the changes along the way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["VERDICTS", "Cell", "Change", "cause_of", "cells_of", "grid", "row_key", "schedule_of"]

VERDICTS = ("CONFORMANT", "NON-CONFORMANT", "not run")
"""The verdicts a row can have, in the page's order."""

Key = tuple[str, str, str]


def row_key(row: Mapping[str, Any]) -> Key:
    """(client, configuration, dtype): what names a row across tables and snapshots."""
    return (str(row["client"]), str(row["config"]), str(row["dtype"]))


def cause_of(row: Mapping[str, Any]) -> str:
    """The short named cause of a row that is not CONFORMANT ("" for a CONFORMANT row).

    NON-CONFORMANT: the diagnosis after "the cause is:" up to its first parenthesis or
    semicolon (the README's grouping rule); not run: why, up to its first colon.
    """
    if row.get("verdict") == "CONFORMANT":
        return ""
    if row.get("verdict") == "not run":
        return str(row.get("why") or "not run").split(":", 1)[0].strip()
    text = str(row.get("diagnosis") or row.get("summary") or "no cause named")
    text = text.split("the cause is: ", 1)[-1]
    return text.split(" (", 1)[0].split(";", 1)[0].strip()


_SCHEDULE = re.compile(r"at level \S+, rope (\w+) ")


def schedule_of(row: Mapping[str, Any]) -> str:
    """The rotary schedule the row's summary names (default, linear, llama3, yarn, ...);
    "—" for a row that names none (the other families, rows not run)."""
    found = _SCHEDULE.search(str(row.get("summary") or ""))
    return found.group(1) if found else "—"


@dataclass(frozen=True)
class Change:
    """A row's verdict changed between two snapshots: ``snapshot`` is where the new verdict
    was first seen, ``version`` the row's library version there (None when unknown)."""

    snapshot: str
    before: str | None
    after: str | None
    version: str | None


@dataclass
class Cell:
    """One table row as the page shows it; ``index`` is its position in the table."""

    index: int
    row: Mapping[str, Any]
    cause: str
    schedule: str
    changes: list[Change] = field(default_factory=list)
    changed_since: list[str] = field(default_factory=list)

    @property
    def key(self) -> Key:
        return row_key(self.row)

    @property
    def verdict(self) -> str:
        return str(self.row.get("verdict", "not run"))

    @property
    def version(self) -> str:
        """The row's own library's version ("" when not recorded)."""
        return str((self.row.get("versions") or {}).get(self.row.get("library"), ""))


def cells_of(table: Mapping[str, Any], snapshots: Sequence[Mapping[str, Any]] = ()) -> list[Cell]:
    """Every row of ``table`` as a cell, with its history in ``snapshots`` (oldest first,
    each a :mod:`history` document; the table itself is the newest state)."""
    cells = [Cell(i, row, cause_of(row), schedule_of(row)) for i, row in enumerate(table["rows"])]
    states = [(s["id"], {tuple(r[:3]): r for r in s["rows"]}) for s in snapshots]
    for cell in cells:
        _history(cell, states)
    return cells


def _history(cell: Cell, states: Sequence[tuple[str, Mapping[tuple[str, ...], Any]]]) -> None:
    """Fill ``cell.changes`` (verdict changes along the snapshots and into the table) and
    ``cell.changed_since`` (snapshots whose verdict for this row differs from today's)."""
    previous: str | None = None
    seen = False
    for snapshot_id, rows in states:
        found = rows.get(cell.key)
        verdict = None if found is None else str(found[3])
        if seen and verdict != previous:
            version = None if found is None else (found[4] or None)
            cell.changes.append(Change(snapshot_id, previous, verdict, version))
        if verdict != cell.verdict:
            cell.changed_since.append(snapshot_id)
        previous, seen = verdict, True
    if seen and previous != cell.verdict:
        cell.changes.append(Change("this table", previous, cell.verdict, cell.version or None))


def grid(cells: Sequence[Cell]) -> tuple[list[str], list[tuple[str, str, dict[str, Cell]]]]:
    """(columns, lines): the dtypes in order of first appearance, and one line per client ×
    configuration in table order, mapping dtype → cell."""
    columns: list[str] = []
    lines: dict[tuple[str, str], dict[str, Cell]] = {}
    for cell in cells:
        client, config, dtype = cell.key
        if dtype not in columns:
            columns.append(dtype)
        lines.setdefault((client, config), {})[dtype] = cell
    return columns, [(client, config, by) for (client, config), by in lines.items()]


def counts(cells: Sequence[Cell], attribute: str) -> list[tuple[str, int]]:
    """(value, rows) of one filter attribute, most rows first, then by name."""
    tally = Counter(_value(c, attribute) for c in cells)
    return sorted(tally.items(), key=lambda item: (-item[1], item[0]))


def _value(cell: Cell, attribute: str) -> str:
    if attribute in ("cause", "schedule", "verdict"):
        return str(getattr(cell, attribute))
    return str(cell.row.get(attribute, ""))
