"""The published conformance table (issue 29): docs/conformance-table.md and the README's
summary, rendered from the committed ``results/conformance-table.json`` (written by
``pespec table --json results/conformance-table.json``; never edited by hand)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pespec.clients.table_text import render_markdown, summary

TABLE = Path(__file__).resolve().parents[2] / "results" / "conformance-table.json"


def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return data


def conformance_rows_table() -> str:
    """The whole table: its summary line, the environment, one line per row."""
    table = _table()
    env = table["environment"]
    where = (
        f"Run on {env['machine']} with {env['cpus']} CPUs, Python {env['python']}, in "
        f"{table['duration_s']:.0f} s; fixtures MANIFEST sha256 `{table['manifest_sha256'][:16]}…`."
    )
    return render_markdown(table) + "\n" + where + "\n"


def _cause(row: dict[str, Any]) -> str:
    """The named cause of a NON-CONFORMANT row, short: the diagnosis after "the cause is:"
    up to its first parenthesis or semicolon (rows that share it are listed together)."""
    text = str(row.get("diagnosis") or row.get("summary") or "no cause named")
    text = text.split("the cause is: ", 1)[-1]
    return text.split(" (", 1)[0].split(";", 1)[0].strip()


def _rows_text(rows: list[dict[str, Any]], most: int = 4) -> str:
    named = [f"`{r['client']}` ({r['config']}, {r['dtype']})" for r in rows[:most]]
    more = len(rows) - most
    return ", ".join(named) + (f" and {more} more rows of the same cause" if more > 0 else "")


def conformance_summary_text() -> str:
    """The README's paragraph: counts by verdict, libraries, and the named causes (rows that
    share a cause listed together, a few by name)."""
    table = _table()
    by_cause: dict[str, list[dict[str, Any]]] = {}
    for row in table["rows"]:
        if row["verdict"] == "NON-CONFORMANT":
            by_cause.setdefault(_cause(row), []).append(row)
    text = summary(table)
    if not by_cause:
        return text + " No row is NON-CONFORMANT.\n"
    lines = [
        f"- {cause} ({len(rows)} row{'s' * (len(rows) > 1)}): {_rows_text(rows)}"
        for cause, rows in sorted(by_cause.items(), key=lambda item: -len(item[1]))
    ]
    return text + " NON-CONFORMANT rows by named cause:\n\n" + "\n".join(lines) + "\n"


def conformance_coverage_table() -> str:
    """The coverage matrix (issue 36): each declared schedule/knob of each entry point
    (pespec.clients.implements) against the committed table's rows."""
    from pespec.clients.coverage import coverage, render_coverage

    return render_coverage(coverage(_table()))
