"""The convention field ``frequency_formula`` (SPEC §3.1, §4.1 A8): validated, JSON round trip
(omitted when "power"), not compared (x does not depend on it), kept by the golden stage."""

from __future__ import annotations

import dataclasses

import pytest

from pespec.sinusoidal.declared import certified_fixture
from pespec.sinusoidal.golden import load_fixture_sets
from pespec.sinusoidal.reference.conventions import MLX, TENSOR2TENSOR, Convention


def test_the_mlx_preset_declares_the_log_linear_formula() -> None:
    assert MLX.frequency_formula == "log-linear"
    assert MLX.to_dict()["frequency_formula"] == "log-linear"
    assert Convention.from_dict(MLX.to_dict()).frequency_formula == "log-linear"


def test_a_power_formula_is_omitted_from_the_json() -> None:
    assert "frequency_formula" not in TENSOR2TENSOR.to_dict()
    assert Convention.from_dict(TENSOR2TENSOR.to_dict()).frequency_formula == "power"


def test_the_formula_does_not_change_equality() -> None:
    power = dataclasses.replace(MLX, frequency_formula="power")
    assert power == MLX and hash(power) == hash(MLX)


@pytest.mark.parametrize("value", ["loglinear", "", 1])
def test_an_unknown_formula_is_rejected_naming_the_field(value: object) -> None:
    with pytest.raises(ValueError, match="frequency_formula must be one of"):
        Convention(frequency_formula=value)  # type: ignore[arg-type]


def test_log_linear_needs_an_integer_frequency_shift() -> None:
    with pytest.raises(ValueError, match=r"needs an integer frequency_shift.*0\.5"):
        Convention(frequency_shift=0.5, frequency_formula="log-linear")


def test_the_golden_stage_judges_the_mlx_fixture_with_the_declared_formula() -> None:
    fixture = next(f for f in load_fixture_sets() if f.name == "convention-mlx")
    assert fixture.convention.frequency_formula == "power"  # fixtures hold exact values only
    certified, why = certified_fixture(fixture, MLX)
    assert why is None and certified.convention.frequency_formula == "log-linear"
    assert certified.values is fixture.values
