"""pespec.sinusoidal: the absolute sinusoidal family (SPEC §3-§7), a sibling of :mod:`pespec.rope`.

Its fixture format and catalog (``golden*``), its suite stages, built-in backends, from-file
check, reproductions and diagnosis live here; the engine (:mod:`pespec.conformance`) runs
them and names no family. The two family folders never import each other.
"""

from __future__ import annotations

from pespec._exports import lazy_exports as _lazy_exports

__all__ = [
    "STAGES",
    "Capabilities",
    "Suite",
    "check",
    "check_file",
    "compare_saved_output",
    "load_backend",
    "module_backend",
    "reproduce",
    "table_backend",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "STAGES": "pespec.sinusoidal.run",
        "Suite": "pespec.sinusoidal.run",
        "check": "pespec.sinusoidal.run",
        "Capabilities": "pespec.sinusoidal.capabilities",
        "check_file": "pespec.sinusoidal.checkfile",
        "compare_saved_output": "pespec.sinusoidal.fromfile",
        "load_backend": "pespec.sinusoidal.loading",
        "module_backend": "pespec.sinusoidal.adapters",
        "table_backend": "pespec.sinusoidal.adapters",
        "reproduce": "pespec.sinusoidal.reproduce",
    },
)
