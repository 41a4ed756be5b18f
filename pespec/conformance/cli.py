"""``pespec check``: run the conformance suite from the command line (SPEC §9).

    pespec check BACKEND [--level L] [--convention NAME|FILE.json] [--profile ci|dev|thorough]
        [--json PATH] [--markdown PATH]
    pespec check --from-file out.npy --d-model D [--positions 0:4096] [--base B]

Exit codes: 0 conformant, 1 non-conformant, 2 usage error or backend not loadable, 130
interrupted (Ctrl-C; the partial report is written, marked incomplete).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
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
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="print the table of every check and every failure (a failing run otherwise "
        "prints the verdict, the diagnosis and the first failure of each stage)",
    )
    group = parser.add_argument_group("checking a saved output (non-Python implementations)")
    group.add_argument("--from-file", metavar="PATH", help="output array: .npy, .npz or .csv")
    group.add_argument("--d-model", type=int, help="d_model of the saved output")
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
    return run_and_report(
        "pespec check",
        args,
        lambda: _from_file(args) if args.from_file is not None else _suite(args),
        picture=None if args.backend is None else lambda report, markdown: _error_plot(
            args, report, markdown),
    )


def _error_plot(args: argparse.Namespace, report: Any, markdown: str) -> str | None:
    """The error picture beside the Markdown report (none without matplotlib)."""
    from pespec.plot import report_error_plot

    return report_error_plot(args.backend, report.level, markdown, timeout=_timeout(args))


def run_and_report(
    prog: str,
    args: argparse.Namespace,
    compute: Callable[[], Any],
    picture: Callable[[Any, str], str | None] | None = None,
) -> int:
    """Run ``compute`` (a report), print its verdict, write ``--json``/``--markdown`` (with
    the picture ``picture(report, markdown_path)`` names, if any, embedded); the exit
    code: 0 conformant, 1 not, 2 usage error or unloadable backend, 130 interrupted (the
    partial report written). Shared by ``pespec check`` and ``pespec rope check``."""
    from pespec.conformance.backends import BackendLoadError

    try:
        report = compute()
    except KeyboardInterrupt as interrupt:  # Ctrl-C: no traceback, the partial report kept
        return _interrupted(args, getattr(interrupt, "report", None), prog)
    except (BackendLoadError, OSError, ValueError, TypeError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    _print_report(report, quiet=args.quiet, verbose=args.verbose)
    try:
        if args.json:
            report.write_json(args.json)
        if args.markdown:
            plot = None if picture is None else picture(report, args.markdown)
            report.write_markdown(args.markdown, error_plot=plot)
    except OSError as exc:  # the verdict is printed above; the report file is not written
        print(f"{prog}: error: cannot write the report: {exc}", file=sys.stderr)
        return 2
    return 0 if report.conformant else 1


def _interrupted(args: argparse.Namespace, report: Any, prog: str = "pespec check") -> int:
    """Ctrl-C: say so, write the partial report (``complete`` false) if asked; exit 130."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the write
    lines = [f"{prog}: interrupted"]
    if report is not None:
        ran = len(report.checks)
        lines[0] += f" after {ran} of {ran + len(report.not_run)} checks; no verdict"
        try:
            if args.json:
                report.write_json(args.json)
                lines.append(f"partial report (complete: false) written to {args.json}")
            if args.markdown:  # no error plot: that would call the backend again
                report.write_markdown(args.markdown)
                lines.append(f"partial report written to {args.markdown}")
        except OSError as exc:
            lines.append(f"{prog}: error: cannot write the report: {exc}")
    print("\n".join(lines), file=sys.stderr)
    return 130


def _suite(args: argparse.Namespace) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from pespec.conformance.runner import STAGES, Suite

    if args.from_file is None and (args.d_model is not None or args.positions is not None):
        raise ValueError("--d-model and --positions only apply with --from-file")
    stages = STAGES if args.stages is None else tuple(s.strip() for s in args.stages.split(","))
    timeout = _timeout(args)
    _hypothesis_storage_outside_cwd()
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
    console = Console(stderr=True)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True, disable=args.quiet) as progress:
        task = progress.add_task(f"pespec check {suite.backend.name}", total=len(planned))

        def step(check: Any, result: Any) -> None:
            if result is None:
                progress.update(task, description=f"{suite.backend.name}: {check.id}")
            else:
                progress.advance(task)

        return suite.run(step)


def _from_file(args: argparse.Namespace) -> Any:
    from pespec.conformance.checkfile import check_file

    if args.d_model is None:
        raise ValueError("--d-model is required with --from-file")
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


def _hypothesis_storage_outside_cwd() -> None:
    """Point Hypothesis's storage (its cache of constants; the suite keeps no example
    database) at the user cache folder, so ``pespec check`` leaves no ``.hypothesis/`` in
    the current folder. ``$HYPOTHESIS_STORAGE_DIRECTORY``, when set, is left to rule."""
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


def _print_report(report: Any, *, quiet: bool, verbose: bool = False) -> None:
    """The verdict on the terminal. A failing run leads with the verdict, the diagnosis and
    the first failure of each stage; ``verbose`` (or a passing run) adds the table of every
    check; ``quiet`` prints the verdict line only. JSON and Markdown keep everything."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=160)  # piped to a file or a CI log: do not squash the table
    style = "bold green" if report.conformant else "bold red"
    if quiet:
        console.print(f"[{style}]{escape(report.summary())}[/]", soft_wrap=True)
    elif verbose or not report.failed:
        _print_everything(console, report)
        console.print(f"[{style}]{escape(report.summary())}[/]", soft_wrap=True)
    else:
        _print_lead(console, report)


def _print_lead(console: Any, report: Any) -> None:
    """Verdict, diagnosis, then the first failure of each stage and how to see the rest."""
    console.print(f"[bold red]{escape(report.headline())}[/]", soft_wrap=True)
    if report.diagnosis_sentence:
        console.print(f"[bold]Diagnosis:[/] {escape(report.diagnosis_sentence)}")
    shown = []
    for stage in dict.fromkeys(c.stage for c in report.failed):
        first = next(c for c in report.failed if c.stage == stage)
        count = sum(c.stage == stage for c in report.failed)
        more = f" (1 of {count} failed {stage} checks)" if count > 1 else ""
        console.print(f"[bold red]{escape(first.id)}[/]{more}: {escape(first.message)}")
        if first.reproduction:
            console.print(f"  reproduce: {escape(first.reproduction)}", soft_wrap=True)
        shown.append(first)
    rest = len(report.failed) - len(shown)
    if rest:
        console.print(
            f"{rest} more failed check{'s' if rest > 1 else ''}: run with --verbose for the "
            "table of every check and every failure (--json and --markdown keep everything)"
        )


def _print_everything(console: Any, report: Any) -> None:
    """The table of every check, the skipped and failed ones, and the diagnosis."""
    console.print(report.rich_table())
    for result in report.checks:
        if result.status == "skipped":
            console.print(f"[yellow]{escape(result.id)}[/] skipped: {escape(result.message)}")
    for failed in report.failed:
        console.print(f"[bold red]{escape(failed.id)}[/]: {escape(failed.message)}")
        if failed.reproduction:
            console.print(f"  reproduce: {escape(failed.reproduction)}", soft_wrap=True)
    if report.diagnosis_sentence:
        console.print(f"[bold]Diagnosis:[/] {escape(report.diagnosis_sentence)}")


def escape(text: str) -> str:
    """``text`` with rich markup escaped."""
    from rich.markup import escape as rich_escape

    return str(rich_escape(text))
