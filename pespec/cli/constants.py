"""``pespec constants``: print the constant tables of SPEC Annex H (Markdown, computed with
mpmath). The command was ``pespec tables`` before issue 38; that name now exits 2 naming this
one (:data:`RENAMED`, pre-1.0: no alias)."""

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


RENAMED: dict[str, str] = {"tables": "constants"}
"""Old command name -> its new name (``pespec tables`` -> ``pespec constants``, issue 38)."""


def register(subparsers: Any) -> None:
    """Add the ``constants`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "constants", help="print the certified constant tables of SPEC Annex H as Markdown"
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
