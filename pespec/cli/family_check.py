"""One check command path for every family (issue 38): what ``pespec check --family NAME``
does for any family once its own options are read.

:func:`report_paths_writable` refuses a ``--json``/``--markdown`` path that cannot be
written, before the run (exit 2; :func:`pespec.cli.check` calls it for every family);
:func:`shared_options` turns the options every family shares into the suite's keywords;
:func:`run_backend` runs the check supervised (the default) or in process and reports the
verdict; :func:`run` is the whole command of a family whose own options are suite keywords
as given (a third-party family registers ``command="pespec.cli.family_check:run"``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["report_paths_writable", "run", "run_backend", "shared_options"]


def report_paths_writable(args: argparse.Namespace, prog: str) -> bool:
    """Whether every report path given can be written; else says why on stderr."""
    from pespec._atomic import check_writable

    try:
        for option, path in (("--json", args.json), ("--markdown", args.markdown)):
            if path:
                check_writable(path, option)
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return False
    return True


def shared_options(args: argparse.Namespace) -> dict[str, Any]:
    """The suite keywords of the options every family shares: level, profile, timeout."""
    from pespec.conformance.engine import DEFAULT_TIMEOUT

    timeout = DEFAULT_TIMEOUT if args.timeout is None else float(args.timeout)
    return {"level": args.level, "profile": args.profile, "timeout": timeout}


def run_backend(
    prog: str,
    args: argparse.Namespace,
    family: str,
    options: dict[str, Any],
    check: Callable[..., Any],
    resolve: Callable[[], Any] | None = None,
) -> int:
    """Check ``args.backend`` (in process: ``resolve()`` when given, e.g. a client spec) with
    ``options``: in pespec's supervised child process unless ``--in-process``; 0 conformant,
    1 not, 2 usage error."""
    from pespec.cli.supervised import run_checked, supervising
    from pespec.cli.verdict import run_and_report

    if supervising(args):
        return int(run_and_report(prog, args, lambda: run_checked(family, args, options)))
    return int(
        run_and_report(
            prog, args, lambda: check(args.backend if resolve is None else resolve(), **options)
        )
    )


def run(args: argparse.Namespace, prog: str = "pespec check") -> int:
    """The check command of a family whose own options are suite keywords (no --from-file)."""
    from pespec.families import get_family

    family = get_family(args.family)
    if args.backend is None or getattr(args, "from_file", None) is not None:
        print(
            f"{prog}: error: --family {family.name} checks a BACKEND (no --from-file)",
            file=sys.stderr,
        )
        return 2
    options = shared_options(args)
    for dest in sorted(family.option_dests):
        if getattr(args, dest, None) is not None:
            options[dest] = getattr(args, dest)
    return run_backend(prog, args, family.name, options, family.load("check"))
