"""``pespec tables``: print the constant tables of SPEC Annex H (Markdown, computed with mpmath)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from pespec import tables

TABLES: dict[str, Callable[[], str]] = {
    "frequencies": tables.frequency_table,
    "tiny": tables.tiny_table,
    "quoted": tables.quoted_table,
    "half-precision": tables.half_precision_table,
}
"""Table name -> generator; the same functions fill SPEC.md's generated blocks."""


def register(subparsers: Any) -> None:
    """Add the ``tables`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "tables", help="print the certified constant tables of SPEC Annex H as Markdown"
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"tables to print (default: all): {', '.join(TABLES)}",
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    names = args.names or list(TABLES)
    unknown = [name for name in names if name not in TABLES]
    if unknown:
        raise ValueError(f"table NAME must be one of {sorted(TABLES)}; got {unknown[0]!r}")
    print("\n".join(TABLES[name]() for name in names), end="")
    return 0
