"""The table page's HTML: one self-contained file (styles, script and pictures inline; no
network), built from :mod:`pespec.tablepage.model`'s cells. Every part of the page is plain
HTML the script only shows, hides and filters, so the text is there for any reader."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from typing import Any

from pespec.tablepage.detail import detail_html
from pespec.tablepage.history import compact_rows
from pespec.tablepage.model import VERDICTS, Cell, counts, grid
from pespec.tablepage.svg import trend_picture

__all__ = ["render_page"]

FILTERS = ("library", "family", "schedule", "verdict", "cause", "device")
SYMBOL = {"CONFORMANT": "✓", "NON-CONFORMANT": "✗", "not run": "–"}
CLASS = {"CONFORMANT": "ok", "NON-CONFORMANT": "bad", "not run": "nr"}


def _e(value: object) -> str:
    return escape("" if value is None else str(value))


def _ratio(value: object) -> str:
    if isinstance(value, (int, float)) and math.isfinite(value):
        return f"{value:.3g}"
    return ""


def _asset(name: str) -> str:
    return resources.files("pespec.tablepage").joinpath(name).read_text(encoding="utf-8")


def render_page(
    table: Mapping[str, Any], cells: Sequence[Cell], snapshots: Sequence[Mapping[str, Any]]
) -> str:
    """The whole page as one HTML document."""
    causes = {c: f"c{i}" for i, (c, _) in enumerate(counts(cells, "cause")) if c}
    parts = [
        _head(table),
        _filters(cells, causes, snapshots),
        _causes(cells, causes),
        _grid(cells, causes),
        _libraries(cells),
        _history(snapshots, cells, table),
        '<section id="details" aria-label="Row details">',
        *(detail_html(cell) for cell in cells),
        "</section>",
        f"</main><script>{_asset('page.js')}</script></body></html>\n",
    ]
    return "\n".join(parts)


def _head(table: Mapping[str, Any]) -> str:
    env = table.get("environment") or {}
    tally = Counter(str(r.get("verdict")) for r in table["rows"])
    counted = ", ".join(f"{tally[v]} {v}" for v in VERDICTS if tally[v])
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>pespec conformance table</title><link rel="icon" href="data:,">'
        f"<style>{_asset('page.css')}</style></head><body>"
        '<a class="skip" href="#grid">Skip to the table</a>'
        "<header><h1>pespec conformance table</h1>"
        f"<p>{len(table['rows'])} rows ({_e(counted)}); pespec {_e(table.get('pespec_version'))}, "
        f"SPEC {_e(table.get('spec_version'))}, {_e(table.get('date'))}; run on "
        f"{_e(env.get('machine'))} with {_e(env.get('cpus'))} CPUs, Python "
        f"{_e(env.get('python'))}. Each cell is one check of a library entry point "
        "(client) at one configuration and dtype: ✓ CONFORMANT, ✗ NON-CONFORMANT, – not run, "
        "with the worst error as a ratio of its bound (≤ 1 passes). Choose a cell for its "
        "details and the command that reproduces it.</p>"
        '<nav aria-label="Sections"><a href="#grid">Table</a> · <a href="#causes">Causes</a> · '
        '<a href="#libraries">Libraries</a> · <a href="#history">History</a></nav></header><main>'
    )


def _select(name: str, label: str, options: Sequence[tuple[str, str]]) -> str:
    items = "".join(f'<option value="{_e(v)}">{_e(t)}</option>' for v, t in options)
    return (
        f'<label>{_e(label)} <select id="f-{name}" data-filter="{name}">'
        f'<option value="">all</option>{items}</select></label>'
    )


def _filters(
    cells: Sequence[Cell], causes: Mapping[str, str], snapshots: Sequence[Mapping[str, Any]]
) -> str:
    selects = []
    for name in FILTERS:
        options = [
            (causes.get(value, value) if name == "cause" else value, f"{value or '—'} ({n})")
            for value, n in counts(cells, name)
            if not (name == "cause" and not value)
        ]
        selects.append(_select(name, name, options))
    since = [(str(s["id"]), f"{s['id']} ({s['date']})") for s in reversed(snapshots)]
    selects.append(_select("changed", "changed since", since))
    return (
        '<form id="filters" class="filters" aria-label="Filters" onsubmit="return false">'
        '<label>client or configuration <input id="f-text" type="search" '
        'placeholder="e.g. llama"></label>'
        + "".join(selects)
        + '<button type="button" id="reset">Show all</button>'
        f'<p id="shown" role="status" aria-live="polite">{len(cells)} of {len(cells)} rows '
        "shown</p></form>"
    )


def _causes(cells: Sequence[Cell], causes: Mapping[str, str]) -> str:
    rows = counts([c for c in cells if c.cause], "cause")
    items = "".join(
        f'<li><button type="button" class="cause" data-cause="{causes[cause]}">{_e(cause)}'
        f"</button> <span>{n} row{'s' * (n != 1)}</span></li>"
        for cause, n in rows
    )
    return (
        '<section id="causes"><h2>Causes</h2><p>Rows that are not CONFORMANT, grouped by their '
        f"named cause (choose one to filter the table).</p><ul>{items}</ul></section>"
    )


def _cell(cell: Cell, causes: Mapping[str, str]) -> str:
    verdict = cell.verdict
    ratio = _ratio(cell.row.get("worst_ratio"))
    attrs = " ".join(
        f'data-{name}="{_e(causes.get(cell.cause, "") if name == "cause" else value)}"'
        for name, value in (
            ("library", cell.row.get("library")),
            ("family", cell.row.get("family")),
            ("schedule", cell.schedule),
            ("verdict", verdict),
            ("cause", cell.cause),
            ("device", cell.row.get("device")),
            ("changed", " ".join(cell.changed_since)),
        )
    )
    label = f"{cell.key[0]} {cell.key[1]} {cell.key[2]}: {verdict}" + (
        f", worst ratio {ratio}" if ratio else ""
    )
    return (
        f'<td class="c {CLASS[verdict]}" {attrs}><button type="button" data-row="{cell.index}" '
        f'aria-label="{_e(label)}" aria-controls="row-{cell.index}" title="{_e(label)}">'
        f'<span aria-hidden="true">{SYMBOL[verdict]}</span> {ratio}</button></td>'
    )


def _grid(cells: Sequence[Cell], causes: Mapping[str, str]) -> str:
    columns, lines = grid(cells)
    head = "".join(f'<th scope="col">{_e(c)}</th>' for c in columns)
    body = []
    for client, config, by in lines:
        tds = "".join(
            _cell(by[c], causes) if c in by else '<td class="c none"></td>' for c in columns
        )
        body.append(
            f'<tr><th scope="row"><code>{_e(client)}</code></th><td>{_e(config)}</td>{tds}</tr>'
        )
    return (
        '<section id="grid"><h2>Table</h2><div class="scroll"><table class="grid">'
        f'<thead><tr><th scope="col">client</th><th scope="col">configuration</th>{head}</tr>'
        f"</thead><tbody>{''.join(body)}</tbody></table></div></section>"
    )


def _libraries(cells: Sequence[Cell]) -> str:
    by: dict[str, list[Cell]] = {}
    for cell in cells:
        by.setdefault(str(cell.row.get("library")), []).append(cell)
    lines = []
    for library, group in sorted(by.items()):
        tally = Counter(c.verdict for c in group)
        versions = sorted({c.version for c in group if c.version})
        lines.append(
            f'<tr><th scope="row">{_e(library)}</th><td>{len(group)}</td>'
            + "".join(f"<td>{tally[v]}</td>" for v in VERDICTS)
            + f"<td>{_e(', '.join(versions))}</td></tr>"
        )
    head = "".join(f'<th scope="col">{v}</th>' for v in VERDICTS)
    return (
        '<section id="libraries"><h2>Libraries</h2><table class="summary"><thead><tr>'
        f'<th scope="col">library</th><th scope="col">rows</th>{head}<th scope="col">versions'
        f"</th></tr></thead><tbody>{''.join(lines)}</tbody></table></section>"
    )


def _history(
    snapshots: Sequence[Mapping[str, Any]], cells: Sequence[Cell], table: Mapping[str, Any]
) -> str:
    if not snapshots:
        return (
            '<section id="history"><h2>History</h2><p>No snapshots were given (pespec table '
            "--html DIR --history results/history).</p></section>"
        )
    points = [(str(s["id"]), dict(s["counts"])) for s in snapshots]
    if compact_rows(table) != snapshots[-1]["rows"]:  # the table is newer than the snapshots
        points.append(("this table", dict(Counter(c.verdict for c in cells))))
    lines = "".join(
        f'<tr><th scope="row">{_e(s["id"])}</th><td>{_e(s["date"])}</td>'
        f"<td>{_e(s.get('pespec_version'))} / {_e(s.get('spec_version'))}</td>"
        f"<td>{len(s['rows'])}</td>"
        + "".join(f"<td>{dict(s['counts']).get(v, 0)}</td>" for v in VERDICTS)
        + f"<td>{_e(_provenance(s))}</td></tr>"
        for s in snapshots
    )
    changed = sum(any(c.before is not None for c in cell.changes) for cell in cells)
    new = sum(cell.key not in {tuple(r[:3]) for r in snapshots[0]["rows"]} for cell in cells)
    head = "".join(f'<th scope="col">{v}</th>' for v in VERDICTS)
    return (
        '<section id="history"><h2>History</h2>'
        f'<figure class="trend">{trend_picture(points)}<figcaption>Rows by verdict in each '
        "snapshot (the table below gives the same numbers).</figcaption></figure>"
        '<table class="summary snapshots"><thead><tr><th scope="col">snapshot</th>'
        '<th scope="col">date</th><th scope="col">pespec / SPEC</th><th scope="col">rows</th>'
        f'{head}<th scope="col">provenance</th></tr></thead><tbody>{lines}</tbody></table>'
        f"<p>Along the snapshots, {changed} rows of this table changed verdict and {new} are "
        f"new since {_e(snapshots[0]['id'])}; the “changed since” filter shows the rows whose "
        "verdict differs from a snapshot's (new rows included).</p></section>"
    )


def _provenance(snapshot: Mapping[str, Any]) -> str:
    p = snapshot.get("provenance") or {}
    where = f" {p['path']} at commit {str(p['commit'])[:10]}" if p.get("commit") else ""
    return f"{p.get('tool', '')}{where}".strip()
