"""``pespec table`` options that work on tables already written (issue 40): the page, history
snapshots, and merging parts; ``--shard`` is parsed here and applied to a run.

    pespec table --html DIR [--from TABLE.json] [--history FOLDER]
    pespec table --snapshot FOLDER [--from TABLE.json] [--tag TAG]
    pespec table --merge PART.json... --json OUT [--markdown OUT.md]
    pespec table --shard K/N --json PART.json ...      (a run of one part of the rows)

Nothing here runs a row: ``--html``, ``--snapshot`` and ``--merge`` read JSON documents.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

COMMITTED = "results/conformance-table.json"
HISTORY = "results/history"


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add the page, history, shard and merge options to ``pespec table``."""
    parser.add_argument(
        "--html", metavar="DIR", help="write the table as a page, DIR/index.html (no row is run)"
    )
    parser.add_argument(
        "--from",
        dest="from_json",
        metavar="TABLE.json",
        help=f"the table --html/--snapshot read (default {COMMITTED})",
    )
    parser.add_argument(
        "--history",
        metavar="FOLDER",
        help=f"the snapshots the page's history shows (default {HISTORY} when it exists)",
    )
    parser.add_argument(
        "--snapshot", metavar="FOLDER", help="write a dated snapshot of the table into FOLDER"
    )
    parser.add_argument("--tag", default="run", help="the snapshot's name after its date")
    parser.add_argument(
        "--shard", metavar="K/N", help="run only part K of N of the rows (merge with --merge)"
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        metavar="PART.json",
        help="assemble one table from parts (--shard runs, other machines) into --json OUT",
    )


def wanted(args: argparse.Namespace) -> bool:
    """Whether the command reads tables instead of running rows."""
    return bool(args.html or args.snapshot or args.merge)


def shard_of(args: argparse.Namespace) -> tuple[int, int] | None:
    """The ``--shard`` (K, N), None when not given (ValueError when malformed)."""
    from pespec.clients.table_parts import parse_shard

    return None if args.shard is None else parse_shard(args.shard)


def run(args: argparse.Namespace) -> int:
    """``--html`` / ``--snapshot`` / ``--merge`` (exit 0; 2 on a usage error)."""
    try:
        _refuse_run_options(args)
        if args.merge:
            return _merge(args)
        from pespec.tablepage import load_table

        if args.from_json is None and not Path(COMMITTED).is_file():
            raise ValueError(
                f"no --from TABLE.json given and {COMMITTED} is not here: run in a pespec "
                "checkout, or name the table (pespec table --json TABLE.json writes one)"
            )
        table = load_table(args.from_json or COMMITTED)
        if args.snapshot:
            _snapshot(args, table)
        if args.html:
            _page(args, table)
    except ValueError as exc:
        print(f"pespec table: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _refuse_run_options(args: argparse.Namespace) -> None:
    """These modes read tables: options of a run would be ignored, so they are refused."""
    if args.shard:
        raise ValueError(
            "--shard runs part of the rows; it does not go with --html, --snapshot or --merge"
        )
    if args.json and not args.merge:
        raise ValueError(
            "--html and --snapshot read a table (--from TABLE.json) and run no row: run "
            "`pespec table --json TABLE.json` first, then `pespec table --html DIR --from "
            "TABLE.json`"
        )
    if args.merge and (args.html or args.snapshot or args.from_json):
        raise ValueError(
            "--merge writes --json OUT; make the page from OUT afterwards "
            "(pespec table --html DIR --from OUT)"
        )


def _page(args: argparse.Namespace, table: dict[str, Any]) -> None:
    from pespec._atomic import check_writable
    from pespec.tablepage import write_page
    from pespec.tablepage.history import load_history

    check_writable(Path(args.html) / "index.html", "--html")
    folder = args.history or (HISTORY if Path(HISTORY).is_dir() else None)
    if args.history and not Path(args.history).is_dir():
        raise ValueError(f"--history {args.history!r} is not a folder")
    snapshots = load_history(folder) if folder else []
    path = write_page(table, args.html, snapshots)
    print(
        f"wrote {path} ({path.stat().st_size} bytes, {len(table['rows'])} rows, "
        f"{len(snapshots)} snapshots)"
    )


def _snapshot(args: argparse.Namespace, table: dict[str, Any]) -> None:
    from datetime import datetime, timezone

    from pespec.tablepage.history import snapshot_of, write_snapshot

    provenance = {
        "tool": "pespec table --snapshot",
        "table": str(args.from_json or COMMITTED),
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    path = write_snapshot(args.snapshot, snapshot_of(table, args.tag, provenance))
    print(f"wrote {path}")


def _merge(args: argparse.Namespace) -> int:
    from pespec._atomic import check_writable, write_atomic
    from pespec.clients.table_parts import merge_tables
    from pespec.tablepage import load_table

    if not args.json:
        raise ValueError("--merge needs --json OUT (where the merged table goes)")
    check_writable(args.json, "--json")
    parts = [(path, load_table(path, "--merge")) for path in args.merge]
    table = merge_tables(parts, order=_catalog_order())
    write_atomic(args.json, json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    if args.markdown:
        from pespec.clients.table_text import render_markdown

        write_atomic(args.markdown, render_markdown(table))
    print(f"merged {len(parts)} parts into {args.json}: {len(table['rows'])} rows")
    return 0


def _catalog_order() -> list[tuple[str, str, str]]:
    """Every row the catalog plans, in the order one run writes them."""
    from pespec.clients.catalog import all_clients
    from pespec.clients.table import planned_rows

    return [(r["client"], r["config"], r["dtype"]) for r in planned_rows(all_clients().values())]
