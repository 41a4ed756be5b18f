"""Replace rows of the committed conformance table with freshly run ones.

    python tools/splice_table_rows.py ROWS.json [--table results/conformance-table.json]

ROWS.json is a ``pespec table --client ... --json ROWS.json`` document. Each of its rows
replaces the table's row with the same (client, config, dtype, device), in place; a row
with no match is appended. Deterministic: the table's order and every other row are kept.
The table's date and durations are left alone (they describe the whole run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pespec._atomic import write_atomic

KEY = ("client", "config", "dtype", "device")


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row.get(k) for k in KEY)


def splice(table: dict[str, Any], rows: list[dict[str, Any]]) -> tuple[int, int]:
    """Splice ``rows`` into ``table['rows']``; returns (replaced, appended)."""
    index = {_key(r): i for i, r in enumerate(table["rows"])}
    replaced = appended = 0
    for row in rows:
        at = index.get(_key(row))
        if at is None:
            table["rows"].append(row)
            appended += 1
        else:
            table["rows"][at] = row
            replaced += 1
    return replaced, appended


def main(argv: list[str] | None = None) -> int:
    """Splice and write the table atomically."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows")
    parser.add_argument("--table", default="results/conformance-table.json")
    args = parser.parse_args(argv)
    table = json.loads(Path(args.table).read_text(encoding="utf-8"))
    fresh = json.loads(Path(args.rows).read_text(encoding="utf-8"))
    replaced, appended = splice(table, fresh["rows"])
    write_atomic(args.table, json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    print(f"{args.table}: {replaced} rows replaced, {appended} appended")
    return 0


if __name__ == "__main__":
    sys.exit(main())
