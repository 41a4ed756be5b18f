"""LongRoPE with an attention factor per regime (``short_mscale``, ``long_mscale``; SPEC §8.3).

Expected values: the independent mpmath transcription (``tests/rope_mpmath.py``, A = the
regime's mscale) at 400 bits; the float32 port of ``tests/rope_ports.py`` written from
transformers 5.24's ``_compute_longrope_parameters`` and ``PhimoeRotaryEmbedding.forward``
(A = long_mscale when ℓ > L0, else short_mscale; attention_factor never read there).

The configuration: the published Phi-3.5-mini-instruct config.json (pespec/rope/published)
with the rotary block as Phi-3.5-MoE-instruct writes it (``model_type`` phimoe, L0 = 4096 and
the two mscales inside the block). Phi-3.5-MoE publishes short_mscale = long_mscale =
1.243163121016122, which no swap can show; here short_mscale = 1.0 and long_mscale =
1.1902380714238083 (the values Phi-3-small-128k-instruct publishes), stated as such: no copy
of either published file was found through the code index within issue 26's time.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import mpmath
import pytest
from paths import HF_CONFIGS
from rope_mpmath import mp_schedule
from rope_ports import longrope_port

from pespec.rope import RopeConfig, check, oracle
from pespec.rope.diagnosis import diagnose
from pespec.rope.hf import read_hf
from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

BITS = 400
SHORT, LONG = 1.0, 1.1902380714238083


def phimoe_json() -> dict[str, Any]:
    """Phi-3.5-mini's published file with the rotary block written as PhiMoE writes it."""
    data = json.loads((HF_CONFIGS / "phi-3.5-mini-instruct.json").read_text())
    block = {
        **data["rope_scaling"],
        "original_max_position_embeddings": 4096,
        "short_mscale": SHORT,
        "long_mscale": LONG,
    }
    return {**data, "model_type": "phimoe", "rope_scaling": block}


def at(length: int) -> RopeConfig:
    return read_hf(phimoe_json(), seq_len=length).config


@pytest.mark.parametrize("length", [4096, 4097, 131072])
def test_oracle_agrees_with_mpmath(length: int) -> None:
    mpmath.mp.prec = BITS  # restored by the conftest fixture
    config = at(length)
    expected, attention = mp_schedule(config)
    omega, a_value = oracle.frequencies(config)
    assert omega.tolist() == [mpf_to_float(w) for w in expected]
    assert a_value == mpf_to_float(attention) == (LONG if length > 4096 else SHORT)


def test_reader_takes_the_pair_as_a() -> None:
    config = at(4096)
    assert (config.short_mscale, config.long_mscale) == (SHORT, LONG)
    assert config.attention_factor is None and config.original_max_position_embeddings == 4096
    # PhiMoE's module never reads attention_factor when the pair is there
    data = phimoe_json()
    data["rope_scaling"]["attention_factor"] = 3.0
    assert read_hf(data, seq_len=4096).config == config
    # without the pair: the Phi-3 rule (A from s = L/L0), unchanged
    plain = read_hf(
        json.loads((HF_CONFIGS / "phi-3.5-mini-instruct.json").read_text()), seq_len=4096
    )
    assert plain.config.short_mscale is None and plain.config.long_mscale is None


def test_domain() -> None:
    base = dataclasses.asdict(at(4096))
    with pytest.raises(ValueError, match=r"given together.*got only short_mscale = 1\.0"):
        RopeConfig(**{**base, "long_mscale": None})
    with pytest.raises(ValueError, match=r"attention_factor must be None.*got attention_factor"):
        RopeConfig(**{**base, "attention_factor": 1.2})
    with pytest.raises(ValueError, match=r"long_mscale must be .*got -1"):
        RopeConfig(**{**base, "long_mscale": -1.0})
    with pytest.raises(ValueError, match="short_mscale is not a parameter of rope_type 'linear'"):
        RopeConfig(head_dim=8, rope_type="linear", factor=2.0, short_mscale=1.0)


@pytest.mark.parametrize("length", [4096, 131072])
def test_correct_float32_port_is_conformant(length: int) -> None:
    report = check(longrope_port(), at(length), level="float32", diagnose=False)
    assert report.conformant, report.summary()


@pytest.mark.parametrize(
    ("length", "words"),
    [
        (4096, "A = long_mscale = 1.19024 used at ℓ = 4096 instead of 1"),
        (4097, "A = short_mscale = 1 used at ℓ = 4097 instead of 1.19024"),
    ],
)
def test_mscales_swapped_is_named(length: int, words: str) -> None:
    config = at(length)
    report = check(longrope_port("swap-mscale"), config, level="float32", diagnose=False)
    assert not report.conformant
    result = diagnose(longrope_port("swap-mscale"), config)
    assert result.explained and result.causes, result.sentence
    assert f"{words} (short_mscale and long_mscale swapped)" in result.sentence, result.sentence
    assert "factor used" not in result.sentence  # the factor lists are right
