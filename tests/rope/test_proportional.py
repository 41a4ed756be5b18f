"""The proportional schedule (SPEC §8.3 ``proportional``, Gemma 4): oracle, reading, ports.

Expected values: the independent mpmath transcription (``tests/rope_mpmath.py``, written as
transformers' ``_compute_proportional_rope_parameters``: 1/θ^(2j/d_r) for the first k pairs,
zeros after, divided by s, at 400 bits) and the ports of ``tests/rope_ports.py``; each slip
is what its wrong port was written to do.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from rope_mpmath import mp_schedule
from rope_ports import proportional_port

from pespec.rope import RopeConfig, check, oracle
from pespec.rope.diagnosis import diagnose
from pespec.rope.hf_fields import read_fields
from pespec.rope.schedules.proportional import transformers_rotated_pairs
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

BITS = 400
GEMMA4 = RopeConfig(head_dim=512, theta=1_000_000.0, rope_type="proportional", rotated_pairs=64)
"""Gemma 4's full-attention layers: head 512, partial_rotary_factor 0.25 -> k = 64."""
SMALL = RopeConfig(
    head_dim=64, theta=10000.0, rope_type="proportional", rotated_pairs=8, factor=2.0
)


@pytest.mark.parametrize("config", [GEMMA4, SMALL], ids=["gemma4", "small"])
def test_oracle_agrees_with_mpmath(config: RopeConfig) -> None:
    mpmath.mp.prec = BITS  # restored by the conftest fixture
    expected, attention = mp_schedule(config)
    omega, a_value = oracle.frequencies(config)
    assert omega.tolist() == [mpf_to_float(w) for w in expected]
    assert a_value == mpf_to_float(attention) == 1.0
    x = ((np.arange(config.head_dim) * 37 + 11) % 257 - 128)[None, :] / 64.0
    got = oracle.rotate(x, [4097], config)
    half = config.d_r // 2
    for j, w in enumerate(expected):
        a, b = mpmath.mpf(x[0, j]), mpmath.mpf(x[0, j + half])
        c, s = mpmath.cos(4097 * w), mpmath.sin(4097 * w)
        assert got[0, j] == mpf_to_float(a * c - b * s)
        assert got[0, j + half] == mpf_to_float(a * s + b * c)
    k = config.rotated_pairs
    assert k is not None
    assert np.array_equal(got[0, k:half], x[0, k:half])  # ω = 0: passed through exactly


def test_domain() -> None:
    with pytest.raises(ValueError, match="rotated_pairs is required for rope_type"):
        RopeConfig(head_dim=8, rope_type="proportional")
    with pytest.raises(ValueError, match=r"rotated_pairs must be .*<= d_r/2 = 4; got 5"):
        RopeConfig(head_dim=8, rope_type="proportional", rotated_pairs=5)
    with pytest.raises(ValueError, match="rotated_pairs must be an int >= 0; got -1"):
        RopeConfig(head_dim=8, rope_type="proportional", rotated_pairs=-1)
    with pytest.raises(ValueError, match="rotated_pairs is not a parameter of rope_type"):
        RopeConfig(head_dim=8, rotated_pairs=2)


def test_config_json_gemma4_block() -> None:
    # transformers Gemma4TextConfig's default rope_parameters, the full-attention layers
    config = {
        "model_type": "gemma4_text",
        "head_dim": 512,
        "rope_parameters": {
            "full_attention": {
                "rope_type": "proportional",
                "partial_rotary_factor": 0.25,
                "rope_theta": 1_000_000.0,
            },
            "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
        },
    }
    fields, _ = read_fields(config, layer_type="full_attention")
    assert fields["rotary_dim"] == 512 and fields["rotated_pairs"] == 64
    assert RopeConfig(**fields) == GEMMA4


def test_rotated_pairs_rounds_as_transformers() -> None:
    # int(p * H // 2) with p·H rounded to float64: 0.6·10 = 5.999…9778 rounds to 6.0 -> k = 3
    assert transformers_rotated_pairs(0.6, 10) == 3
    assert transformers_rotated_pairs(0.3, 10) == 1  # 3.0 // 2 (mlx-lm: 2 pairs, Annex F.5)
    with pytest.raises(ValueError, match=r"partial_rotary_factor must be a number in \[0, 1\]"):
        transformers_rotated_pairs(1.5, 10)


@pytest.mark.parametrize("config", [GEMMA4, SMALL], ids=["gemma4", "small"])
def test_correct_float32_port_is_conformant(config: RopeConfig) -> None:
    report = check(proportional_port(), config, level="float32", max_position=65536)
    assert report.conformant, report.summary()


@pytest.mark.parametrize(
    ("port", "words"),
    [
        (proportional_port(denominator="2k"), "ω computed over 2k = 16 instead of d_r = 64"),
        (proportional_port(extra_pairs=1), "9 pairs rotated instead of rotated_pairs = 8"),
    ],
    ids=["denominator", "pairs"],
)
def test_one_parameter_wrong_is_named(port: object, words: str) -> None:
    report = check(port, SMALL, level="float32", max_position=65536)
    assert not report.conformant
    result = diagnose(port, SMALL)  # type: ignore[arg-type]
    assert result.explained and result.causes, result.sentence
    assert words in result.sentence, result.sentence
