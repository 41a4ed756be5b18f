"""The multi-axis sin-cos family: positions of k coordinates, each output column the 1-D
sinusoidal encoding of one coordinate (SPEC §9).

Modules: :mod:`~pespec.multiaxis.config` (sections and column arrangements),
:mod:`~pespec.multiaxis.grid` (the position ids of a grid), :mod:`~pespec.multiaxis.presets`
(published configurations), :mod:`~pespec.multiaxis.reference` (exact reference and oracle,
section by section), :mod:`~pespec.multiaxis.run` and :mod:`~pespec.multiaxis.stages` (the
engine's run), :mod:`~pespec.multiaxis.report` (report hooks, diagnosis),
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
        "PRESETS": "pespec.multiaxis.presets",
        "sincos_2d": "pespec.multiaxis.presets",
        "MultiAxisConfig": "pespec.multiaxis.config",
        "Section": "pespec.multiaxis.config",
        "MultiAxisSuite": "pespec.multiaxis.run",
        "check": "pespec.multiaxis.run",
        "load_multiaxis_backend": "pespec.multiaxis.run",
    },
)
