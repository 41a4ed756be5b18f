"""The rotary diagnosis at fractional and large positions, and never "no bug found" beside a
NON-CONFORMANT verdict (issue 27 item 4).

The backends are written for the test: a framework that casts float positions to bfloat16 while
int64 positions stay exact (golden's 1234.75 becomes 1232: bfloat16 keeps 8 significant bits,
and between 1024 and 2048 its spacing is 8), one that casts int64 positions to float32 (2^24 + 1
becomes 2^24), a table keyed on head_dim only with two configurations declared, and the contract
breakers of tests/rope_misbehaving.py. Expected values are stated by construction; the exact
rotation is pespec.rope.reference.rotate (tested against mpmath in tests/rope/test_reference.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rope_misbehaving

from pespec.conformance.backends import Backend
from pespec.rope import PRESETS, RopeConfig, check
from pespec.rope.backends import RopeCapabilities
from pespec.rope.diagnosis.examples import bugs
from pespec.rope.reference import rotate

SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots" / "rope-verdicts.json"


def _bfloat16(values: Any) -> Any:
    """Round to nearest even on the float32 bits (what torch's .to(torch.bfloat16) does)."""
    single = np.asarray(values, dtype=np.float32)
    bits = single.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    return rounded.view(np.float32).astype(np.float64)


def bf16_float_positions(x: Any, positions: Any, rope: RopeConfig) -> Any:
    """Float positions cast to bfloat16 (autocast), int64 positions used exactly."""
    p = np.asarray(positions)
    used = _bfloat16(p) if p.dtype.kind == "f" else p
    return rotate(x, used, rope).astype(np.float32)


def float32_positions(x: Any, positions: Any, rope: RopeConfig) -> Any:
    """A float64 stack whose positions are cast to float32 first (exact up to 2^24 only)."""
    used = np.asarray(positions).astype(np.float32).astype(np.float64)
    return rotate(x, used, rope)


def test_bfloat16_fractional_positions_are_probed_and_named() -> None:
    assert _bfloat16([1234.75]).tolist() == [1232.0]
    backend = Backend(
        "bf16-positions",
        bf16_float_positions,
        capabilities=RopeCapabilities(fractional_positions=True),
    )
    report = check(backend, PRESETS["Llama-2-7B"])
    assert not report.conformant
    sentence = report.diagnosis_sentence or ""
    assert "no bug found" not in sentence
    assert (
        "at fractional positions the backend uses each position rounded to bfloat16 before "
        "the phase: position 1234.75 is taken as 1232" in sentence
    )
    assert "what failed: check golden:rope-llama-2-7b failed at position 1234.75" in sentence
    probe = (report.diagnosis or {})["failed_positions"]
    assert probe["hypothesis"] == "bfloat16" and probe["kind"] == "fractional"


def test_float32_large_positions_are_probed_and_named() -> None:
    assert float(np.float32(2**24 + 1)) == 2**24
    config = RopeConfig(head_dim=16)
    stages = ("contract", "reference")
    report = check(float32_positions, config, max_position=2**25, stages=stages)
    assert not report.conformant
    sentence = report.diagnosis_sentence or ""
    assert "no bug found" not in sentence
    assert "at large positions the backend uses each position rounded to float32" in sentence
    assert "what failed: check reference:0..33554432 failed at position" in sentence


def _cache_keyed_on_head_dim() -> Backend:
    cache: dict[int, RopeConfig] = {}

    def fn(x: Any, positions: Any, rope: RopeConfig) -> Any:
        return rotate(x, positions, cache.setdefault(rope.head_dim, rope)).astype(np.float32)

    a, b = RopeConfig(head_dim=64), RopeConfig(head_dim=64, theta=5e5)
    return Backend("cache", fn, capabilities=RopeCapabilities(configs=(a, b)))


def _non_conformant() -> list[tuple[str, Any, RopeConfig]]:
    llama = PRESETS["Llama-2-7B"]
    chosen = [
        ("cache keyed on head_dim", _cache_keyed_on_head_dim(), RopeConfig(head_dim=64)),
        *[(n, getattr(rope_misbehaving, n), llama) for n in ("nan_at_zero", "mutates_input")],
        *[(bug, backend, config) for bug, _, config, backend in bugs()[:3]],
    ]
    return chosen


@pytest.mark.parametrize(
    ("name", "backend", "config"),
    [pytest.param(*case, id=case[0]) for case in _non_conformant()],  # ids stable under xdist
)
def test_no_bug_found_never_beside_a_failed_verdict(name: str, backend: Any, config: Any) -> None:
    report = check(backend, config)
    assert not report.conformant, name
    sentence = report.diagnosis_sentence or ""
    assert sentence and "no bug found" not in sentence, (name, sentence)


def test_the_committed_rotary_snapshot_has_no_bug_found_beside_no_failed_verdict() -> None:
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    bad = [
        name
        for name, entry in data.items()
        if entry["verdict"] != "conformant"
        and (not entry["diagnosis_sentence"] or "no bug found" in entry["diagnosis_sentence"])
    ]
    assert not bad
