"""``pespec golden regenerate|verify|export``: the sub-command's options only.

The actions live in :mod:`pespec.cli.golden`, imported when one runs: building the parser
(``pespec --help``, any other command) imports neither NumPy nor the fixture machinery.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _handler(name: str) -> Callable[[argparse.Namespace], int]:
    """The action ``name`` of :mod:`pespec.cli.golden`, imported on call."""

    def run(args: argparse.Namespace) -> int:
        action: Callable[[argparse.Namespace], int] = getattr(
            importlib.import_module("pespec.cli.golden"), name
        )
        return action(args)

    return run


def register(subparsers: Any) -> None:
    """Add the ``golden`` sub-command and its three actions."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "golden", help="regenerate, verify or export the golden fixtures"
    )
    actions = parser.add_subparsers(dest="golden_action", metavar="ACTION", required=True)
    source = argparse.ArgumentParser(add_help=False)
    source.add_argument(
        "--fixtures",
        type=Path,
        default=None,
        help="fixture directory (default: the shipped pespec/golden)",
    )
    regen = actions.add_parser(
        "regenerate", parents=[source], help="recompute every set with the oracle (atomic)"
    )
    regen.add_argument(
        "--check",
        action="store_true",
        help="regenerate in memory and compare byte for byte; exit 1 naming differing files",
    )
    regen.set_defaults(func=_handler("_regenerate"))
    verify = actions.add_parser(
        "verify", parents=[source], help="check MANIFEST checksums, then recompute every value"
    )
    verify.set_defaults(func=_handler("_verify"))
    export = actions.add_parser(
        "export", parents=[source], help="write the sets as .npz or .csv files into DIR"
    )
    export.add_argument("--format", choices=("npz", "csv"), required=True, dest="file_format")
    export.add_argument("directory", type=Path, metavar="DIR", help="output directory")
    export.set_defaults(func=_handler("_export"))
