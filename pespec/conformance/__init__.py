"""pespec.conformance: the conformance engine that backends plug into (SPEC §6).

Public names (imported lazily, so that the pytest plugin, :mod:`pespec.pytest_plugin`, which
is loaded in every pytest run and collects this package's ``test_suite``, stays cheap to import):

* the engine's :class:`Backend`, :class:`Report`, :class:`CheckResult`,
  :class:`BackendLoadError` (and :class:`CallProtocolError`, for an object that is no
  backend);
* and, for code written before the engine served several families, the default family's
  :func:`check` -> :class:`Report`, :class:`Suite`, :data:`STAGES`, :func:`load_backend`,
  :class:`Capabilities`, :func:`module_backend`, :func:`table_backend`,
  :func:`compare_saved_output` and :func:`reproduce`: their homes are the family's, named in
  the registry (``exports`` of the default family in :mod:`pespec.families`).
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING
from typing import Any as _Any

if TYPE_CHECKING:  # the default family's names, for type checkers (see the registry)
    from pespec.conformance.backends import Backend
    from pespec.conformance.guard import BackendLoadError, CallProtocolError
    from pespec.conformance.report import CheckResult, Report
    from pespec.sinusoidal.adapters import module_backend, table_backend
    from pespec.sinusoidal.capabilities import Capabilities
    from pespec.sinusoidal.fromfile import compare_saved_output
    from pespec.sinusoidal.loading import load_backend
    from pespec.sinusoidal.reproduce import reproduce
    from pespec.sinusoidal.run import STAGES, Suite, check

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
    "CheckResult": "pespec.conformance.report",
    "Report": "pespec.conformance.report",
}
"""The engine's public names -> the module that defines them; the other names of
:data:`__all__` are the default family's (:meth:`pespec.conformance.family.Family.export`)."""


def __getattr__(name: str) -> _Any:
    home = _HOMES.get(name)
    if home is not None:
        value = getattr(_importlib.import_module(home), name)
    elif name in __all__:
        from pespec.families import get_family

        value = get_family(None).export(name)
    else:
        raise AttributeError(f"module 'pespec.conformance' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


del TYPE_CHECKING
