"""The rich consoles pespec prints through, and the escaping of what users name.

Backend specs, file names, check ids and messages come from users: ``pe_x.py:x`` must print
as typed, not as ``pe_x.py❌`` (rich's ``:x:`` emoji code), and ``[bold]`` in a name must
not restyle the line. So every console pespec makes has emoji codes off
(:func:`console`), and every user string inside pespec's own markup goes through
:func:`escape`.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, TextIO

__all__ = ["StageLines", "console", "escape", "progress_bar"]


def console(*, stderr: bool = False, wide_when_piped: bool = False) -> Any:
    """A ``rich.console.Console`` with emoji codes off; when the output is not a terminal, no
    hard wraps, and with ``wide_when_piped`` tables 160 columns wide unless ``$COLUMNS`` is set
    (a CI log must not squash a table)."""
    from rich.console import Console

    made = Console(stderr=stderr, emoji=False)
    if made.is_terminal:
        return made
    # a pipe, a file or a CI log: lines are not hard-wrapped (a copied reproduction must
    # stay one line, issue 41); tables are laid out 160 wide
    width = 160 if wide_when_piped and "COLUMNS" not in os.environ else None
    return Console(stderr=stderr, emoji=False, width=width, soft_wrap=True)


def escape(text: object) -> str:
    """``text`` (a user's string) with rich markup escaped, to put inside pespec's markup."""
    from rich.markup import escape as rich_escape

    return str(rich_escape(str(text)))


def progress_bar(*, quiet: bool) -> Any:
    """The transient progress bar of a checking command, on standard error (``quiet``, or
    standard error not a terminal: none; a bar on a pipe leaves an empty line, issue 41).
    Its description holds the backend's name: plain text (no markup, no emoji codes)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    err = console(stderr=True)
    return Progress(*columns, console=err, transient=True, disable=quiet or not err.is_terminal)


class StageLines:
    """One line per finished stage on standard error when it is not a terminal (a CI log,
    where the progress bar does not draw): ``NAME: stage STAGE done in T s (N checks, F
    failed)``, so a piped run is never silent for longer than its slowest stage.

    ``start(check_id)`` before each check, ``done(failed)`` after it, ``finish()`` at the end
    (it is safe to call twice); ``quiet`` or a terminal: nothing is printed.
    """

    def __init__(self, name: str, *, quiet: bool, stream: TextIO | None = None) -> None:
        self.name = name
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = not quiet and not (callable(isatty) and isatty())
        self.stage: str | None = None
        self.began = 0.0
        self.checks = 0
        self.failed = 0

    def start(self, check_id: str) -> None:
        """A check of ``check_id`` (``stage:item``) begins: a new stage ends the last one."""
        stage = check_id.partition(":")[0]
        if stage != self.stage:
            self.finish()
            self.stage, self.began, self.checks, self.failed = stage, time.perf_counter(), 0, 0

    def done(self, failed: bool) -> None:
        """The current check finished (``failed``: its status is failed)."""
        self.checks += 1
        self.failed += int(failed)

    def finish(self) -> None:
        """Print the line of the stage in progress, if any."""
        if self.stage is not None and self.enabled:
            seconds = time.perf_counter() - self.began
            print(
                f"{self.name}: stage {self.stage} done in {seconds:.1f} s "
                f"({self.checks} checks, {self.failed} failed)",
                file=self.stream,
                flush=True,
            )
        self.stage = None
