"""Diagnosis of position ids in low precision (SPEC R9.16): hand-made ports that cast the
(t, h, w) ids to bfloat16 or float16 before the rotary (diffusers' bf16 positions under
autocast), for a sectioned M-RoPE and for a per-axis (Flux) layout, fail with that cause.

The rounding of the ports is torch's (round to nearest even), not pespec's. Large ids are
needed: integers up to 256 are exact in bfloat16 and up to 2048 in float16, so the ids start
after a long text prompt (1000 or 3000 tokens).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.rope.diagnosis import diagnosis_rows, low_precision
from pespec.multiaxis.rope.presets import PRESETS
from pespec.multiaxis.rope.run import check
from tests.multiaxis.rope import ports

torch = pytest.importorskip("torch")


def _rounded(dtype: Any) -> Any:
    def cast(positions: Any) -> Any:
        return torch.from_numpy(np.asarray(positions)).to(dtype).to(torch.float64).numpy()

    return cast


def _low(port: Any, dtype: Any) -> Any:
    cast = _rounded(dtype)

    def backend(x: Any, positions: Any, config: Any) -> Any:
        return port(x, cast(positions), config)

    return backend


def _after_prompt(name: str, text_before: int) -> dict[str, Any]:
    preset = PRESETS[name]
    return {
        "config": preset.config.to_dict(),
        "ids": "qwen-vl",
        "grid": [2, 8, 8],
        "text_before": text_before,
        "text_after": 8,
    }


CASES = [
    (
        "sectioned bf16",
        _low(ports.numpy_mrope(1e6, (16, 24, 24), False), torch.bfloat16),
        _after_prompt("qwen2.5-vl-7b", 1000),
        "position ids rounded to bfloat16",
    ),
    (
        "sectioned fp16",
        _low(ports.numpy_mrope(1e6, (16, 24, 24), False), torch.float16),
        _after_prompt("qwen2.5-vl-7b", 3000),
        "position ids rounded to float16",
    ),
    (
        "interleaved bf16",
        _low(ports.numpy_mrope(5e6, (24, 20, 20), True), torch.bfloat16),
        _after_prompt("qwen3-vl-4b", 1000),
        "position ids rounded to bfloat16",
    ),
    (
        "per-axis bf16",
        _low(ports.numpy_flux((16, 56, 56)), torch.bfloat16),
        _after_prompt("flux.1", 700),
        "position ids rounded to bfloat16",
    ),
]


@pytest.mark.parametrize(("label", "port", "config", "cause"), CASES, ids=[c[0] for c in CASES])
def test_low_precision_ids_are_named(label: str, port: Any, config: Any, cause: str) -> None:
    report = check(port, config=config)
    assert not report.conformant
    assert report.diagnosis is not None and report.diagnosis["cause"].startswith(cause), (
        report.diagnosis_sentence
    )


@pytest.mark.parametrize(
    ("name", "port"),
    [
        ("qwen2.5-vl-7b", ports.numpy_mrope(1e6, (16, 24, 24), False)),
        ("flux.1", ports.numpy_flux((16, 56, 56))),
    ],
)
def test_the_same_ports_at_full_precision_are_conformant(name: str, port: Any) -> None:
    assert check(port, config=_after_prompt(name, 1000)).conformant


def test_low_precision_ids_exact_there_are_no_neighbour() -> None:
    """Ids 0..256 are bfloat16 numbers and 0..2048 float16 ones: no candidate there."""
    small = np.array([[0, 1, 2], [255, 256, 17]])
    assert low_precision(small) == {}
    found = low_precision(np.array([[257, 3, 3], [1000, 1001, 1002]]))
    assert list(found) == ["position ids rounded to bfloat16 (positions in low precision)"]
    # 257 → 256 and 1001 → 1000 (ties to even at spacing 2 and 8), by hand.
    low = found["position ids rounded to bfloat16 (positions in low precision)"]
    assert low[0, 0] == 256 and low[1, 1] == 1000 and low[1, 2] == 1000


def test_diagnosis_rows_include_the_failing_ones() -> None:
    y = np.zeros((1000, 4))
    exact, bound = y.copy(), np.ones_like(y)
    y[997, 2] = 5.0
    rows = diagnosis_rows(y, exact, bound)
    assert 997 in rows and rows.size <= 129 and 0 in rows and 999 in rows


def test_an_mrope_port_no_neighbour_explains_is_diagnosed_without_a_crash() -> None:
    """θ 1e4 where 1e6 is declared: no neighbour matches; the diagnosis says so (it raised
    ValueError before: a per-axis neighbour of head_dim 3·128 was built for an M-RoPE) and
    measures θ per axis (issue 39: the rates are 10000^(−2j/128), the port's θ)."""
    report = check(ports.numpy_mrope(1e4, (16, 24, 24), False), config="qwen2.5-vl-7b")
    assert not report.conformant and report.diagnosis is not None
    assert "no neighbouring configuration" in report.diagnosis_sentence
    assert "θ measured 10000 where the config says 1e+06" in report.diagnosis_sentence
