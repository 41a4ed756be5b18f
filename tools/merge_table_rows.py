"""Splice the rows of a partial ``pespec table --json`` run into the committed table.

    python tools/merge_table_rows.py ROWS.json [--into results/conformance-table.json]

Rows of ROWS.json replace the committed rows of the same (client, configuration, dtype) in
place; the others are appended in ROWS.json's order. Everything else of the committed
document (its date, environment, duration, MANIFEST hash) is kept: the partial run did not
regenerate the whole table. Deterministic; written atomically. Then
``python tools/generate_docs.py`` renders docs/conformance-table.md and the README summary.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pespec._atomic import write_atomic  # noqa: E402


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    return (str(row["client"]), str(row.get("config")), str(row["dtype"]))


def merge(committed: dict[str, Any], partial: dict[str, Any]) -> dict[str, Any]:
    """``committed`` with ``partial``'s rows spliced in (see the module docstring)."""
    if committed.get("schema") != partial.get("schema"):
        raise ValueError(f"schemas differ: {committed.get('schema')} vs {partial.get('schema')}")
    new = {_key(row): row for row in partial["rows"]}
    rows = [new.pop(_key(row), row) for row in committed["rows"]]
    rows += [row for row in partial["rows"] if _key(row) in new]
    return {**committed, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--into", type=Path, default=ROOT / "results" / "conformance-table.json")
    args = parser.parse_args(argv)
    committed = json.loads(args.into.read_text(encoding="utf-8"))
    partial = json.loads(args.rows.read_text(encoding="utf-8"))
    merged = merge(committed, partial)
    text = json.dumps(merged, indent=1, ensure_ascii=False) + "\n"
    write_atomic(args.into, text.encode("utf-8"))
    print(f"{args.into}: {len(merged['rows'])} rows ({len(partial['rows'])} from {args.rows})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
