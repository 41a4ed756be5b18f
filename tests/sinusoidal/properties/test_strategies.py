"""The Hypothesis strategies draw valid, modest configurations covering the whole domain."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pespec.sinusoidal.properties import strategies
from pespec.sinusoidal.properties.base import LEVELS, EncodingConfig, Level
from pespec.sinusoidal.reference.conventions import PRESETS


@given(config=strategies.encoding_configs(max_elements=1024, canonical_only=False))
def test_configs_are_valid_and_small(config: EncodingConfig) -> None:
    n, d = config.positions.shape[0], config.d_model
    assert 1 <= n and 2 <= d <= 8192 and d % 2 == 0 and n * d <= 1024
    assert config.base > 1
    assert config.convention in PRESETS.values()
    config.convention.denominator(d)  # defined for this width (raises otherwise)
    assert len(np.unique(config.positions)) == n


@given(config=strategies.encoding_configs(level=Level("float16", "float16")))
def test_low_working_precision_keeps_positions_representable_in_range(
    config: EncodingConfig,
) -> None:
    assert np.all(np.abs(config.positions) <= 2048)


@given(config=strategies.encoding_configs(max_magnitude=2.0**52))
def test_max_magnitude_caps_positions(config: EncodingConfig) -> None:
    assert np.all(np.abs(config.positions.astype(np.float64)) <= 2.0**52)


@pytest.mark.slow
def test_strategies_reach_every_kind_of_input() -> None:
    # The derandomized ci profile must still reach each corner of the domain: sample many
    # draws and look for every kind of position, both extremes of d_model, claimed levels.
    seen: dict[str, bool] = {}

    @settings(max_examples=300, derandomize=True, database=None)
    @given(
        config=strategies.encoding_configs(max_elements=8192),
        level=strategies.levels(),
        k=strategies.offsets(),
    )
    def explore(config: EncodingConfig, level: Level, k: int) -> None:
        p = config.positions
        seen["fractional"] = seen.get("fractional", False) or bool(
            p.dtype.kind == "f" and np.any(p != np.round(p))
        )
        seen["negative"] = seen.get("negative", False) or bool(np.any(p < 0))
        seen["huge"] = seen.get("huge", False) or bool(np.any(np.abs(p) >= 2.0**53))
        seen["d=2"] = seen.get("d=2", False) or config.d_model == 2
        seen["d>=4096"] = seen.get("d>=4096", False) or config.d_model >= 4096
        seen["claimed"] = seen.get("claimed", False) or level not in LEVELS.values()
        seen["k>50"] = seen.get("k>50", False) or k > 50

    explore()
    assert all(seen.values()) and len(seen) == 7, seen


@given(values=strategies.positions(max_size=5, kinds=("huge",)))
def test_huge_positions_are_int64_or_float64(values: np.ndarray) -> None:  # type: ignore[type-arg]
    assert values.dtype in (np.int64, np.float64)
    assert np.all(np.abs(values.astype(np.float64)) >= 1e9)


def test_levels_strategy_without_claims_is_the_defaults() -> None:
    drawn: set[str] = set()

    @settings(max_examples=50, derandomize=True, database=None)
    @given(level=strategies.levels(include_claimed=False), d=st.just(0))
    def collect(level: Level, d: int) -> None:
        drawn.add(level.name)

    collect()
    assert drawn == set(LEVELS)
