"""The ``pespec`` command line: one module of this package per sub-command.

Every entry of :data:`COMMANDS` names a module that defines
``register(subparsers) -> None``; the sub-parser it adds must set
``func=handler`` where ``handler(args) -> int`` returns the exit code.
Exit codes: 0 success/conformant, 1 failure/non-conformant, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import threading
from collections.abc import Sequence

from pespec._version import SPEC_VERSION, __version__

COMMANDS: tuple[str, ...] = (
    "pespec.cli.encode",  # pespec encode
    "pespec.cli.golden_command",  # pespec golden regenerate|verify|export
    "pespec.cli.check",  # pespec check
    "pespec.cli.conventions",  # pespec conventions
    "pespec.cli.rope",  # pespec rope check
    "pespec.cli.plot",  # pespec plot encoding|error
    "pespec.cli.constants",  # pespec constants
    "pespec.cli.table",  # pespec table (the conformance table of real libraries)
)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every available sub-command registered; ``argv`` (the
    command line to parse) lets ``pespec check --family NAME`` of a family another package
    adds take that family's own options."""
    parser = argparse.ArgumentParser(
        prog="pespec",
        description="Reference specification and conformance suite for sinusoidal "
        "positional encoding.",
    )
    parser.add_argument(
        "--version", action="version", version=f"pespec {__version__} (spec {SPEC_VERSION})"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMANDS:
        if importlib.util.find_spec(module_name) is None:
            continue  # a sub-command whose module is not part of this build
        module = importlib.import_module(module_name)
        module.register(subparsers)
    if "check" in subparsers.choices:
        from pespec.cli.check import add_requested_family

        add_requested_family(subparsers.choices["check"], sys.argv[1:] if argv is None else argv)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pespec`` console script; returns the exit code.

    ``argv`` None means this process's own command line (the console script, ``python -m
    pespec``): then, when a backend thread is still alive at the end, the process exits at
    once (:func:`_exit_past_backend_threads`) instead of returning.
    """
    code = _main(argv)
    if argv is None:
        _exit_past_backend_threads(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    from pespec.cli.constants import RENAMED

    words = list(sys.argv[1:] if argv is None else argv)
    if words and words[0] in RENAMED:  # pre-1.0: a renamed command keeps no alias
        print(
            f"pespec: error: the command {words[0]!r} is now {RENAMED[words[0]]!r}: "
            f"pespec {RENAMED[words[0]]} ...",
            file=sys.stderr,
        )
        return 2
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    handler = getattr(args, "func", None)
    if handler is None:  # no sub-command: a usage error, told briefly (--help has the rest)
        parser.print_usage(sys.stderr)
        commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        names = ", ".join(str(name) for action in commands for name in action.choices or ())
        print(f"pespec: error: give a command ({names}); pespec --help says more", file=sys.stderr)
        return 2
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        print("pespec: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError) as exc:
        print(f"pespec: error: {exc}", file=sys.stderr)
        return 2


def _exit_past_backend_threads(code: int) -> None:
    """Exit now with ``code`` when a thread besides the main one is still alive.

    A backend call that timed out or was interrupted keeps running in its daemon worker
    thread; finalising the interpreter under it can abort the process (C++ runtimes such as
    torch's: "terminate called without an active exception", SIGABRT), and a non-daemon
    thread a backend started would keep it waiting. Reports are already written (atomically);
    the standard streams are flushed first.
    """
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if any(thread.is_alive() for thread in others):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
