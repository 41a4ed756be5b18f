"""ℓ per call (SPEC Annex G.1): ``seq_len_rule="per-call"`` for dynamic and longrope.

A model takes ℓ = (the call's largest position) + 1 (transformers' ``dynamic_rope_update``:
``seq_len = torch.max(position_ids) + 1``). The suite checks such a configuration in groups
of calls whose ℓ is known, each against the oracle at that ℓ. Expected behaviour: the real
transformers rotary modules (Phi-3's longrope, Llama's dynamic NTK, from published
config.json copies in pespec/rope/published) pass; ports that keep one ℓ, or always use the
long factors, fail with that named; transformers 5.24's PhiMoE module, which recomputes
inv_freq without ℓ in its forward (so the short factors at every ℓ), fails with that named.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
from typing import Any

import numpy as np
import pytest
from paths import HF_CONFIGS
from rope_ports import dynamic_port, longrope_port

from pespec.rope import RopeConfig, check, frequencies
from pespec.rope.hf import read_hf
from pespec.rope.per_call import at_seq_len, call_lengths

PHI_PATH = HF_CONFIGS / "phi-3.5-mini-instruct.json"
PHI = json.loads(PHI_PATH.read_text())
LLAMA = {
    **json.loads((HF_CONFIGS / "llama-2-7b-hf.json").read_text()),
    "rope_scaling": {"type": "dynamic", "factor": 4.0},
}
"""Llama-2-7B's published file with a dynamic NTK block (as its model card's long-context
recipe writes it): L = 4096, s = 4."""


def phi() -> RopeConfig:
    return read_hf(PHI, seq_len="per-call").config


def llama() -> RopeConfig:
    return read_hf(LLAMA, seq_len="per-call").config


def test_declaration_and_its_domain() -> None:
    config = phi()
    assert config.seq_len_rule == "per-call" and config.seq_len is None
    assert at_seq_len(config, 4097) == read_hf(PHI, seq_len=4097).config
    base = dataclasses.asdict(config)
    with pytest.raises(ValueError, match=r"seq_len must be None with seq_len_rule 'per-call'"):
        RopeConfig(**{**base, "seq_len": 4096})
    with pytest.raises(ValueError, match=r"seq_len_rule must be None or one of \['per-call'\]"):
        RopeConfig(**{**base, "seq_len_rule": "max"})
    with pytest.raises(ValueError, match=r"seq_len_rule is used only by rope_types"):
        RopeConfig(head_dim=8, rope_type="linear", factor=2.0, seq_len_rule="per-call")
    with pytest.raises(
        ValueError,
        match=r"seq_len is used only by rope_types 'dynamic' and 'longrope'; got 'per-call'",
    ):
        read_hf({"head_dim": 8, "rope_theta": 10000.0}, seq_len="per-call")
    with pytest.raises(ValueError, match=r"fixed seq_len here; got seq_len_rule 'per-call'"):
        frequencies(config)


def test_call_lengths() -> None:
    # the last short ℓ (L0), the first long one, the midpoint to N and N itself
    assert call_lengths(phi(), 131071) == (4096, 4097, 67584, 131072)
    assert call_lengths(llama(), 16383) == (4096, 4097, 10240, 16384)
    assert call_lengths(llama(), 4095) == (4096,)


def test_cli_seq_len_per_call(capsys: pytest.CaptureFixture[str]) -> None:
    from pespec.cli.rope import _seq_len

    assert _seq_len("per-call") == "per-call" and _seq_len("4096") == 4096
    with pytest.raises(argparse.ArgumentTypeError, match="must be an int or per-call; got 'x'"):
        _seq_len("x")
    from clirun import run_cli

    argv = ["rope", "check", "numpy", "--config", str(PHI_PATH), "--seq-len"]
    code, _, err = run_cli([*argv, "x"], capsys)
    assert code == 2 and "argument --seq-len: must be an int or per-call; got 'x'" in err
    code, out, _ = run_cli([*argv, "per-call", "--quiet"], capsys)
    assert code == 0 and "checked in calls of ℓ = 4096, 4097, 67584, 131072" in out, out


@pytest.mark.parametrize(
    ("port", "config", "top"), [("longrope", phi, None), ("dynamic", llama, 16383)]
)
def test_correct_ports_are_conformant(port: str, config: Any, top: int | None) -> None:
    make = longrope_port if port == "longrope" else dynamic_port
    report = check(make(), config(), level="float32", max_position=top, diagnose=False)
    assert report.conformant, report.summary()
    assert {c.id.rpartition("@ℓ=")[2] for c in report.checks} == {
        str(n) for n in call_lengths(config(), report.family_data["domain"]["max_position"])
    }


@pytest.mark.parametrize(
    ("port", "mode", "group", "words"),
    [
        ("longrope", "always-long", 4096, "LongRoPE's long_factor used at ℓ = 4096"),
        ("longrope", "fixed", 4096, "LongRoPE's long_factor used at ℓ = 4096"),
        ("dynamic", "fixed", 4097, "dynamic NTK never rescaled: θ unscaled at ℓ = 4097 > L"),
    ],
)
def test_one_rule_wrong_is_named(port: str, mode: str, group: int, words: str) -> None:
    make, config, top = (
        (longrope_port, phi(), None) if port == "longrope" else (dynamic_port, llama(), 16383)
    )
    report = check(make(mode), config, level="float32", max_position=top)
    assert not report.conformant
    failed = [c.id for c in report.checks if c.status == "failed"]
    assert failed[0].endswith(f"@ℓ={group}"), failed
    sentence = report.diagnosis_sentence or ""
    assert sentence.startswith(f"in calls of ℓ = {group}") and words in sentence, sentence


# -- the real transformers modules -------------------------------------------------------


def _transformers_backend(data: dict[str, Any]) -> Any:
    """The model type's rotary module (one instance, as a model holds it) and its
    apply_rotary_pos_emb on x in float32."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    hf = transformers.AutoConfig.for_model(
        **{k: v for k, v in data.items() if k not in ("architectures", "auto_map")}
    )
    kind = hf.model_type
    module = importlib.import_module(f"transformers.models.{kind}.modeling_{kind}")
    names = [a for a in dir(module) if a.endswith("RotaryEmbedding") and not a.startswith("_")]
    rotary = getattr(module, sorted(names, key=len)[0])(hf)

    def fn(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
        q = torch.from_numpy(x).to(torch.float32)[None, None]
        with torch.no_grad():
            cos, sin = rotary(q, torch.from_numpy(positions)[None])
            rotated, _ = module.apply_rotary_pos_emb(q, q, cos, sin)
        return rotated[0, 0]

    return fn


@pytest.mark.parametrize(("data", "top"), [(PHI, None), (LLAMA, 16383)], ids=["phi3", "llama"])
def test_real_transformers_module_is_conformant_per_call(data: Any, top: int | None) -> None:
    config = read_hf(data, seq_len="per-call").config
    report = check(_transformers_backend(data), config, max_position=top, diagnose=False)
    assert report.conformant, report.summary()
    # the same module judged under one fixed ℓ fails: its ℓ follows the call
    fixed = read_hf(data, seq_len=4096).config
    assert not check(
        _transformers_backend(data), fixed, max_position=top, diagnose=False
    ).conformant


def test_real_phimoe_module_uses_the_short_factors_past_l0() -> None:
    # The table's row transformers:phimoe Phi-3.5-MoE-instruct-per-call (issue 36) is this run;
    # tests/rope/test_longrope_mscale.py confirms the oracle at these ℓ against mpmath.
    # PhimoeRotaryEmbedding.forward: inv_freq = rope_init_fn(config) without seq_len, so the
    # short factors at every ℓ (its long_mscale is right); Phi-3.5-MoE writes L0 and both
    # mscales inside the block. Values as in test_longrope_mscale.phimoe_json.
    block = {
        **PHI["rope_scaling"],
        "original_max_position_embeddings": 4096,
        "short_mscale": 1.0,
        "long_mscale": 1.1902380714238083,
    }
    data = {**PHI, "model_type": "phimoe", "rope_scaling": block}
    config = read_hf(data, seq_len="per-call").config
    report = check(_transformers_backend(data), config)
    assert not report.conformant
    failed = {c.id.rpartition("@ℓ=")[2] for c in report.checks if c.status == "failed"}
    assert failed == {"4097", "67584", "131072"}, failed
    sentence = report.diagnosis_sentence or ""
    assert "in calls of ℓ = 4097" in sentence, sentence
    assert "LongRoPE's short_factor used at ℓ = 4097" in sentence, sentence
