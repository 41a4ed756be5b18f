"""``pespec tables``: print the constant tables of SPEC Annex H (Markdown, computed with mpmath)."""

from __future__ import annotations

import argparse
from typing import Any

TABLES: dict[str, str] = {
    "frequencies": "frequency_table",
    "tiny": "tiny_table",
    "quoted": "quoted_values_table",
    "half-precision": "half_precision_table",
}
"""Table name -> its generator in :mod:`pespec.specblocks.tables` (imported when the command
runs); the same functions fill SPEC.md's generated blocks."""


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
    from pespec.specblocks import tables

    print("\n".join(getattr(tables, TABLES[name])() for name in names), end="")
    return 0
