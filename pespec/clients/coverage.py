"""The coverage matrix (issue 36): client × declared schedule/knob → what the table says.

Each cell reads the rows of a table document (``results/conformance-table.json``) whose
client and configuration the declaration (:mod:`pespec.clients.implements`) names for that
schedule: ``CONFORMANT``, ``NON-CONFORMANT (cause)``, ``not implemented`` (by the library, at
the stated source line), ``refused (reason)`` or ``not run (reason)``; ``no row`` when a
declared implemented schedule has none in the table (a test fails on it). The library's own
dtypes decide the verdict; ``module-bfloat16`` rows (the module cast as ``model.to(bf16)``)
are counted beside it, since that cast is the user's, not the library's default path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pespec.clients.implements import DECLARATIONS, Declaration

__all__ = ["CAST_DTYPE", "cause", "coverage", "missing", "render_coverage"]

CAST_DTYPE = "module-bfloat16"
NO_ROW = "no row"


def cause(row: Mapping[str, Any]) -> str:
    """The named cause of a NON-CONFORMANT row, short: the diagnosis after "the cause is:" up
    to its first parenthesis or semicolon (rows that share it are one group)."""
    text = str(row.get("diagnosis") or row.get("summary") or "no cause named")
    text = text.split("the cause is: ", 1)[-1]
    return text.split(" (", 1)[0].split(";", 1)[0].strip().rstrip(".")


def _cell(rows: list[Mapping[str, Any]]) -> tuple[str, str]:
    """(status, detail) of the rows of one declared schedule."""
    own = [r for r in rows if r["dtype"] != CAST_DTYPE] or rows
    bad = [r for r in own if r["verdict"] == "NON-CONFORMANT"]
    if bad:
        where = ", ".join(sorted({f"{r['config']} {r['dtype']}" for r in bad}))
        return "NON-CONFORMANT", f"{cause(bad[0])} ({where})"
    good = [r for r in own if r["verdict"] == "CONFORMANT"]
    if good:
        return "CONFORMANT", f"{len(good)} row{'s' * (len(good) > 1)}"
    why = str(own[0].get("why") or "")
    if why.startswith("refused"):
        return "refused", why.removeprefix("refused: ")
    return "not run", why


def _cast_note(rows: list[Mapping[str, Any]]) -> str:
    cast = [r for r in rows if r["dtype"] == CAST_DTYPE]
    if not cast:
        return ""
    bad = sum(r["verdict"] == "NON-CONFORMANT" for r in cast)
    return f"; {CAST_DTYPE}: {bad}/{len(cast)} NON-CONFORMANT"


def coverage(
    table: Mapping[str, Any], declarations: Mapping[str, Declaration] | None = None
) -> list[dict[str, str]]:
    """One cell per declared (client, schedule): client, schedule, status, detail, source."""
    declared = DECLARATIONS if declarations is None else declarations
    by_key: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in table["rows"]:
        by_key.setdefault((row["client"], row["config"]), []).append(row)
    cells = []
    for client, declaration in declared.items():
        for item in declaration.items:
            base = {
                "client": client,
                "schedule": item.name,
                "source": f"{declaration.library} {declaration.version} {item.where}",
            }
            if not item.implemented:
                cells.append({**base, "status": "not implemented", "detail": item.note})
                continue
            rows = [r for key in item.rows for r in by_key.get(key, [])]
            if not rows:
                named = ", ".join(f"{c} {g}" for c, g in item.rows)
                detail = item.not_run or f"no row in the table for {named or 'it'}"
                status = "not run" if item.not_run else NO_ROW
                cells.append({**base, "status": status, "detail": detail})
                continue
            status, detail = _cell(rows)
            if status == "NON-CONFORMANT" and item.finding:
                detail = f"{item.finding} ({detail.rpartition(' (')[2]}"
            cells.append({**base, "status": status, "detail": detail + _cast_note(rows)})
    return cells


def missing(cells: Iterable[Mapping[str, str]]) -> list[str]:
    """``client: schedule`` of every declared implemented schedule without a row."""
    return [f"{c['client']}: {c['schedule']}" for c in cells if c["status"] == NO_ROW]


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_coverage(cells: list[dict[str, str]]) -> str:
    """The matrix as Markdown: a count line, then one line per client × schedule."""
    counts: dict[str, int] = {}
    for c in cells:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    order = ("CONFORMANT", "NON-CONFORMANT", "not implemented", "refused", "not run", NO_ROW)
    head = ", ".join(f"{counts[s]} {s}" for s in order if counts.get(s))
    clients = len({c["client"] for c in cells})
    lines = [
        f"{len(cells)} declared schedules and knobs of {clients} entry points: {head}.",
        "",
        "| entry point | schedule / knob | status | cause, rows or reason | declared at |",
        "|---|---|---|---|---|",
    ]
    for c in cells:
        cells_text = [f"`{c['client']}`", c["schedule"], c["status"], c["detail"], c["source"]]
        lines.append("| " + " | ".join(_escape(t) for t in cells_text) + " |")
    return "\n".join(lines) + "\n"
