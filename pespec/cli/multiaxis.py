"""``pespec check --family multiaxis BACKEND --config PRESET``: the check command.

It takes the options every family shares (``--level``, ``--profile``, ``--json``,
``--markdown``, ``--timeout``, ``--quiet``, ``--verbose``, ``--in-process``) and ``--config``
(a preset of :data:`pespec.multiaxis.sinusoidal.presets.PRESETS` or a JSON file); ``--from-file
PATH``
[``--positions FILE``] checks a saved output instead (:mod:`pespec.multiaxis.sinusoidal.fromfile`).
By
default the backend runs in pespec's supervised child process, which builds this family's
suite through the registry.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from pespec.cli.family_check import run_backend, shared_options
from pespec.cli.verdict import run_and_report

__all__ = ["run", "run_family"]


def run(args: argparse.Namespace, prog: str = "pespec check") -> int:
    """The multi-axis check: 0 conformant, 1 not, 2 usage error, 130 interrupted."""
    return run_family(args, prog, "pespec.multiaxis.sinusoidal", "multiaxis")


def run_family(args: argparse.Namespace, prog: str, package: str, family: str) -> int:
    """The check of a multi-axis family whose modules are ``package``.presets (resolve_config),
    ``.run`` (FAMILY, check) and ``.fromfile`` (check_file): the sin-cos family's and the
    rotary one's (:mod:`pespec.cli.mrope`) command line is the same."""
    resolve_config = importlib.import_module(f"{package}.presets").resolve_config
    run_module = importlib.import_module(f"{package}.run")

    if (args.backend is None) == (args.from_file is None):
        print(f"{prog}: error: give exactly one of BACKEND or --from-file", file=sys.stderr)
        return 2
    config = getattr(args, "config", None)
    if config is None:
        print(f"{prog}: error: --family {family} needs --config PRESET|FILE.json", file=sys.stderr)
        return 2
    try:
        resolve_config(config)
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: --config: {exc}", file=sys.stderr)
        return 2
    if args.from_file is not None:
        check_file = importlib.import_module(f"{package}.fromfile").check_file

        leading = getattr(args, "leading_rows", None)
        extra = {} if leading is None else {"leading_rows": leading}

        def from_file() -> Any:
            return check_file(
                args.from_file,
                config,
                positions=getattr(args, "positions", None),
                level=args.level,
                key=getattr(args, "key", None),
                **extra,
            )

        return int(run_and_report(prog, args, from_file))
    if getattr(args, "positions", None) is not None:
        print(f"{prog}: error: --positions only applies with --from-file", file=sys.stderr)
        return 2
    options = {"config": config, **shared_options(args)}
    from pespec.clients.resolve import resolve  # a client:NAME@DTYPE spec (pespec table)

    backend = lambda: resolve(args.backend, config)  # noqa: E731
    return run_backend(prog, args, run_module.FAMILY, options, run_module.check, backend)
