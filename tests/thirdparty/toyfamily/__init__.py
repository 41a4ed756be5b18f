"""A third-party pespec family: ALiBi head slopes (the worked example of CONTRIBUTING.md).

Press et al. (2022), "Train Short, Test Long" (ALiBi), give head h of H heads (H a power of
two) the slope m_h = 2^(-8h/H), h = 1..H. A backend is a callable ``backend(heads) -> array``
returning the H slopes, float64 or float32. The family checks each H of its configuration
against :mod:`toyfamily.reference` (an exact decision, no tolerance of its own).

Modules: :mod:`~toyfamily.config` (the configuration), :mod:`~toyfamily.reference` (the
exact reference), :mod:`~toyfamily.run` (an ``EngineRun``: the engine does the chores
and plans what the family declares as data; the family writes its check),
:mod:`~toyfamily.report` (report fields, diagnosis and report hooks), :mod:`~toyfamily.family`
(the registry entry naming the run; the check command is pespec's own,
:mod:`pespec.cli.family_check`), :mod:`~toyfamily.examples` (backends for the tests).
"""
