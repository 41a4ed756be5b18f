"""``pespec table``: the conformance table of the real library entry points (issue 29).

    pespec table [--family F] [--library L] [--client NAME] [--device D] [--all] [--jobs N]
                 [--timeout S]
                 [--json PATH] [--markdown PATH] [--compare OLD.json] [--list]
                 [--coverage [TABLE.json]]

Runs every core client whose libraries are installed (``--all``: the survey tier too; rows
for the others say why they did not run), writes the JSON document and its Markdown
rendering, and with ``--compare`` lists the verdicts that changed against an older table
(the older table's rows of the clients that ran). Exit 0; 1 when ``--compare`` finds a verdict
that changed for the same library versions; 2 on a usage error. ``--shard K/N`` runs one
part of the rows; ``--html``, ``--snapshot`` and ``--merge`` read tables instead of running
rows (:mod:`pespec.cli.table_page`). ``--coverage TABLE.json``
prints the coverage matrix of a written table (issue 36) without running anything: exit 1
when a declared implemented schedule has no row in it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``table`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "table",
        help="run the real library entry points (clients) and write the conformance table",
        description="Run every client (a real library entry point, pespec.clients) whose "
        "libraries are installed through its family's suite, one process per row, and write "
        "the conformance table.",
    )
    parser.add_argument(
        "--family",
        help="only the clients of this family (sinusoidal, rope, multiaxis, multiaxis-rope, "
        "fourier)",
    )
    parser.add_argument("--library", help="only the clients of this library (transformers, ...)")
    parser.add_argument("--client", help="only this client (e.g. transformers:llama)")
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        help="only the clients of this device (cuda: the GPU rows, issue 35 item 5; "
        "tools/gpu-rows runs them on a machine with a GPU)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="rows run at once (default 2)")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds one row may take (default 600)"
    )
    parser.add_argument("--json", metavar="PATH", help="write the table's JSON document")
    parser.add_argument("--markdown", metavar="PATH", help="write the table as Markdown")
    parser.add_argument(
        "--compare",
        metavar="OLD.json",
        help="list the verdicts that changed against an older table (exit 1 when one changed "
        "for the same library versions)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every tier of clients: the core set (the default, every library) and the survey "
        "(transformers' surveyed model types on their configuration defaults; minutes more)",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the clients the filters keep (every tier) and exit",
    )
    from pespec.cli import table_page  # --html, --snapshot, --merge, --shard (issue 40)

    table_page.add_options(parser)
    parser.add_argument(
        "--coverage",
        nargs="?",
        const="",
        metavar="TABLE.json",
        help="print the coverage matrix (client × declared schedule/knob → verdict, not "
        "implemented, refused, not run): of TABLE.json without running anything, or of the "
        "table this run makes (exit 1 when a declared implemented schedule has no row)",
    )
    parser.add_argument(
        "--compare-engines",
        metavar="CONFIG",
        help="only the clients that run CONFIG (transformers, engines, kernels), side by side, "
        "each against the exact definition (issue 35)",
    )
    parser.set_defaults(func=run)


def _list(clients: list[Any], config: str | None) -> int:
    """Print one line per client the filters kept (every tier; the survey's marked), only
    those that run ``config`` when one is named (``--compare-engines``)."""
    if config:
        from pespec.clients.compare_engines import compare_rows

        clients = compare_rows(clients, config)
    for client in clients:
        configs = ", ".join(client.configs)
        dtypes = "/".join(client.dtypes)
        tier = "" if client.tier == "core" else f" ({client.tier}: --all)"
        print(f"{client.name}  [{client.family}]{tier} {client.entry}  ({configs}; {dtypes})")
    return 0


def _load_old(path: str, option: str = "--compare") -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{option} {path!r} is not a readable table: {exc}") from None
    from pespec.clients.table import TABLE_SCHEMA

    if not isinstance(data, dict) or data.get("schema") != TABLE_SCHEMA:
        raise ValueError(f"{option} {path!r} is not a {TABLE_SCHEMA} document")
    return data


def _coverage(table: dict[str, Any]) -> int:
    """Print the coverage matrix of ``table``; 1 when a declared schedule has no row."""
    from pespec.clients.coverage import coverage, missing, render_coverage

    cells = coverage(table)
    print(render_coverage(cells))
    absent = missing(cells)
    if absent:
        print("declared implemented but no row: " + "; ".join(absent), file=sys.stderr)
    return 1 if absent else 0


def _compare_engines(args: argparse.Namespace, clients: list[Any]) -> tuple[list[Any], bool]:
    """Issue 35's ``--compare-engines CONFIG``: (the clients that run CONFIG, whether the view
    was already printed from ``--from TABLE.json``); ValueError on a usage error."""
    if not args.compare_engines:
        if args.from_json:  # read-only modes took it before this; a run has no use for it
            raise ValueError("--from is read with --html, --snapshot or --compare-engines CONFIG")
        return clients, False
    from pespec.clients.compare_engines import compare_rows, render_compare

    clients = compare_rows(clients, args.compare_engines)
    if not args.from_json:
        return clients, False
    try:
        rows = _load_old(args.from_json)
    except ValueError as exc:
        raise ValueError(str(exc).replace("--compare", "--from", 1)) from None
    print(render_compare(rows, args.compare_engines), end="")
    return clients, True


def run(args: argparse.Namespace) -> int:
    """``pespec table`` on parsed arguments (exit code)."""
    from pespec._atomic import check_writable
    from pespec.cli import table_page
    from pespec.clients.table import build_table, select_clients
    from pespec.clients.table_text import compare_tables, render_changes, render_markdown

    if table_page.wanted(args):
        return table_page.run(args)
    if args.coverage:  # a committed table's matrix: nothing runs (issue 36)
        try:
            return _coverage(_load_old(args.coverage, "--coverage"))
        except ValueError as exc:
            print(f"pespec table: error: {exc}", file=sys.stderr)
            return 2
    try:
        shard = table_page.shard_of(args)
        if args.jobs < 1 or args.timeout <= 0:
            raise ValueError(
                f"--jobs must be >= 1 and --timeout > 0; got {args.jobs}, {args.timeout}"
            )
        for option, path in (("--json", args.json), ("--markdown", args.markdown)):
            if path:
                check_writable(path, option)
        old = _load_old(args.compare) if args.compare else None
        clients = select_clients(
            family=args.family,
            library=args.library,
            client=args.client,
            every_tier=args.all or args.list,
            device=args.device,
        )
        if args.list:  # the clients the filters keep
            return _list(clients, args.compare_engines)
        clients, rendered = _compare_engines(args, clients)
        if rendered:
            return 0
    except ValueError as exc:
        print(f"pespec table: error: {exc}", file=sys.stderr)
        return 2

    table = build_table(
        clients, jobs=args.jobs, timeout=args.timeout, progress=_progress, shard=shard
    )
    markdown = render_markdown(table)
    if args.compare_engines:
        from pespec.clients.compare_engines import render_compare

        markdown = render_compare(table, args.compare_engines)
    _write(args, table, markdown)
    print(markdown)
    if args.coverage is not None:  # bare --coverage: the matrix of this run's table
        from pespec.clients.coverage import coverage, render_coverage

        print(render_coverage(coverage(table)))
    if old is None:
        return 0
    ran = {r["client"] for r in table["rows"]}  # compare what ran: the older may hold more
    changes = compare_tables({**old, "rows": [r for r in old["rows"] if r["client"] in ran]}, table)
    print(render_changes(changes))
    return 1 if any(c["same_versions"] for c in changes) else 0


def _progress(row: dict[str, Any]) -> None:
    """One line per finished row on standard error."""
    extra = row.get("why") or (
        f"worst ratio {row['worst_ratio']:.3g}" if row.get("worst_ratio") is not None else ""
    )
    print(
        f"{row['client']} {row['config']} {row['dtype']}: {row['verdict']} {extra}",
        file=sys.stderr,
    )


def _write(args: argparse.Namespace, table: dict[str, Any], markdown: str) -> None:
    """The --json and --markdown files, written atomically."""
    from pespec._atomic import write_atomic

    if args.json:
        write_atomic(args.json, json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    if args.markdown:
        write_atomic(args.markdown, markdown)
