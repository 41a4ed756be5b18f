"""The custom schedule (SPEC §8.3 ``custom``): explicit frequencies, exact, and their slips.

Expected values: the given float64 ω taken exactly (``tests/rope_mpmath.py``), cos/sin at 400
bits; the port of ``tests/rope_ports.py`` hands the list to a float32 stack as an operator
given a cos/sin cache would; the reversed list is what the wrong port was written to do.
"""

from __future__ import annotations

import mpmath
import pytest
from rope_mpmath import mp_schedule
from rope_ports import custom_port

from pespec.rope import RopeConfig, check, oracle
from pespec.rope.diagnosis import diagnose
from pespec.rope.errormodel import schedule_constant
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

BITS = 400
PIXEL = tuple(float(w) for w in [3.14159 * (1 + 4 * j / 15) for j in range(16)])
"""rotary-embedding-torch ``freqs_for="pixel"``-like: linspace(1, max_freq/2)·π (here 1..5)."""
CONFIG = RopeConfig(head_dim=40, rotary_dim=32, rope_type="custom", omegas=PIXEL[::-1])
SCALED = RopeConfig(
    head_dim=8, rope_type="custom", omegas=(1.0, 0.1, 0.0, 1e-4), attention_factor=1.25
)


@pytest.mark.parametrize("config", [CONFIG, SCALED], ids=["pixel", "scaled"])
def test_oracle_agrees_with_mpmath(config: RopeConfig) -> None:
    mpmath.mp.prec = BITS  # restored by the conftest fixture
    expected, attention = mp_schedule(config)
    omega, a_value = oracle.frequencies(config)
    assert omega.tolist() == list(config.omegas or ())  # given exactly
    assert a_value == mpf_to_float(attention)
    cos, sin = oracle.cos_sin([3, 2**20 + 3], config)
    for row, p in enumerate([3, 2**20 + 3]):
        assert cos[row].tolist() == [mpf_to_float(mpmath.cos(p * w)) for w in expected]
        assert sin[row].tolist() == [mpf_to_float(mpmath.sin(p * w)) for w in expected]


def test_error_constant_is_one_rounding() -> None:
    assert schedule_constant(CONFIG, "float32").tolist() == [1.0] * 16


def test_domain() -> None:
    with pytest.raises(ValueError, match=r"omegas must be a sequence of 2 .*got 3 entries"):
        RopeConfig(head_dim=4, rope_type="custom", omegas=(1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match=r"omegas\[1\] must be a finite real number >= 0"):
        RopeConfig(head_dim=4, rope_type="custom", omegas=(1.0, -2.0))
    with pytest.raises(ValueError, match=r"omegas\[0\] must be a finite real number >= 0"):
        RopeConfig(head_dim=4, rope_type="custom", omegas=(float("nan"), 2.0))
    with pytest.raises(TypeError, match="omegas must be a sequence"):
        RopeConfig(head_dim=4, rope_type="custom", omegas="1, 2")  # type: ignore[arg-type]
    config = RopeConfig(head_dim=4, rope_type="custom", omegas=[1.0, 2])  # type: ignore[arg-type]
    assert config.omegas == (1.0, 2.0)
    assert RopeConfig.from_dict(config.to_dict()) == config


def test_config_json_custom_block() -> None:
    block = {"rope_type": "custom", "omegas": [1.0, 0.5], "attention_factor": 2.0}
    config = RopeConfig.from_hf({"head_dim": 4, "rope_scaling": block})
    assert config.omegas == (1.0, 0.5) and config.attention_factor == 2.0


@pytest.mark.parametrize("config", [CONFIG, SCALED], ids=["pixel", "scaled"])
def test_correct_float32_port_is_conformant(config: RopeConfig) -> None:
    report = check(custom_port(), config, level="float32", max_position=65536)
    assert report.conformant, report.summary()


def test_reversed_list_is_named() -> None:
    report = check(custom_port("reversed"), CONFIG, level="float32", max_position=65536)
    assert not report.conformant
    result = diagnose(custom_port("reversed"), CONFIG)
    assert result.explained and result.causes, result.sentence
    assert "the frequency list applied in reverse order" in result.sentence, result.sentence
