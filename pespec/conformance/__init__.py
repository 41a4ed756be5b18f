"""pespec.conformance: the conformance suite that backends plug into (SPEC §9).

Public names (imported lazily, so that the pytest plugin, which lives in this package and
is loaded in every pytest run, stays cheap to import):

* :func:`check` -> :class:`Report`: run the suite on a backend;
* :class:`Suite`: the planned checks, run one at a time (used by the CLI and the plugin);
* :func:`load_backend`, :class:`Backend`, :class:`Capabilities`, :class:`BackendLoadError`;
* :func:`check_output`: check a saved output array (non-Python implementations);
* :func:`reproduce`: the one-line reproductions printed in reports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pespec.conformance.backends import Backend, BackendLoadError, Capabilities, load_backend
    from pespec.conformance.fromfile import check_output
    from pespec.conformance.report import CheckResult, Report
    from pespec.conformance.reproduce import reproduce
    from pespec.conformance.runner import STAGES, Suite, check

__all__ = [
    "STAGES",
    "Backend",
    "BackendLoadError",
    "Capabilities",
    "CheckResult",
    "Report",
    "Suite",
    "check",
    "check_output",
    "load_backend",
    "reproduce",
]

_HOMES: dict[str, str] = {
    "Backend": "backends",
    "BackendLoadError": "backends",
    "Capabilities": "backends",
    "load_backend": "backends",
    "CheckResult": "report",
    "Report": "report",
    "STAGES": "runner",
    "Suite": "runner",
    "check": "runner",
    "check_output": "fromfile",
    "reproduce": "reproduce",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pespec.conformance' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"pespec.conformance.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
