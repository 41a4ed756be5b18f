"""What the front ends need of one family (:class:`Family`), the engine's type for the
registry (:mod:`pespec.families`) and for each family's ``family.py``: its entry names as
``module:attr`` strings imported on first use, its fixtures and report hooks, and as data
the ``pespec check`` options only it takes (:class:`Option`, :func:`option`). It names no
family.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

__all__ = ["CHECK_COMMAND", "Family", "Option", "option"]

CHECK_COMMAND = "pespec.cli.family_check:run"
"""pespec's own check command, a family's by default (its options become keywords)."""


@dataclass(frozen=True)
class Option:
    """One command-line option of a family: argparse's flags and keyword arguments."""

    flags: tuple[str, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()

    @property
    def help(self) -> str:
        """The option's help text (empty when it has none)."""
        return str(dict(self.kwargs).get("help", ""))

    @property
    def dest(self) -> str:
        """The attribute argparse stores it under (``--max-rows`` -> ``max_rows``)."""
        return self.flags[0].lstrip("-").replace("-", "_")

    def add_to(self, parser: Any) -> None:
        """Add this option to an argparse parser or argument group."""
        parser.add_argument(*self.flags, **dict(self.kwargs))


def option(*flags: str, **kwargs: Any) -> Option:
    """An :class:`Option` (flags and argparse keyword arguments)."""
    return Option(tuple(flags), tuple(kwargs.items()))


@dataclass(frozen=True)
class Family:
    """What the front ends need of one family; every callable is a ``module:attr`` string
    (``attr`` may be dotted: ``module:Class.method``)."""

    name: str
    summary: str
    suite: str = ""
    check: str = ""
    load_backend: str = ""
    check_file: str = CHECK_COMMAND
    """``run(args, prog) -> int`` on ``--from-file`` (default: pespec's command, which refuses
    it for a family without one)."""
    command: str = CHECK_COMMAND
    """``run(args, prog) -> int``: the check command on parsed arguments (exit code)."""
    options: tuple[Option, ...] = ()
    fixtures: str | None = None
    """The module whose import registers the family's golden-fixture format handler
    (:mod:`pespec.conformance.fixtures`); None: the family ships no fixtures."""
    exports: tuple[tuple[str, str], ...] = ()
    """(name, ``module:attr``) of the names the engine's package ``pespec.conformance`` has
    always exported for this family (only the default family's are read there): its lazy
    facade resolves them here, so the engine's package names no family."""
    report: str | None = None
    """The module of the family's report hooks: ``rebuilt(report, data)`` (a report read back
    from its JSON ``data``) and ``refresh(report)`` (its data changed); None: the family's
    reports need neither (:mod:`pespec.supervised.report_load`)."""
    run: str | None = None
    """``module:Run``, an :class:`~pespec.conformance.chores.EngineRun` whose ``suite``,
    ``check`` and ``load`` are the family's (when those are not given)."""

    def load(self, role: str) -> Any:
        """The object of ``role`` (``suite``, ``check``, ``load_backend``, ``check_file``,
        ``command``), imported now."""
        if role not in ("suite", "check", "load_backend", "check_file", "command"):
            raise ValueError(
                f"role must be suite, check, load_backend, check_file or command; got {role!r}"
            )
        module, _, attr = str(getattr(self, role)).partition(":")
        found: Any = importlib.import_module(module)
        for name in attr.split("."):
            found = getattr(found, name)
        return found

    def export(self, name: str) -> Any:
        """The object this family exports as ``pespec.conformance.<name>`` (see
        :attr:`exports`), imported now; AttributeError if it exports no such name."""
        target = dict(self.exports).get(name)
        if target is None:
            raise AttributeError(f"module 'pespec.conformance' has no attribute {name!r}")
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def report_hook(self, hook: str) -> Any:
        """The report hook ``hook`` (``rebuilt`` or ``refresh``) of :attr:`report`, imported
        now, or None when the family has no report module."""
        if hook not in ("rebuilt", "refresh"):
            raise ValueError(f"hook must be rebuilt or refresh; got {hook!r}")
        if self.report is None:
            return None
        return getattr(importlib.import_module(self.report), hook)

    @property
    def option_dests(self) -> frozenset[str]:
        """The attribute names of this family's own options."""
        return frozenset(o.dest for o in self.options)

    def __post_init__(self) -> None:
        """``suite``, ``check`` and ``load_backend`` of a :attr:`run` unless given."""
        for role, method in (("suite", "suite"), ("check", "check"), ("load_backend", "load")):
            if self.run is not None and not getattr(self, role):
                object.__setattr__(self, role, f"{self.run}.{method}")
