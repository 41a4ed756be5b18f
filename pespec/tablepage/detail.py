"""One row's detail on the table page: summary, diagnosis, measured vs declared, the error
against position, versions, history and the reproduction line (with a copy button)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pespec.tablepage.model import Cell
from pespec.tablepage.svg import error_picture

__all__ = ["detail_html"]

NO_CHECKS = (
    "This table's rows do not carry their checks' worst errors and positions (tables written "
    "before pespec table recorded them): run the reproduction line for the full report "
    "(pespec check … --markdown REPORT.md), or regenerate the table."
)
MEASURED_ROWS = 16
"""Rows of a measured-vs-declared table the page shows (the first deviating ones past it)."""
NO_MEASURED = "The diagnosis measured no frequencies against the declared ones for this row."
NOT_RECORDED = (
    "This table's rows do not carry the diagnosis's measured-vs-declared table (tables written "
    "before pespec table recorded it): the reproduction line's report has it."
)


def _e(value: object) -> str:
    return escape("" if value is None else str(value))


def _num(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:.7g}"
    return "—" if value is None else _e(value)


def _body(rows: Sequence[Sequence[str]]) -> str:
    """Table body rows of already-escaped cells, without the ``</td>``/``</tr>`` end tags HTML
    makes optional (a row's detail carries two such tables; the page has a 5 MB budget)."""
    return "".join("<tr>" + "".join(f"<td>{v}" for v in row) for row in rows)


def _summary(row: Mapping[str, Any]) -> object:
    """The row's summary without its closing "; diagnosis: ..." when the Diagnosis paragraph
    right after it says the same words."""
    summary, diagnosis = row.get("summary"), row.get("diagnosis")
    tail = f"; diagnosis: {diagnosis}"
    if diagnosis and isinstance(summary, str) and summary.endswith(tail):
        return summary[: -len(tail)] + " (diagnosis below)."
    return summary


def detail_html(cell: Cell) -> str:
    """The row's ``<article id="row-N">`` (hidden until the page's script opens it)."""
    row = cell.row
    client, config, dtype = cell.key
    facts = [
        ("verdict", cell.verdict),
        ("level", row.get("level")),
        ("worst ratio", row.get("worst_ratio")),
        ("why not run", row.get("why")),
        ("cause", cell.cause),
        ("entry point", row.get("entry")),
        ("source", row.get("source")),
        ("device", row.get("device")),
        ("versions", ", ".join(f"{k} {v}" for k, v in sorted((row.get("versions") or {}).items()))),
        ("duration", f"{row['duration_s']} s" if "duration_s" in row else None),
    ]
    dl = "".join(f"<dt>{k}</dt><dd>{_num(v)}</dd>" for k, v in facts if v not in (None, ""))
    return (
        f'<article class="detail" id="row-{cell.index}" hidden tabindex="-1" '
        f'aria-labelledby="row-{cell.index}-h">'
        f'<h2 id="row-{cell.index}-h"><code>{_e(client)}</code> {_e(config)} {_e(dtype)}</h2>'
        '<button type="button" class="close">Close</button>'
        f"<dl>{dl}</dl>"
        + _paragraph("Summary", _summary(row))
        + _paragraph("Diagnosis", row.get("diagnosis"))
        + _measured(row.get("measured_vs_declared"), recorded="checks" in row)
        + _picture(row.get("checks"))
        + _changes(cell)
        + _reproduction(str(row.get("reproduction") or ""))
        + "</article>"
    )


def _paragraph(title: str, text: object) -> str:
    return f"<h3>{title}</h3><p>{_e(text)}</p>" if text else ""


def _measured(table: object, recorded: bool) -> str:
    """The diagnosis's measured-vs-declared table: every row up to :data:`MEASURED_ROWS`, else
    the first deviating ones (the page stays small; the report has them all)."""
    if not isinstance(table, Mapping) or not table.get("rows"):
        text = NO_MEASURED if recorded else NOT_RECORDED
        return f'<h3>Measured vs declared</h3><p class="missing">{text}</p>'
    every = list(table["rows"])
    deviating = [row for row in every if row and row[-1] is True]
    shown = every if len(every) <= MEASURED_ROWS else (deviating or every)[:MEASURED_ROWS]
    note = (
        ""
        if len(shown) == len(every)
        else f"<p>The first {len(shown)} of {len(deviating)} deviating rows; the reproduction "
        "line's report (--markdown) has all of them.</p>"
    )
    head = "".join(f'<th scope="col">{_e(c)}</th>' for c in table["columns"])
    rows = _body([[_num(v) for v in r] for r in shown])
    return (
        f"<h3>Measured vs declared</h3><details><summary>{len(every)} rows, {len(deviating)} "
        f'deviate</summary>{note}<div class="scroll"><table class="summary measured">'
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div></details>"
    )


def _picture(found: object) -> str:
    checks: Sequence[Mapping[str, Any]] = found if isinstance(found, list) else []
    picture = error_picture(checks)
    if picture is None:
        return f'<h3>Error against position</h3><p class="missing">{NO_CHECKS}</p>'
    rows = _body(
        [
            [_e(c.get(k)) for k in ("id", "status")]
            + [_num(c.get(k)) for k in ("ratio", "position")]
            for c in checks
        ]
    )
    return (
        f'<h3>Error against position</h3><figure class="picture">{picture}<figcaption>Each '
        "check's worst element: error as a ratio of its bound (above the dashed line fails) at "
        "its position.</figcaption></figure><details><summary>The same as a table</summary>"
        '<table class="summary"><thead><tr><th scope="col">check</th><th scope="col">status'
        '</th><th scope="col">error/bound</th><th scope="col">position</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></details>"
    )


def _changes(cell: Cell) -> str:
    if not cell.changes:
        return ""
    items = "".join(
        f"<li>{_e(c.snapshot)}: "
        + (
            f"{_e(c.before)} → {_e(c.after)}"
            if c.before and c.after
            else f"first seen, {_e(c.after)}"
            if c.after
            else f"gone (was {_e(c.before)})"
        )
        + (f" ({_e(cell.row.get('library'))} {_e(c.version)})" if c.version else "")
        + "</li>"
        for c in cell.changes
    )
    return f"<h3>Verdict history</h3><ul>{items}</ul>"


def _reproduction(line: str) -> str:
    return (
        '<h3>Reproduce</h3><p class="repro"><code>'
        f'{_e(line)}</code> <button type="button" class="copy">'
        'Copy</button> <span class="copied" role="status" aria-live="polite"></span></p>'
    )
