"""The run both multi-axis section kinds share (pespec/multiaxis/section_run.py): ``config``
resolved to the kind's preset before the backend is loaded, the positions of a call in words,
a declared level read by the kind's parser, the kind's stages, report and diagnosis modules."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.rope.run import MRopeCapabilities, MRopeRun
from pespec.multiaxis.section_run import describe_positions
from pespec.multiaxis.sinusoidal.run import MultiAxisCapabilities, MultiAxisRun
from tests.multiaxis.rope import ports as mrope_ports
from tests.multiaxis.sinusoidal import ports as multiaxis_ports

KINDS = {
    "multiaxis": (MultiAxisRun, multiaxis_ports.correct, "mae-vit-b-16"),
    "multiaxis-rope": (MRopeRun, mrope_ports.numpy_mrope(5e6, (24, 20, 20), True), "qwen3-vl-4b"),
}


def test_positions_in_words() -> None:
    assert describe_positions(np.zeros((5, 3))) == "5 positions of 3 axes"
    assert describe_positions(np.zeros(5)) == "5 positions of ? axes"
    assert describe_positions(np.float64(2.0)) == "? positions of ? axes"
    assert describe_positions(None) == "0 positions of 0 axes"


@pytest.mark.parametrize("family", KINDS)
def test_a_missing_config_is_refused_before_the_backend_is_loaded(family: str) -> None:
    run, _, _ = KINDS[family]
    with pytest.raises(ValueError, match=f"config must name a {family} preset"):
        run("no_such_module_h38b:backend")


@pytest.mark.parametrize("family", KINDS)
def test_the_run_takes_its_preset_rows_and_describes_calls_by_positions(family: str) -> None:
    run_type, backend, preset = KINDS[family]
    run: Any = run_type(backend, config=preset, profile="ci")
    assert run.preset.name == preset and run.config is run.preset.config
    assert run.grid_rows == run.preset.positions().shape[0]
    assert 0 < run.positions.shape[0] <= run.grid_rows
    positions = run.positions[:4]
    args = (positions, run.config) if family == "multiaxis" else (run.x[:4], positions, None)
    k = positions.shape[1]
    assert run.guard.describe_call(*args) == f"4 positions of {k} axes"


@pytest.mark.parametrize("family", KINDS)
def test_the_kind_modules_plan_report_and_diagnose(family: str) -> None:
    run_type, backend, preset = KINDS[family]
    report = run_type.check(backend, config=preset, profile="ci", stages=("contract", "golden"))
    assert report.conformant and report.family == family
    assert [c.stage for c in report.checks][:1] == ["contract"]
    assert report.command == f"pespec check --family {family}"


@pytest.mark.parametrize(
    ("capabilities", "good", "bad"),
    [(MultiAxisCapabilities, "float32", "float33"), (MRopeCapabilities, "float32", "f32")],
)
def test_a_declared_level_is_read_by_the_kind(capabilities: Any, good: str, bad: str) -> None:
    assert capabilities(level=good).level == good
    with pytest.raises(ValueError, match="level must"):
        capabilities(level=bad)
