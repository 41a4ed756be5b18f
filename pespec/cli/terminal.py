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
    """A ``rich.console.Console`` with emoji codes off; ``wide_when_piped``: 160 columns when
    the output is not a terminal and ``$COLUMNS`` is unset (a CI log must not squash a table)."""
    from rich.console import Console

    made = Console(stderr=stderr, emoji=False)
    if wide_when_piped and not made.is_terminal and "COLUMNS" not in os.environ:
        made = Console(stderr=stderr, emoji=False, width=160)
    return made


def escape(text: object) -> str:
    """``text`` (a user's string) with rich markup escaped, to put inside pespec's markup."""
    from rich.markup import escape as rich_escape

    return str(rich_escape(str(text)))


def progress_bar(*, quiet: bool) -> Any:
    """The transient progress bar of a checking command, on standard error (``quiet``: none).
    Its description holds the backend's name: plain text (no markup, no emoji codes)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    return Progress(*columns, console=console(stderr=True), transient=True, disable=quiet)
