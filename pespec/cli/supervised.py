"""The checking commands' side of the supervisor (SPEC §6.6): the request, the progress bar.

``pespec check BACKEND`` and ``pespec rope check BACKEND`` run the suite in a child process
(:mod:`pespec.supervised.supervisor`), so a backend that ends, crashes or is killed gives
NON-CONFORMANT with the cause named, never exit 0 without a report. ``--in-process`` runs it
in pespec's own process instead (a debugger's breakpoint in the backend; no supervision).
"""

from __future__ import annotations

import argparse
from typing import Any

IN_PROCESS_HELP = (
    "run the backend in pespec's own process (for a debugger); by default it runs in a "
    "supervised child process, so a backend that ends or crashes the process still gets a "
    "verdict"
)


def supervising(args: argparse.Namespace) -> bool:
    """True when this run supervises: a backend spec, no ``--in-process``, POSIX."""
    from pespec.supervised.supervisor import available

    return args.backend is not None and not getattr(args, "in_process", False) and available()


def run_checked(
    family: str,
    args: argparse.Namespace,
    options: dict[str, Any],
    *,
    bar: bool = False,
    picture_timeout: float | None = None,
) -> Any:
    """The report of ``args.backend`` run in a supervised child with the suite ``options``;
    ``bar``: show the progress bar; ``picture_timeout``: with
    ``--markdown``, the child draws the error plot (seconds per backend call)."""
    from pespec.supervised.supervisor import run_supervised

    picture = None
    if args.markdown and picture_timeout is not None:
        picture = {"markdown": str(args.markdown), "timeout": picture_timeout}
    request = {
        "family": family,
        "backend": args.backend,
        "options": options,
        "picture": picture,
        "config_text": getattr(args, "config", None),  # a client builds its module from it
        "shown": {"verbose": bool(getattr(args, "verbose", False)), "quiet": bool(args.quiet)},
    }
    if not bar:
        return run_supervised(request)
    from pespec.cli.terminal import StageLines, progress_bar

    lines = StageLines(str(args.backend), quiet=args.quiet)
    with progress_bar(quiet=args.quiet) as progress:
        task = progress.add_task(f"pespec check {args.backend}", total=None)
        name = [args.backend]

        def step(kind: str, data: Any) -> None:  # driven by the child's events
            if kind == "loaded":
                name[0] = lines.name = str(data[0])
                progress.update(task, description=f"pespec check {name[0]}", total=data[1])
            elif kind == "start":
                lines.start(str(data))
                progress.update(task, description=f"{name[0]}: {data}")
            else:
                lines.done(getattr(data, "status", None) == "failed")
                progress.advance(task)

        try:
            return run_supervised(request, step)
        finally:
            lines.finish()
