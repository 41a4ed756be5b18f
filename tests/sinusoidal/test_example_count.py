"""The ``ci`` example count of the property stage is derived, not chosen (SPEC R6.9, issue 37).

CI_EXAMPLES is the smallest count at which the derandomized draws of every property reach
each position kind of the strategy (pespec.sinusoidal.properties.strategies.POSITION_KINDS). The
draws
are recorded through the stage's own strategy (a ``map`` that draws nothing), so a change of
the strategy or of the seed that moves a kind past CI_EXAMPLES fails here, and so does a
count larger than needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

import pespec.sinusoidal.property_stage as stage
from pespec.conformance import check
from pespec.sinusoidal.builtin_backends import REFERENCE_MAX_POSITION
from pespec.sinusoidal.properties.strategies import POSITION_KINDS, REACH

HERE = Path(__file__).resolve().parent


def kind_of(positions: np.ndarray[Any, Any]) -> str:
    """The kind a drawn position array belongs to (the strategies draw one kind per array)."""
    magnitude = np.abs(positions.astype(np.float64))
    if positions.dtype.kind == "f":
        return "huge" if np.any(magnitude >= 1e9) else "fractional"
    if np.any(magnitude >= 2.0**53):
        return "huge"
    if np.any(positions < 0):
        return "negative"
    return "large" if np.any(magnitude > 2048) else "small"


def record_draws() -> dict[str, list[str]]:
    """The position kinds each property drew in ``check("numpy", stages=("property",))``."""
    drawn: dict[str, list[str]] = {}
    current: list[str] = [""]
    strategy = stage.PropertyStage._config_strategy
    run = stage.PropertyStage.check

    def recording_strategy(self: Any, level: Any) -> Any:
        return strategy(self, level).map(
            lambda c: drawn[current[0]].append(kind_of(c.positions)) or c
        )

    def recording_check(self: Any, planned: Any, level: Any) -> Any:
        current[0] = planned.id
        drawn[planned.id] = []
        return run(self, planned, level)

    stage.PropertyStage._config_strategy = recording_strategy  # type: ignore[method-assign]
    stage.PropertyStage.check = recording_check  # type: ignore[method-assign]
    report = check("numpy", stages=("property",), diagnose=False)
    assert all(c.status == "passed" for c in report.checks), report.summary()
    return drawn


def test_ci_examples_is_the_count_that_reaches_every_kind() -> None:
    # In a new interpreter: Hypothesis mixes the constants of the modules a process has
    # loaded into its draws (see tests/conformance/test_engine_move.py), so a test process
    # draws otherwise than the `pespec check` a user runs; a fresh one draws the same.
    script = "import json, test_example_count as t; print(json.dumps(t.record_draws()))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    drawn: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    kinds = {k for k in POSITION_KINDS if REACH[k] <= REFERENCE_MAX_POSITION}
    assert kinds == set(POSITION_KINDS)  # the reference's domain admits every kind
    assert len(drawn) == 10
    for name, sequence in drawn.items():
        assert len(sequence) == stage.CI_EXAMPLES, name
        assert set(sequence) == kinds, (name, sequence)  # every kind reached ...
        assert set(sequence[:-1]) != kinds, (name, sequence)  # ... only at the last example
