"""``pespec check``: run the conformance suite from the command line (SPEC §6).

    pespec check BACKEND [--level L] [--convention NAME|FILE.json] [--profile ci|dev|thorough]
        [--json PATH] [--markdown PATH]
    pespec check --from-file out.npy [--d-model D] [--positions 0:4096] [--base B]

Exit codes: 0 conformant, 1 non-conformant, 2 usage error or backend not loadable, 130
interrupted (Ctrl-C; the partial report is written, marked incomplete).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``check`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check",
        help="run the conformance suite on a backend (exit 0 conformant, 1 not, 2 error)",
        description="Run the conformance suite on BACKEND: a built-in name (numpy, "
        "numpy-float32, numpy-float16, numpy-bfloat16, torch[-DTYPE][:DEVICE], jax[-DTYPE]), "
        "package.module:attr, file.py:attr, or a name in the entry-point group "
        "pespec.backends. Exit 0 conformant, 1 non-conformant, 2 usage error.",
    )
    parser.add_argument("backend", nargs="?", help="backend spec (omit with --from-file)")
    parser.add_argument(
        "--level", help="level to test, e.g. float16 or float16@float64 (default: from output)"
    )
    parser.add_argument(
        "--convention",
        metavar="NAME|FILE.json",
        default=None,
        help="judge against this convention: a preset name (canonical, whisper, marian, "
        "fairseq, flux, ...) or a JSON file of Convention.to_dict() (default: the backend's "
        "declared convention, else canonical)",
    )
    parser.add_argument(
        "--profile",
        choices=("ci", "dev", "thorough"),
        default=None,
        help="ci (default, derandomized), dev, or thorough (full 131072x4096)",
    )
    from pespec.conformance.report import REPORT_SCHEMA_VERSION

    parser.add_argument(
        "--json", metavar="PATH", help=f"write the JSON report (schema {REPORT_SCHEMA_VERSION})"
    )
    parser.add_argument("--markdown", metavar="PATH", help="write the Markdown report")
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds one backend call may take"
    )
    parser.add_argument(
        "--stages",
        default=None,
        help="comma-separated subset of contract,golden,property,large (default: all)",
    )
    parser.add_argument(
        "--examples", type=int, default=None, help="Hypothesis examples per property (override)"
    )
    parser.add_argument(
        "--no-shrink", action="store_true", help="do not shrink failing property examples"
    )
    parser.add_argument("--quiet", action="store_true", help="print only the verdict line")
    from pespec.cli.supervised import IN_PROCESS_HELP

    parser.add_argument("--in-process", action="store_true", help=IN_PROCESS_HELP)
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="print the table of every check and every failure (a failing run otherwise "
        "prints the verdict, the diagnosis and the first failure of each stage)",
    )
    group = parser.add_argument_group("checking a saved output (non-Python implementations)")
    group.add_argument("--from-file", metavar="PATH", help="output array: .npy, .npz or .csv")
    group.add_argument(
        "--d-model", type=int, help="d_model of the saved output (default: its column count)"
    )
    group.add_argument(
        "--positions", help="START:STOP, a,b,c or a .npy/.csv file (default: 0..n-1)"
    )
    group.add_argument("--base", type=float, default=10000.0, help="frequency base (> 1)")
    group.add_argument("--key", help="array name inside an .npz file")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from pespec._atomic import check_writable

    if (args.backend is None) == (args.from_file is None):
        print("pespec check: error: give exactly one of BACKEND or --from-file", file=sys.stderr)
        return 2
    try:  # a report path that cannot be written is a usage error, found before the run
        for option, path in (("--json", args.json), ("--markdown", args.markdown)):
            if path:
                check_writable(path, option)
    except ValueError as exc:
        print(f"pespec check: error: {exc}", file=sys.stderr)
        return 2
    from pespec.cli.verdict import run_and_report

    return run_and_report(
        "pespec check",
        args,
        lambda: _from_file(args) if args.from_file is not None else _suite(args),
        picture=None if args.backend is None else lambda report, markdown: _error_plot(
            args, report, markdown),
    )


def _error_plot(args: argparse.Namespace, report: Any, markdown: str) -> str | None:
    """The error picture beside the Markdown report (none without matplotlib); a supervised
    run's child drew it already (``report.error_plot``)."""
    from pespec.cli.supervised import supervising
    from pespec.plot import report_error_plot

    if supervising(args):
        return getattr(report, "error_plot", None)
    return report_error_plot(args.backend, report.level, markdown, timeout=_timeout(args))


def _suite(args: argparse.Namespace) -> Any:
    from pespec.cli.terminal import progress_bar
    from pespec.conformance.runner import STAGES, Suite

    if args.from_file is None and (args.d_model is not None or args.positions is not None):
        raise ValueError("--d-model and --positions only apply with --from-file")
    stages = STAGES if args.stages is None else tuple(s.strip() for s in args.stages.split(","))
    timeout = _timeout(args)
    hypothesis_storage_outside_cwd()
    from pespec.cli.supervised import run_checked, supervising

    if supervising(args):  # the backend runs in a watched child process (SPEC §6.6)
        options = {"level": args.level, "profile": args.profile, "timeout": timeout,
                   "stages": list(stages), "examples": args.examples,
                   "shrink": not args.no_shrink, "convention": args.convention}
        return run_checked("sinusoidal", args, options, bar=True, picture_timeout=timeout)
    suite = Suite(
        args.backend,
        level=args.level,
        profile=args.profile,
        timeout=timeout,
        stages=stages,
        examples=args.examples,
        shrink=not args.no_shrink,
        convention=args.convention,
    )
    planned = suite.plan()
    with progress_bar(quiet=args.quiet) as progress:
        task = progress.add_task(f"pespec check {suite.backend.name}", total=len(planned))

        def step(check: Any, result: Any) -> None:
            if result is None:
                progress.update(task, description=f"{suite.backend.name}: {check.id}")
            else:
                progress.advance(task)

        return suite.run(step)


def _from_file(args: argparse.Namespace) -> Any:
    from pespec.conformance.checkfile import check_file

    if args.profile is not None or args.stages is not None or args.examples is not None:
        raise ValueError("--profile, --stages and --examples do not apply to --from-file")
    if args.convention is not None:
        raise ValueError("--convention does not apply to --from-file (canonical only)")
    return check_file(
        args.from_file,
        args.d_model,
        positions=args.positions,
        base=args.base,
        level=args.level,
        key=args.key,
    )


def _timeout(args: argparse.Namespace) -> float:
    from pespec.conformance.runner import DEFAULT_TIMEOUT

    return DEFAULT_TIMEOUT if args.timeout is None else float(args.timeout)


def hypothesis_storage_outside_cwd() -> None:
    """Point Hypothesis's storage (its cache of constants; the suite keeps no example
    database) at the user cache folder, so ``pespec check`` leaves no ``.hypothesis/`` in
    the current folder (the pytest plugin does the same). ``$HYPOTHESIS_STORAGE_DIRECTORY``,
    when set, is left to rule."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(user_cache_dir() / "hypothesis")


def user_cache_dir() -> Path:
    """pespec's folder in the user cache: ``$XDG_CACHE_HOME/pespec`` (else ``~/.cache``),
    ``~/Library/Caches/pespec`` on macOS, ``%LOCALAPPDATA%\\pespec\\Cache`` on Windows."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "pespec" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "pespec"
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "pespec"
