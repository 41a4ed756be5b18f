"""The rich consoles pespec prints through, and the escaping of what users name.

Backend specs, file names, check ids and messages come from users: ``pe_x.py:x`` must print
as typed, not as ``pe_x.py❌`` (rich's ``:x:`` emoji code), and ``[bold]`` in a name must
not restyle the line. So every console pespec makes has emoji codes off
(:func:`console`), and every user string inside pespec's own markup goes through
:func:`escape`.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["console", "escape", "progress_bar"]


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
