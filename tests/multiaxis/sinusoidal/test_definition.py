"""The multi-axis definition: columns, grids, presets, the oracle against an independent
mpmath transcription at 400 bits, the exact reference within its 2^-52 (SPEC §9.1–§9.4)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pespec.multiaxis.sinusoidal.config import MultiAxisConfig, Section, check_positions_nd
from pespec.multiaxis.sinusoidal.grid import axis_values, grid_positions
from pespec.multiaxis.sinusoidal.presets import PRESETS, preset, resolve_config, sincos_2d
from pespec.multiaxis.sinusoidal.reference import encode, oracle_encode
from tests.multiaxis.sinusoidal.mp import big_vision_row, cogvideox_row, diffusers_row, grouped_row


def test_sectioned_columns_are_consecutive_blocks_in_section_order() -> None:
    config = sincos_2d(16)
    assert config.d_model == 16
    assert config.columns(0).tolist() == list(range(8))
    assert config.columns(1).tolist() == list(range(8, 16))
    assert [s.axis for s in config.sections] == [1, 0]  # w first (diffusers, MAE)


def test_grouped_columns_are_all_sines_then_all_cosines() -> None:
    # timm: [sin h (4) | sin w (4) | cos h (4) | cos w (4)] for D = 16; a halves section's
    # local columns are [sin 0..3 | cos 0..3].
    config = MultiAxisConfig((Section(0, 8), Section(1, 8)), axes=2, arrangement="grouped")
    assert config.columns(0).tolist() == [0, 1, 2, 3, 8, 9, 10, 11]
    assert config.columns(1).tolist() == [4, 5, 6, 7, 12, 13, 14, 15]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sections": (), "axes": 2}, "sections must be a non-empty list"),
        ({"sections": (Section(2, 8),), "axes": 2}, "section 0 reads axis 2; axes must be < 2"),
        ({"sections": (Section(0, 8),), "axes": 0}, "axes must be an int >= 1; got 0"),
        ({"sections": (Section(0, 8),), "axes": 1, "arrangement": "x"}, "arrangement must be"),
    ],
)
def test_bad_configurations_name_the_parameter(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MultiAxisConfig(**kwargs)


def test_bad_sections_and_positions_name_the_value() -> None:
    with pytest.raises(ValueError, match="axis must be an int >= 0; got -1"):
        Section(-1, 8)
    with pytest.raises(ValueError, match="d_model"):
        Section(0, 7)
    with pytest.raises(ValueError, match=r"positions must have shape \(n, 2\); got shape \(3,\)"):
        check_positions_nd(np.arange(3), 2)
    with pytest.raises(ValueError, match="positions must be finite"):
        check_positions_nd(np.array([[0.0, np.nan]]), 2)


def test_a_config_survives_its_json() -> None:
    config = MultiAxisConfig((Section(0, 8), Section(1, 12, 100.0)), axes=2, arrangement="grouped")
    assert MultiAxisConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match=r"unknown \['extra'\]"):
        MultiAxisConfig.from_dict({**config.to_dict(), "extra": 1})


def test_grid_positions_are_the_scaled_coordinates_rounded_once() -> None:
    # SD3: grid 192, base_size 64 -> i/3, each the float64 nearest the rational i/3.
    values = axis_values(192, base_size=64)
    assert values.dtype == np.float64
    assert all(
        Fraction(float(v)) == Fraction(Fraction(i, 3).__float__()) for i, v in enumerate(values)
    )
    assert values[1] == 1 / 3 and values[191] == 191 / 3  # one IEEE division: correctly rounded
    # PixArt-α 1024: base 64, grid 64, interpolation_scale 2 -> i/2 (exact).
    assert axis_values(64, base_size=64, interpolation_scale=2.0)[3] == 1.5
    # Indices alone stay integers; rows are last-axis fastest (row = i_h·W + i_w).
    grid = grid_positions([2, 3])
    assert grid.dtype == np.int64
    assert grid.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    with pytest.raises(ValueError, match="interpolation_scale must be a positive number; got 0"):
        axis_values(4, interpolation_scale=0)


def test_unknown_preset_names_the_closest() -> None:
    with pytest.raises(ValueError, match="did you mean mae-vit-b-16"):
        preset("mae-vit-b16")
    with pytest.raises(ValueError, match="must have the keys config and grid"):
        resolve_config({"config": sincos_2d(8).to_dict()})


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_oracle_equals_an_independent_mpmath_transcription(name: str) -> None:
    """Every preset: rows of its grid (first, last, a middle one), all D columns, equal to
    the 400-bit mpmath values rounded to float64 (the oracle is correctly rounded)."""
    chosen = PRESETS[name]
    grid = chosen.positions()
    rows = grid[[0, 1, grid.shape[0] // 2 + 5, grid.shape[0] - 1]]
    got = oracle_encode(rows, chosen.config)
    dim = chosen.config.d_model
    if chosen.config.axes == 3:
        want = np.array([cogvideox_row(*map(float, r), dim) for r in rows.tolist()])
    else:
        row = {"timm-sincos2d-768": grouped_row, "big-vision-vit-s16": big_vision_row}.get(
            name, diffusers_row
        )
        want = np.array([row(float(h), float(w), dim) for h, w in rows.tolist()])
    np.testing.assert_array_equal(got, want)


def test_grouped_oracle_equals_the_mpmath_transcription() -> None:
    config = MultiAxisConfig((Section(0, 32), Section(1, 32)), axes=2, arrangement="grouped")
    rows = np.array([[0.0, 1.0], [7.5, 3.25], [31.0, 0.5]])
    want = np.array([grouped_row(h, w, 64) for h, w in rows.tolist()])
    np.testing.assert_array_equal(oracle_encode(rows, config), want)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_exact_reference_is_within_its_bound_of_the_oracle(name: str) -> None:
    chosen = PRESETS[name]
    grid = chosen.positions()
    rows = grid[:: max(1, grid.shape[0] // 64)]
    error = np.abs(encode(rows, chosen.config) - oracle_encode(rows, chosen.config))
    # Annex C: the reference within 2^-52 of the exact value, the oracle within 2^-54.
    assert float(error.max()) <= 2.0**-52 + 2.0**-54
