"""``pespec check``: run the conformance suite from the command line (SPEC §9).

    pespec check BACKEND [--level L] [--convention NAME|FILE.json] [--profile ci|dev|thorough]
        [--json PATH] [--markdown PATH]
    pespec check --from-file out.npy --d-model D [--positions 0:4096] [--base B]

Exit codes: 0 conformant, 1 non-conformant, 2 usage error or backend not loadable.
"""

from __future__ import annotations

import argparse
import os
import sys
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
    from pespec.conformance.backends import BackendLoadError

    if (args.backend is None) == (args.from_file is None):
        print("pespec check: error: give exactly one of BACKEND or --from-file", file=sys.stderr)
        return 2
    try:
        if args.from_file is not None:
            report = _from_file(args)
        else:
            report = _suite(args)
    except BackendLoadError as exc:
        print(f"pespec check: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, TypeError) as exc:
        print(f"pespec check: error: {exc}", file=sys.stderr)
        return 2
    _print_report(report, quiet=args.quiet)
    try:
        if args.json:
            report.write_json(args.json)
        if args.markdown:
            report.write_markdown(args.markdown, backend=args.backend)
    except OSError as exc:  # the verdict is printed above; the report file is not written
        print(f"pespec check: error: cannot write the report: {exc}", file=sys.stderr)
        return 2
    return 0 if report.conformant else 1


def _suite(args: argparse.Namespace) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from pespec.conformance.runner import DEFAULT_TIMEOUT, STAGES, Suite

    if args.from_file is None and (args.d_model is not None or args.positions is not None):
        raise ValueError("--d-model and --positions only apply with --from-file")
    stages = STAGES if args.stages is None else tuple(s.strip() for s in args.stages.split(","))
    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
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
    import numpy as np

    from pespec.conformance.fromfile import check_output, load_output, parse_positions
    from pespec.properties.base import parse_level

    if args.d_model is None:
        raise ValueError("--d-model is required with --from-file")
    if args.profile is not None or args.stages is not None or args.examples is not None:
        raise ValueError("--profile, --stages and --examples do not apply to --from-file")
    if args.convention is not None:
        raise ValueError("--convention does not apply to --from-file (canonical only)")
    text_dtype = None if args.level is None else parse_level(args.level).output_dtype
    output, stored = load_output(args.from_file, key=args.key, text_dtype=text_dtype)
    if args.positions is not None:
        positions = parse_positions(args.positions)
    elif stored is not None:
        positions = stored
    else:
        positions = np.arange(output.shape[0] if output.ndim else 0, dtype=np.int64)
    report = check_output(
        output, positions, args.d_model, args.base, level=args.level, name=args.from_file
    )
    if args.level is None and not str(args.from_file).lower().endswith((".npy", ".npz")):
        for result in report.failed:  # text records no dtype: say which one was assumed
            if result.stage in ("reference", "golden"):
                result.message += (
                    "; the text file was read as float64 (it records no dtype): give --level "
                    "float32, float16 or bfloat16 for an output computed in that dtype"
                )
    return report


def _print_report(report: Any, *, quiet: bool) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=160)  # piped to a file or a CI log: do not squash the table
    if not quiet:
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
    style = "bold green" if report.conformant else "bold red"
    console.print(f"[{style}]{escape(report.summary())}[/]", soft_wrap=True)
