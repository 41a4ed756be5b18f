"""``pespec check --family multiaxis-rope BACKEND --config PRESET``: the check command.

It takes the options every family shares (``--level``, ``--profile``, ``--json``,
``--markdown``, ``--timeout``, ``--quiet``, ``--verbose``, ``--in-process``) and ``--config``
(a preset of :data:`pespec.mrope.presets.PRESETS` or a JSON file); ``--from-file PATH``
[``--positions FILE``] checks a saved output instead (:mod:`pespec.mrope.fromfile`). By
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

__all__ = ["run"]


def run(args: argparse.Namespace, prog: str = "pespec check") -> int:
    """The multi-axis rotary check: 0 conformant, 1 not, 2 usage error, 130 interrupted."""
    from pespec.mrope.presets import resolve_config
    from pespec.mrope.run import FAMILY, check

    if (args.backend is None) == (args.from_file is None):
        print(f"{prog}: error: give exactly one of BACKEND or --from-file", file=sys.stderr)
        return 2
    config = getattr(args, "config", None)
    if config is None:
        print(
            f"{prog}: error: --family multiaxis-rope needs --config PRESET|FILE.json",
            file=sys.stderr,
        )
        return 2
    try:
        resolve_config(config)
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: --config: {exc}", file=sys.stderr)
        return 2
    if args.from_file is not None:
        from pespec.cli.mrope_file import run_file

        return run_file(args, prog, config)
    if getattr(args, "positions", None) is not None:
        print(f"{prog}: error: --positions only applies with --from-file", file=sys.stderr)
        return 2
    timeout = DEFAULT_TIMEOUT if args.timeout is None else float(args.timeout)
    options: dict[str, Any] = {
        "config": config,
        "level": args.level,
        "profile": args.profile,
        "timeout": timeout,
    }
    if supervising(args):
        return int(run_and_report(prog, args, lambda: run_checked(FAMILY, args, options)))
    from pespec.clients.resolve import resolve  # a client:NAME@DTYPE spec (pespec table)

    return int(run_and_report(prog, args, lambda: check(resolve(args.backend, config), **options)))
