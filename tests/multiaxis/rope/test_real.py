"""Real multi-axis rotary code through the multiaxis-rope suite (issue 28 item 5), and hand
ports of the documented bug classes, each failing with its cause named (SPEC §9.7)."""

from __future__ import annotations

from typing import Any

import pytest

from pespec.clients.mrope_clients import flux_backend, qwen_vl_backend
from pespec.multiaxis.rope.run import check
from tests.multiaxis.rope import ports
from tests.multiaxis.rope.ports import small, small_config

pytest.importorskip("torch")


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


@pytest.mark.parametrize(
    ("name", "port", "preset", "cause"), ports.BUG_CLASSES, ids=[c[0] for c in ports.BUG_CLASSES]
)
def test_ports_of_the_bug_classes(name: str, port: Any, preset: str, cause: str | None) -> None:
    """A correct port is conformant; a bug class's port fails with its cause named."""
    report = check(port, config=small_config(preset))
    assert report.conformant is (cause is None), name
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
