"""The static NTK schedule (SPEC §8.3 ``ntk``): oracle, config.json reading, ports, slips.

Expected values: the independent mpmath transcription (``tests/rope_mpmath.py``, the base
θ·s^(d_r/(d_r − 2)) raised to −2j/d_r at 400 bits), and the ports of ``tests/rope_ports.py``
written from rotary-embedding-torch's formula; the slips are what each wrong port was
written to do.
"""

from __future__ import annotations

import mpmath
import pytest
from rope_mpmath import mp_schedule
from rope_ports import ntk_port

from pespec.rope import RopeConfig, check, frequencies, oracle
from pespec.rope.diagnosis import diagnose
from pespec.rope.hf_fields import read_fields
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

BITS = 400
CONFIGS = [
    RopeConfig(head_dim=64, theta=10000.0, rope_type="ntk", factor=4.0),
    RopeConfig(head_dim=128, rotary_dim=32, theta=500000.0, rope_type="ntk", factor=2.5),
    RopeConfig(head_dim=8, rotary_dim=4, theta=10000.0, rope_type="ntk", factor=1000.0),
]
"""A full head, partial rotary (the exponent over d_r = 32, not 128), d_r = 4 (exponent 2)."""


@pytest.mark.parametrize("config", CONFIGS, ids=["full", "partial", "d4"])
def test_oracle_agrees_with_mpmath(config: RopeConfig) -> None:
    mpmath.mp.prec = BITS  # restored by the conftest fixture
    expected, attention = mp_schedule(config)
    omega, a_value = oracle.frequencies(config)
    assert omega.tolist() == [mpf_to_float(w) for w in expected]
    assert a_value == mpf_to_float(attention) == 1.0
    cos, sin = oracle.cos_sin([1, 4097, 2**20 + 3], config)
    for row, p in enumerate([1, 4097, 2**20 + 3]):
        assert cos[row].tolist() == [mpf_to_float(mpmath.cos(p * w)) for w in expected]
        assert sin[row].tolist() == [mpf_to_float(mpmath.sin(p * w)) for w in expected]


def test_d4_has_exponent_two() -> None:
    # d_r = 4: θ' = θ·s², ω'_1 = θ'^(−1/2) = 1/(100·1000) exactly
    omega, _ = frequencies(CONFIGS[2])
    assert omega.tolist() == [1.0, 1e-5]


def test_domain() -> None:
    with pytest.raises(ValueError, match=r"rotary_dim must be >= 4 for rope_type 'ntk'.*got 2"):
        RopeConfig(head_dim=2, rope_type="ntk", factor=2.0)
    with pytest.raises(ValueError, match="factor is required for rope_type 'ntk'"):
        RopeConfig(head_dim=8, rope_type="ntk")
    with pytest.raises(ValueError, match=r"factor must be a finite real number >= 1; got 0\.5"):
        RopeConfig(head_dim=8, rope_type="ntk", factor=0.5)


def test_config_json_ntk_block_and_hunyuan_alpha() -> None:
    # HunYuan (transformers models/hunyuan_v1_dense, compute_ntk_alpha_rope_parameters):
    # "dynamic" with a fixed alpha is θ·alpha^(d/(d − 2)), no ℓ, static NTK
    hunyuan = {
        "model_type": "hunyuan_v1_dense",
        "head_dim": 128,
        "rope_theta": 10000.0,
        "max_position_embeddings": 262144,
        "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0},
    }
    fields, _ = read_fields(hunyuan)
    assert fields["rope_type"] == "ntk" and fields["factor"] == 1000.0
    plain = {"head_dim": 64, "rope_scaling": {"rope_type": "ntk", "factor": 8.0}}
    assert RopeConfig.from_hf(plain) == RopeConfig(head_dim=64, rope_type="ntk", factor=8.0)


@pytest.mark.parametrize("config", CONFIGS[:2], ids=["full", "partial"])
def test_correct_float32_port_is_conformant(config: RopeConfig) -> None:
    report = check(ntk_port(), config, level="float32", max_position=65536, diagnose=False)
    assert report.conformant, report.summary()


@pytest.mark.parametrize(
    ("exponent", "words"),
    [
        ("none", "θ multiplied by s = 2.5 instead of s^(d_r/(d_r − 2))"),
        ("head_dim", "the NTK exponent taken over head_dim = 128 instead of d_r = 32"),
    ],
)
def test_one_parameter_wrong_is_named(exponent: str, words: str) -> None:
    config = CONFIGS[1]
    report = check(ntk_port(exponent), config, level="float32", max_position=65536)
    assert not report.conformant
    result = diagnose(ntk_port(exponent), config)
    assert result.explained and result.causes, result.sentence
    assert words in result.sentence, result.sentence
