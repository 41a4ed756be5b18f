"""``pespec check --family multiaxis-rope --from-file PATH``: the saved-output route.

Usage errors (a file or positions that do not fit the configuration, a level the file's
dtype cannot claim) exit 2 with one line; the verdict exits 0 or 1.
"""

from __future__ import annotations

import argparse
from typing import Any

from pespec.cli.verdict import run_and_report

__all__ = ["run_file"]


def run_file(args: argparse.Namespace, prog: str, config: Any) -> int:
    """Check ``args.from_file`` for ``config`` (:func:`pespec.mrope.fromfile.check_file`)."""
    from pespec.mrope.fromfile import check_file

    def from_file() -> Any:
        return check_file(
            args.from_file,
            config,
            positions=getattr(args, "positions", None),
            level=args.level,
            key=getattr(args, "key", None),
        )

    return int(run_and_report(prog, args, from_file))
