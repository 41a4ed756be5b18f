"""RopeConfig: one test per domain rule of SPEC §8.5, immutability and the dict round trip.

Each bad value must raise ValueError (TypeError for a wrong type) whose message names the
field, repeats the value and says what is allowed.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from pespec.rope import PRESETS, RopeConfig

YARN: dict[str, Any] = {
    "head_dim": 64,
    "theta": 150000.0,
    "rope_type": "yarn",
    "factor": 32.0,
    "original_max_position_embeddings": 4096,
}
LLAMA3: dict[str, Any] = {
    "head_dim": 128,
    "theta": 500000.0,
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}
DYNAMIC: dict[str, Any] = {
    "head_dim": 64,
    "rope_type": "dynamic",
    "factor": 2.0,
    "max_position_embeddings": 2048,
    "seq_len": 4096,
}
LONGROPE: dict[str, Any] = {
    "head_dim": 8,
    "rope_type": "longrope",
    "original_max_position_embeddings": 4096,
    "seq_len": 100,
    "short_factor": (1.0, 1.0, 1.0, 1.0),
    "long_factor": (1.0, 2.0, 4.0, 8.0),
}


def _raises(kind: type[Exception], fields: dict[str, Any], *needles: str) -> None:
    with pytest.raises(kind) as caught:
        RopeConfig(**fields)
    message = str(caught.value)
    for needle in needles:
        assert needle in message, f"{needle!r} not in {message!r}"


def test_factor_at_least_one() -> None:
    # s >= 1: a factor below 1 would shrink the context, not extend it.
    _raises(ValueError, {**YARN, "factor": 0.5}, "factor", "0.5", ">= 1")
    _raises(
        ValueError,
        {"head_dim": 8, "rope_type": "linear", "factor": 0.999},
        "factor",
        "0.999",
        ">= 1",
    )


def test_beta_fast_above_beta_slow() -> None:
    # transformers only warns; SPEC §8.5 makes it an error (the ramp would run backwards).
    _raises(
        ValueError,
        {**YARN, "beta_fast": 1.0, "beta_slow": 32.0},
        "beta_fast",
        "beta_slow",
        "1.0",
        "32.0",
    )
    _raises(ValueError, {**YARN, "beta_fast": 4.0, "beta_slow": 4.0}, "beta_fast", "4.0")


def test_high_freq_factor_above_low_freq_factor() -> None:
    _raises(
        ValueError,
        {**LLAMA3, "high_freq_factor": 1.0},
        "high_freq_factor",
        "low_freq_factor",
        "1.0",
    )


def test_dynamic_needs_rotary_dim_at_least_four() -> None:
    # The NTK exponent d_r/(d_r - 2) is undefined at d_r = 2.
    _raises(ValueError, {**DYNAMIC, "head_dim": 2}, "rotary_dim", ">= 4", "dynamic", "2")
    RopeConfig(**{**DYNAMIC, "head_dim": 4})


def test_factor_lists_have_one_entry_per_pair() -> None:
    _raises(
        ValueError,
        {**LONGROPE, "short_factor": (1.0, 1.0, 1.0)},
        "short_factor",
        "4 finite real numbers",
        "3 entries",
    )
    _raises(ValueError, {**LONGROPE, "long_factor": (1.0,) * 5}, "long_factor", "5 entries")


def test_factor_list_entries_are_positive() -> None:
    _raises(
        ValueError,
        {**LONGROPE, "long_factor": (1.0, 0.0, 1.0, 1.0)},
        "long_factor[1]",
        "> 0",
        "0.0",
    )
    _raises(
        ValueError, {**LONGROPE, "short_factor": (1.0, 1.0, -2.0, 1.0)}, "short_factor[2]", "-2.0"
    )
    _raises(
        ValueError,
        {**LONGROPE, "short_factor": (1.0, float("nan"), 1.0, 1.0)},
        "short_factor[1]",
        "nan",
    )


def test_sequence_length_at_least_one() -> None:
    _raises(ValueError, {**DYNAMIC, "seq_len": 0}, "seq_len", ">= 1", "0")
    _raises(ValueError, {**LONGROPE, "seq_len": -3}, "seq_len", "-3")


def test_theta_above_one() -> None:
    _raises(ValueError, {"head_dim": 8, "theta": 1.0}, "theta", "> 1", "1.0")
    _raises(ValueError, {"head_dim": 8, "theta": float("inf")}, "theta", "inf")
    _raises(TypeError, {"head_dim": 8, "theta": "10000"}, "theta", "'10000'")


def test_rotary_dim_even_and_within_head_dim() -> None:
    _raises(ValueError, {"head_dim": 64, "rotary_dim": 63}, "rotary_dim", "even", "63")
    _raises(ValueError, {"head_dim": 64, "rotary_dim": 66}, "rotary_dim", "head_dim = 64", "66")
    _raises(ValueError, {"head_dim": 64, "rotary_dim": 0}, "rotary_dim", ">= 2", "0")
    _raises(TypeError, {"head_dim": True}, "head_dim", "bool")
    _raises(TypeError, {"head_dim": 64.0}, "head_dim", "64.0")
    assert RopeConfig(head_dim=64).d_r == 64
    assert RopeConfig(head_dim=256, rotary_dim=64).d_r == 64


def test_rope_type_and_pairing_are_named_values() -> None:
    _raises(
        ValueError,
        {"head_dim": 8, "rope_type": "ntk-by-parts"},
        "rope_type",
        "'ntk-by-parts'",
        "longrope",
    )
    _raises(ValueError, {"head_dim": 8, "pairing": "neox"}, "pairing", "'neox'", "halves")


def test_required_fields_and_fields_the_schedule_does_not_use() -> None:
    _raises(ValueError, {"head_dim": 8, "rope_type": "linear"}, "factor", "required", "linear")
    _raises(ValueError, {**DYNAMIC, "seq_len": None}, "seq_len", "required", "dynamic")
    _raises(ValueError, {"head_dim": 8, "factor": 2.0}, "factor", "not a parameter", "default")
    _raises(ValueError, {**YARN, "seq_len": 10}, "seq_len", "not a parameter", "yarn")
    _raises(TypeError, {**YARN, "truncate": 1}, "truncate", "bool")


def test_positive_scalars() -> None:
    _raises(ValueError, {**YARN, "attention_factor": 0.0}, "attention_factor", "> 0")
    _raises(ValueError, {**YARN, "mscale": -1.0}, "mscale", "-1.0")
    _raises(ValueError, {**LLAMA3, "low_freq_factor": 0.0}, "low_freq_factor", "> 0")


def test_yarn_defaults_are_those_of_transformers() -> None:
    config = RopeConfig(**YARN)
    assert (config.beta_fast, config.beta_slow, config.truncate) == (32.0, 1.0, True)


def test_config_is_immutable_and_hashable() -> None:
    config = PRESETS["Llama-3.1-8B"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.theta = 10.0  # type: ignore[misc]
    assert hash(config) == hash(RopeConfig.from_dict(config.to_dict()))


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_round_trip_through_dicts_and_json(name: str) -> None:
    config = PRESETS[name]
    data = config.to_dict()
    assert RopeConfig.from_dict(data) == config
    assert RopeConfig.from_dict(json.loads(json.dumps(data))) == config


def test_from_dict_rejects_unknown_and_missing_keys() -> None:
    with pytest.raises(ValueError, match="unknown keys \\['base'\\]"):
        RopeConfig.from_dict({"head_dim": 8, "base": 10000.0})
    with pytest.raises(ValueError, match="head_dim"):
        RopeConfig.from_dict({"theta": 10000.0})
    with pytest.raises(TypeError, match="mapping"):
        RopeConfig.from_dict([("head_dim", 8)])  # type: ignore[arg-type]
