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
