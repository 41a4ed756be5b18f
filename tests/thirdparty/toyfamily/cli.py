"""``pespec check --family toy``: the toy family's check command on parsed arguments.

It takes the options every family shares (BACKEND, ``--level``, ``--profile``, ``--json``,
``--markdown``, ``--timeout``, ``--quiet``, ``--verbose``, ``--in-process``); the head counts
are ``--heads H,H,...`` (the family's own option, which ``pespec check`` adds when
``--family toy`` names it), else the backend's declared ``heads``, else the profile's. By
default the backend runs in pespec's supervised child process, which builds this family's
suite through the registry.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pespec.cli.supervised import run_checked, supervising
from pespec.cli.verdict import run_and_report
from pespec.conformance.engine import DEFAULT_TIMEOUT
from toyfamily.run import FAMILY, check

__all__ = ["run"]


def run(args: argparse.Namespace, prog: str = "pespec check") -> int:
    """The toy check: 0 conformant, 1 not, 2 usage error, 130 interrupted."""
    if args.backend is None or args.from_file is not None:
        print(f"{prog}: error: --family toy checks a BACKEND (no --from-file)", file=sys.stderr)
        return 2
    timeout = DEFAULT_TIMEOUT if args.timeout is None else float(args.timeout)
    options: dict[str, Any] = {"level": args.level, "profile": args.profile, "timeout": timeout}
    if getattr(args, "heads", None) is not None:
        options["heads"] = [int(h) for h in str(args.heads).split(",")]
    if supervising(args):
        return int(run_and_report(prog, args, lambda: run_checked(FAMILY, args, options)))
    return int(run_and_report(prog, args, lambda: check(args.backend, **options)))
