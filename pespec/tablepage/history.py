"""Dated snapshots of the conformance table's verdicts (``results/history/``).

A snapshot is a small JSON document (:data:`HISTORY_SCHEMA`) written from one table: its date,
its pespec/SPEC/MANIFEST versions, where it came from (``provenance``: the tool, and for a
table taken from git the commit and path) and one compact row per table row,
``[client, config, dtype, verdict, library version, worst ratio]``. Snapshots are named
``DATE-TAG.json`` so that a folder listing is in date order. The page reads them to show
when each row's verdict changed and the trend of counts by verdict.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["HISTORY_SCHEMA", "compact_rows", "load_history", "snapshot_of", "write_snapshot"]

HISTORY_SCHEMA = "pespec-table-history/1"


def snapshot_of(
    table: Mapping[str, Any], tag: str, provenance: Mapping[str, Any]
) -> dict[str, Any]:
    """The snapshot of ``table`` named ``DATE-tag`` (``tag``: a commit's short hash, a run's
    name; letters, digits, ``.``, ``_`` and ``-`` only)."""
    if not tag or not all(ch.isalnum() or ch in "._-" for ch in tag):
        raise ValueError(f"snapshot tag must be letters, digits, '.', '_' or '-'; got {tag!r}")
    rows = compact_rows(table)
    return {
        "schema": HISTORY_SCHEMA,
        "id": f"{table['date']}-{tag}",
        "date": table["date"],
        "pespec_version": table.get("pespec_version"),
        "spec_version": table.get("spec_version"),
        "manifest_sha256": table.get("manifest_sha256"),
        "provenance": dict(provenance),
        "counts": dict(sorted(Counter(r[3] for r in rows).items())),
        "rows": rows,
    }


def compact_rows(table: Mapping[str, Any]) -> list[list[Any]]:
    """``[client, config, dtype, verdict, library version, worst ratio]`` per row."""
    return [
        [
            r["client"],
            r["config"],
            r["dtype"],
            r["verdict"],
            (r.get("versions") or {}).get(r.get("library"), ""),
            r.get("worst_ratio"),
        ]
        for r in table["rows"]
    ]


def write_snapshot(folder: str | Path, snapshot: Mapping[str, Any]) -> Path:
    """Write ``snapshot`` as ``folder/ID.json`` (atomically) and return its path."""
    from pespec._atomic import write_atomic

    path = Path(folder) / f"{snapshot['id']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, _text(snapshot))
    return path


def _text(snapshot: Mapping[str, Any]) -> str:
    """Compact JSON, one row a line (a diff of two snapshots reads row by row)."""
    compact: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":")}
    head = json.dumps({k: v for k, v in snapshot.items() if k != "rows"}, **compact)
    rows = ",\n".join(json.dumps(row, **compact) for row in snapshot["rows"])
    return f'{head[:-1]},"rows":[\n{rows}\n]}}\n'


def load_history(folder: str | Path) -> list[dict[str, Any]]:
    """The snapshots in ``folder``, oldest first (:func:`_order`); ValueError naming the
    file that is not a snapshot."""
    snapshots = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"history file {str(path)!r} is not readable JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("schema") != HISTORY_SCHEMA:
            raise ValueError(f"history file {str(path)!r} is not a {HISTORY_SCHEMA} document")
        snapshots.append(data)
    return sorted(snapshots, key=_order)


def _order(snapshot: Mapping[str, Any]) -> tuple[str, str, str]:
    """Date, then the provenance's time (two tables of one day), then id."""
    time = (snapshot.get("provenance") or {}).get("time", "")
    return (str(snapshot["date"]), str(time), str(snapshot["id"]))
