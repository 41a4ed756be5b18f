"""The conformance table in words: the Markdown rendering, the summary, and what changed
between two tables (``pespec table --compare OLD.json``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pespec._markdown import cell

__all__ = ["cause_groups", "compare_tables", "render_changes", "render_markdown", "summary"]

VERDICTS = ("CONFORMANT", "NON-CONFORMANT", "not run")


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["client"], row["config"], row["dtype"])


def summary(table: dict[str, Any]) -> str:
    """One paragraph: rows, libraries, counts by verdict."""
    rows = table["rows"]
    counts = Counter(r["verdict"] for r in rows)
    libraries = sorted({r["library"] for r in rows if r["verdict"] != "not run"})
    parts = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])
    return (
        f"{len(rows)} rows ({parts}) from {len(libraries)} "
        f"{'library' if len(libraries) == 1 else 'libraries'} run "
        f"({', '.join(libraries)}); pespec {table['pespec_version']}, SPEC "
        f"{table['spec_version']}, {table['date']}."
    )


def _ratio(row: dict[str, Any]) -> str:
    value = row.get("worst_ratio")
    return "" if value is None else f"{value:.3g}"


def cause_groups(table: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The NON-CONFORMANT rows grouped by named cause (:func:`coverage.cause`), largest group
    first, then by cause (issue 36: a cause many rows share is one line, not many)."""
    from pespec.clients.coverage import cause

    groups: dict[str, list[dict[str, Any]]] = {}
    for row in table["rows"]:
        if row["verdict"] == "NON-CONFORMANT":
            groups.setdefault(cause(row), []).append(row)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def _group_lines(groups: list[tuple[str, list[dict[str, Any]]]]) -> list[str]:
    lines = ["NON-CONFORMANT rows by named cause (every row is also a line of the table):", ""]
    for number, (text, rows) in enumerate(groups, 1):
        listed = ", ".join(f"`{r['client']}` {r['config']} {r['dtype']}" for r in rows)
        lines.append(f"- **C{number}** {cell(text)} ({len(rows)} rows): {cell(listed)}")
    return [*lines, ""]


def render_markdown(table: dict[str, Any]) -> str:
    """The table as Markdown: the summary, the NON-CONFORMANT rows grouped by named cause, then
    one line per row (the cause's group, or its diagnosis, and the reproduction for every row
    that is not CONFORMANT)."""
    groups = cause_groups(table)
    shared = {id(r): n for n, (_, rows) in enumerate(groups, 1) if len(rows) > 1 for r in rows}
    lines = [
        summary(table),
        "",
        *(_group_lines(groups) if groups else []),
        "| client | configuration | dtype | verdict | level | worst ratio | version | "
        "cause / reproduction |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in table["rows"]:
        version = row.get("versions", {}).get(row["library"], "")
        if row["verdict"] == "CONFORMANT":
            cause = ""
        elif row["verdict"] == "not run":
            cause = row.get("why", "")
        elif id(row) in shared:  # the sentence is in its group's line above
            cause = f"C{shared[id(row)]} — `{row['reproduction']}`"
        else:
            cause = f"{row.get('diagnosis') or row.get('summary')} — `{row['reproduction']}`"
        cells = [
            f"`{row['client']}`",
            row["config"],
            row["dtype"],
            row["verdict"],
            row.get("level") or "",
            _ratio(row),
            version,
            cause,
        ]
        lines.append("| " + " | ".join(cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def compare_tables(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows whose verdict changed: ``change`` is improved, regressed, changed, new or gone;
    ``same_versions`` says whether the library versions were the same in both tables."""
    before = {_key(r): r for r in old["rows"]}
    after = {_key(r): r for r in new["rows"]}
    changes = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a is not None and b is not None and a["verdict"] == b["verdict"]:
            continue
        if a is None or b is None:
            change = "new" if a is None else "gone"
        elif a["verdict"] == "NON-CONFORMANT" and b["verdict"] == "CONFORMANT":
            change = "improved"
        elif a["verdict"] == "CONFORMANT" and b["verdict"] == "NON-CONFORMANT":
            change = "regressed"
        else:
            change = "changed"
        same = a is not None and b is not None and a.get("versions") == b.get("versions")
        changes.append(
            {
                "client": key[0],
                "config": key[1],
                "dtype": key[2],
                "change": change,
                "before": None if a is None else a["verdict"],
                "after": None if b is None else b["verdict"],
                "same_versions": same,
            }
        )
    return changes


def render_changes(changes: list[dict[str, Any]]) -> str:
    """The changes, one line each (or a line saying there are none)."""
    if not changes:
        return "No verdict changed."
    return "\n".join(
        f"{c['change']}: {c['client']} {c['config']} {c['dtype']}: {c['before']} -> "
        f"{c['after']}" + ("" if c["same_versions"] else " (library versions differ)")
        for c in changes
    )
