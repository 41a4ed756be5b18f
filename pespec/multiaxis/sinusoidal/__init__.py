"""The multi-axis sin-cos family: positions of k coordinates, each output column the 1-D
sinusoidal encoding of one coordinate (SPEC §9).

Modules: :mod:`~pespec.multiaxis.sinusoidal.config` (sections and column arrangements),
:mod:`~pespec.multiaxis.sinusoidal.grid` (the position ids of a grid),
:mod:`~pespec.multiaxis.sinusoidal.presets`
(published configurations), :mod:`~pespec.multiaxis.sinusoidal.reference` (exact reference and
oracle,
section by section), :mod:`~pespec.multiaxis.sinusoidal.run` and
:mod:`~pespec.multiaxis.sinusoidal.stages` (the
engine's run), :mod:`~pespec.multiaxis.sinusoidal.report` (report hooks, diagnosis),
:mod:`pespec.cli.multiaxis` (the check command). Registered as ``multiaxis`` in
:mod:`pespec.families`.
"""
