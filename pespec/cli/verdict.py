"""The tail every checking command shares: run, print the verdict, write the reports.

Used by ``pespec check`` (:mod:`pespec.cli.check`) and ``pespec rope check``
(:mod:`pespec.cli.rope`). Exit codes: 0 conformant, 1 not, 2 usage error or unloadable
backend, 3 not judged (a partial run: nothing failed, no golden or reference check ran),
130 interrupted (the partial report written, marked incomplete).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any


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
    from pespec.conformance.guard import BackendLoadError

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
    return exit_code(report)


NOT_JUDGED_EXIT = 3
"""The exit code of a partial run that cannot be judged (``--stages contract``: nothing
failed, no golden or reference check ran)."""


def exit_code(report: Any) -> int:
    """0 conformant, 1 non-conformant, 3 not judged (a partial run without a failure)."""
    if report.conformant:
        return 0
    return 1 if report.is_judged else NOT_JUDGED_EXIT


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


def _print_report(report: Any, *, quiet: bool, verbose: bool = False) -> None:
    """The verdict on the terminal. A failing run leads with the verdict, the diagnosis and
    the first failure of each stage; ``verbose`` (or a passing run) adds the table of every
    check; ``quiet`` prints the verdict line only. JSON and Markdown keep everything."""
    from pespec.cli.terminal import console as make_console

    console = make_console(wide_when_piped=True)  # emoji codes off: `pe_x.py:x` prints as typed
    style = "bold green" if report.conformant else "bold red"
    if quiet:
        console.print(f"[{style}]{escape(_quiet_line(report))}[/]", soft_wrap=True)
    elif verbose or not report.failed:
        _print_everything(console, report)
        console.print(f"[{style}]{escape(report.summary())}[/]", soft_wrap=True)
    else:
        _print_lead(console, report)


def _quiet_line(report: Any) -> str:
    """The verdict line of ``--quiet``: the summary, with the diagnosis sentence in every
    family (the rotary summary carries it already; issue 41)."""
    text = str(report.summary())
    sentence = report.diagnosis_sentence
    if sentence and not report.conformant and not report.diagnosis_in_summary:
        text += f"; diagnosis: {sentence}"
    return text


def _print_lead(console: Any, report: Any) -> None:
    """Verdict, diagnosis, then the first failure of each stage and how to see the rest."""
    console.print(f"[bold red]{escape(report.headline())}[/]", soft_wrap=True)
    if report.diagnosis_sentence:
        console.print(f"[bold]Diagnosis:[/] {escape(report.diagnosis_sentence)}")
        _print_table(console, report)
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
    if report.diagnosis_sentence and report.diagnosis_sentence not in report.summary():
        console.print(f"[bold]Diagnosis:[/] {escape(report.diagnosis_sentence)}")
    _print_table(console, report)


def _print_table(console: Any, report: Any) -> None:
    """The diagnosis's first deviating rows of measured vs declared (SPEC Annex D.9)."""
    from pespec.conformance.measured_table import terminal_lines

    for line in terminal_lines(report.diagnosis):
        console.print(escape(line), soft_wrap=True)


def escape(text: str) -> str:
    """``text`` with rich markup escaped (:func:`pespec.cli.terminal.escape`)."""
    from pespec.cli.terminal import escape as escape_markup

    return escape_markup(text)
