"""pespec.conformance: the conformance suite that backends plug into (SPEC §6).

Public names (imported lazily, so that the pytest plugin, :mod:`pespec.pytest_plugin`, which
is loaded in every pytest run and collects this package's ``test_suite``, stays cheap to import):

* :func:`check` -> :class:`Report`: run the suite on a backend;
* :class:`Suite`: the planned checks, run one at a time (used by the CLI and the plugin);
* :func:`load_backend`, :class:`Backend`, :class:`Capabilities`, :class:`BackendLoadError`
  (and :class:`CallProtocolError`, for an object that is no backend);
* :func:`module_backend`, :func:`table_backend`: a module, or the table it builds, as a
  backend, built once per (d_model, base);
* :func:`compare_saved_output`: compare a saved output array with the spec (outputs of
  non-Python implementations);
* :func:`reproduce`: the one-line reproductions printed in reports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pespec.conformance.backends import Backend
    from pespec.conformance.guard import BackendLoadError, CallProtocolError
    from pespec.conformance.report import CheckResult, Report
    from pespec.sincos.adapters import module_backend, table_backend
    from pespec.sincos.capabilities import Capabilities
    from pespec.sincos.fromfile import compare_saved_output
    from pespec.sincos.loading import load_backend
    from pespec.sincos.reproduce import reproduce
    from pespec.sincos.run import STAGES, Suite, check

__all__ = [
    "STAGES",
    "Backend",
    "BackendLoadError",
    "CallProtocolError",
    "Capabilities",
    "CheckResult",
    "Report",
    "Suite",
    "check",
    "compare_saved_output",
    "load_backend",
    "module_backend",
    "reproduce",
    "table_backend",
]

_HOMES: dict[str, str] = {
    "Backend": "pespec.conformance.backends",
    "BackendLoadError": "pespec.conformance.guard",
    "CallProtocolError": "pespec.conformance.guard",
    "Capabilities": "pespec.sincos.capabilities",
    "module_backend": "pespec.sincos.adapters",
    "table_backend": "pespec.sincos.adapters",
    "load_backend": "pespec.sincos.loading",
    "CheckResult": "pespec.conformance.report",
    "Report": "pespec.conformance.report",
    "STAGES": "pespec.sincos.run",
    "Suite": "pespec.sincos.run",
    "check": "pespec.sincos.run",
    "compare_saved_output": "pespec.sincos.fromfile",
    "reproduce": "pespec.sincos.reproduce",
}
"""Public name -> the module that defines it (the sinusoidal family's, :mod:`pespec.sincos`,
for the names this facade has always exported)."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pespec.conformance' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
