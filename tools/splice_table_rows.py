"""Splice rows of ``pespec table --json`` runs into the committed table (issue 35).

    python tools/splice_table_rows.py ROWS.json [ROWS.json ...] [--into TABLE.json]

Every client that has rows in a ROWS document has all its committed rows replaced by those;
the rows are then ordered as ``pespec table`` plans them (catalog order of the clients, then
configuration and dtype), rows of clients this pespec does not declare last, in their order.
The document's other fields (date, environment, duration) stay the committed table's.
Deterministic; the write is atomic.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pespec._atomic import write_atomic
from pespec.clients.catalog import all_clients
from pespec.clients.table import planned_rows

TABLE = Path(__file__).resolve().parents[1] / "results" / "conformance-table.json"


def splice(table: dict[str, Any], documents: list[dict[str, Any]]) -> dict[str, Any]:
    """``table`` with the rows of ``documents`` in place of their clients' rows."""
    new = [row for doc in documents for row in doc["rows"]]
    replaced = {row["client"] for row in new}
    rows = [row for row in table["rows"] if row["client"] not in replaced] + new
    order = {
        (r["client"], r["config"], r["dtype"]): i
        for i, r in enumerate(planned_rows(all_clients().values()))
    }
    last = len(order)
    ranked = sorted(
        enumerate(rows),
        key=lambda item: (
            order.get((item[1]["client"], item[1]["config"], item[1]["dtype"]), last),
            item[0],
        ),
    )
    return {**table, "rows": [row for _, row in ranked]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="+", help="table documents whose rows are spliced in")
    parser.add_argument(
        "--into", default=str(TABLE), help="the table to update (default: %(default)s)"
    )
    args = parser.parse_args()
    table = json.loads(Path(args.into).read_text(encoding="utf-8"))
    documents = [json.loads(Path(p).read_text(encoding="utf-8")) for p in args.rows]
    out = splice(table, documents)
    write_atomic(args.into, json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(
        f"{args.into}: {len(out['rows'])} rows ({sum(len(d['rows']) for d in documents)} spliced)"
    )


if __name__ == "__main__":
    main()
