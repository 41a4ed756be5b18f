"""Real multi-axis rotary code through the multiaxis-rope suite (issue 28 item 5), and hand
ports of the documented bug classes, each failing with its cause named (SPEC §9.7)."""

from __future__ import annotations

from typing import Any

import pytest

from pespec.clients.mrope_clients import flux_backend, qwen_vl_backend
from pespec.multiaxis.rope.presets import PRESETS
from pespec.multiaxis.rope.run import check
from tests.multiaxis.rope import ports

pytest.importorskip("torch")


def small(name: str, **grid: Any) -> dict[str, Any]:
    """The preset on a small grid (2 frames of 6 × 6 after 4 text tokens, 4 after)."""
    preset = PRESETS[name]
    data = {"config": preset.config.to_dict(), "ids": preset.ids, "grid": [2, 6, 6]}
    data.update({"text_before": 4, "text_after": 4, **grid})
    return data


@pytest.mark.parametrize(
    ("kind", "name"),
    [("qwen2", "qwen2.5-vl-7b"), ("qwen2_5", "qwen2.5-vl-7b"), ("qwen3", "qwen3-vl-4b")],
)
def test_transformers_qwen_vl_rotary_is_conformant_at_float32(kind: str, name: str) -> None:
    pytest.importorskip("transformers")
    theta = {"qwen2.5-vl-7b": 1e6, "qwen3-vl-4b": 5e6}[name]
    section = {"qwen2.5-vl-7b": (16, 24, 24), "qwen3-vl-4b": (24, 20, 20)}[name]
    report = check(qwen_vl_backend(kind, 128, theta, section), config=small(name))
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]
    assert report.level == "float32/float32/float32"


def test_diffusers_flux_pos_embed_is_conformant_at_float32() -> None:
    pytest.importorskip("diffusers")
    report = check(flux_backend(), config=small("flux.1", grid=[1, 16, 16], text_before=8))
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]


def test_a_correct_port_is_conformant() -> None:
    report = check(ports.numpy_mrope(5e6, (24, 20, 20), True), config=small("qwen3-vl-4b"))
    assert report.conformant


@pytest.mark.parametrize(
    ("name", "port", "cause"),
    [
        (
            "qwen3-vl-4b",
            ports.numpy_mrope(5e6, (24, 20, 20), False),
            "sectioned M-RoPE instead of interleaved",
        ),
        (
            "qwen2.5-vl-7b",
            ports.numpy_mrope(1e6, (16, 24, 24), True),
            "interleaved M-RoPE instead of sectioned",
        ),
        (
            "qwen2.5-vl-7b",
            ports.numpy_mrope(1e6, (24, 24, 16), False),
            "mrope_section permuted to [24, 24, 16]",
        ),
        (
            "qwen2.5-vl-7b",
            ports.numpy_mrope(1e6, (24, 20, 20), False),
            "mrope_section resized to [24, 20, 20]",
        ),
        (
            "qwen2.5-vl-7b",
            ports.numpy_mrope(1e6, (16, 24, 24), False, swap_hw=True),
            "axes mixed up (h feeds w's sections, w feeds h's sections)",
        ),
    ],
)
def test_bug_class_ports_fail_with_their_cause(name: str, port: Any, cause: str) -> None:
    report = check(port, config=small(name))
    assert not report.conformant
    assert report.diagnosis == {"cause": cause}


@pytest.mark.parametrize(
    ("port", "cause"),
    [
        (ports.numpy_flux((16, 56, 56)), None),
        (ports.numpy_flux((56, 56, 16)), "axes_dim permuted to [56, 56, 16]"),
        (ports.numpy_flux((16, 56, 56), adjacent=False), "pairs in halves instead of interleaved"),
    ],
)
def test_flux_ports(port: Any, cause: str | None) -> None:
    report = check(port, config=small("flux.1", grid=[1, 8, 8], text_before=4))
    assert report.conformant is (cause is None)
    assert report.diagnosis == ({"cause": cause} if cause else None)


def test_a_misbehaving_backend_gets_a_failed_verdict() -> None:
    def wrong_shape(x: Any, positions: Any, config: Any) -> Any:
        return x[:, :-1]

    def raises(x: Any, positions: Any, config: Any) -> Any:
        raise RuntimeError("boom")

    for backend in (wrong_shape, raises):
        report = check(backend, config=small("qwen3-vl-4b"))
        assert not report.conformant


def test_a_claim_looser_than_the_output_dtype_fails() -> None:
    port = ports.numpy_mrope(5e6, (24, 20, 20), True)  # float32 output
    assert check(port, config=small("qwen3-vl-4b"), level="float32").conformant
    report = check(port, config=small("qwen3-vl-4b"), level="float32/bfloat16/bfloat16")
    assert not report.conformant
    dtype = next(c for c in report.checks if c.id == "contract:dtype")
    assert dtype.status == "failed" and "looser than the default" in dtype.message
