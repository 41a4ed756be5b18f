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


def conformance_summary_text() -> str:
    """The README's paragraph: counts by verdict, libraries, and the named causes."""
    table = _table()
    causes = sorted(
        {
            f"`{r['client']}` ({r['config']}, {r['dtype']}): "
            f"{r.get('diagnosis') or r.get('summary')}"
            for r in table["rows"]
            if r["verdict"] == "NON-CONFORMANT"
        }
    )
    text = summary(table)
    if causes:
        text += " NON-CONFORMANT rows and their named causes:\n\n" + "\n".join(
            f"- {c}" for c in causes
        )
    else:
        text += " No row is NON-CONFORMANT."
    return text + "\n"
