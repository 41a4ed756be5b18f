"""The sin-cos section kind of the multi-axis combinator, the family ``multiaxis``: positions
of k coordinates, each output column the 1-D sinusoidal encoding of one coordinate (SPEC §9).

Modules: :mod:`~pespec.multiaxis.sinusoidal.config` (sections and column arrangements),
:mod:`~pespec.multiaxis.sinusoidal.grid` (the position ids of a grid),
:mod:`~pespec.multiaxis.sinusoidal.presets` (published configurations),
:mod:`~pespec.multiaxis.sinusoidal.reference` (exact reference and oracle, section by
section), :mod:`~pespec.multiaxis.sinusoidal.run` and
:mod:`~pespec.multiaxis.sinusoidal.stages` (the engine's run),
:mod:`~pespec.multiaxis.sinusoidal.report` (report hooks, diagnosis),
:mod:`pespec.cli.multiaxis` (the check command). Registered as ``multiaxis`` in
:mod:`pespec.families`.
"""

from __future__ import annotations

from pespec._exports import lazy_exports as _lazy_exports

__all__ = [
    "PRESETS",
    "MultiAxisConfig",
    "MultiAxisSuite",
    "Section",
    "check",
    "load_multiaxis_backend",
    "sincos_2d",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "PRESETS": "pespec.multiaxis.sinusoidal.presets",
        "sincos_2d": "pespec.multiaxis.sinusoidal.presets",
        "MultiAxisConfig": "pespec.multiaxis.sinusoidal.config",
        "Section": "pespec.multiaxis.sinusoidal.config",
        "MultiAxisSuite": "pespec.multiaxis.sinusoidal.run",
        "check": "pespec.multiaxis.sinusoidal.run",
        "load_multiaxis_backend": "pespec.multiaxis.sinusoidal.run",
    },
)
