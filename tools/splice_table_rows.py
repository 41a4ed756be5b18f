"""Splice the rows of some clients into the committed conformance table (issue 36).

    python tools/splice_table_rows.py results/conformance-table.json ROWS.json [ROWS.json ...]

Each ROWS.json is a ``pespec table --client NAME --json ROWS.json`` document. Every client
that has rows in a ROWS.json loses all its rows in the table and gets those instead; the
other rows stay as they are. Rows are then ordered as ``pespec table`` plans them (catalog
order of clients, each client's configurations × dtypes), rows of clients the catalog does not
know last in their previous order, so the result depends only on the inputs. The table's header
(date, environment, duration) is kept: the rows carry their own versions and durations.
Written atomically in place.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pespec._atomic import write_atomic
from pespec.clients.catalog import all_clients
from pespec.clients.table import planned_rows


def splice(table: dict[str, Any], parts: list[dict[str, Any]]) -> dict[str, Any]:
    """``table`` with the rows of every client in ``parts`` replaced by theirs."""
    new = [row for part in parts for row in part["rows"]]
    replaced = {row["client"] for row in new}
    rows = [row for row in table["rows"] if row["client"] not in replaced] + new
    order = {
        (r["client"], r["config"], r["dtype"]): n
        for n, r in enumerate(planned_rows(all_clients().values()))
    }
    unknown = len(order)
    keyed = [
        (order.get((r["client"], r["config"], r["dtype"]), unknown), n, r)
        for n, r in enumerate(rows)
    ]
    return {**table, "rows": [r for _, _, r in sorted(keyed, key=lambda k: (k[0], k[1]))]}


def main(argv: list[str]) -> int:
    """Splice ``argv[1:]`` into ``argv[0]`` (exit 2 on a usage error)."""
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(argv[0])
    table = json.loads(path.read_text(encoding="utf-8"))
    parts = [json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[1:]]
    for name, part in zip(argv[1:], parts, strict=True):
        if part.get("schema") != table.get("schema"):
            print(f"{name}: not a {table.get('schema')} document", file=sys.stderr)
            return 2
    out = splice(table, parts)
    write_atomic(str(path), json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"{path}: {len(out['rows'])} rows ({len(table['rows'])} before)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
