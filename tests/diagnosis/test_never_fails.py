"""The diagnosis never fails (issue 39 item 4): any output gets measured facts and a cause
or "not explained", never an exception. Hypothesis feeds the rotary and sinusoidal
diagnoses arbitrary outputs (identity, zeros, constants, NaN/inf anywhere, noise, every row
at one position, rotations at shifted or scaled positions) and fails on any exception.
The four named shapes are checked with their measured values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis import diagnose
from pespec.rope.diagnosis.examples import rotate_pairs
from pespec.rope.schedules import frequencies

KINDS = ("identity", "zeros", "constant", "noise", "one_position", "shift", "scale", "good")


def _rotated(x: Any, positions: Any, rope: RopeConfig) -> Any:
    """The float32 rotation at ``positions`` (float64 (n,)): the base of every output."""
    omegas, attention = frequencies(rope)
    phase = positions.astype(np.float32)[:, None] * omegas.astype(np.float32)[None, :]
    cos, sin = np.cos(phase) * np.float32(attention), np.sin(phase) * np.float32(attention)
    return rotate_pairs(x.astype(np.float32), cos, sin, rope.d_r, rope.pairing)


def _backend(kind: str, value: float, seed: int, poison: float | None) -> Any:
    def backend(x: Any, positions: Any, rope: RopeConfig) -> Any:
        rng = np.random.default_rng(seed)
        p = positions.astype(np.float64)
        if kind == "identity":
            y = x.copy()
        elif kind == "zeros":
            y = np.zeros_like(x)
        elif kind == "constant":
            y = np.full_like(x, value)
        elif kind == "noise":
            y = rng.standard_normal(x.shape) * value
        elif kind == "one_position":
            y = _rotated(x, np.full_like(p, abs(value)), rope)
        elif kind == "shift":
            y = _rotated(x, p + value, rope)
        elif kind == "scale":
            y = _rotated(x, p * value, rope)
        else:
            y = _rotated(x, p, rope)
        y = np.array(y, dtype=np.float64)
        if poison is not None:
            flat = y.reshape(-1)
            flat[rng.integers(0, flat.size, size=3)] = poison
        return y

    return backend


@settings(max_examples=30, deadline=None)
@given(
    kind=st.sampled_from(KINDS),
    value=st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    seed=st.integers(0, 2**16),
    poison=st.sampled_from([None, float("nan"), float("inf"), -float("inf"), 1e30]),
    layout=st.sampled_from([(8, None, "halves"), (8, 4, "interleaved"), (6, None, "halves")]),
)
def test_rotary_diagnosis_never_raises(
    kind: str, value: float, seed: int, poison: float | None, layout: tuple[int, int | None, str]
) -> None:
    head_dim, rotary_dim, pairing = layout
    config = RopeConfig(head_dim=head_dim, rotary_dim=rotary_dim, pairing=pairing)
    found = diagnose(_backend(kind, value, seed, poison), config, max_position=4096)
    assert found.sentence  # a cause, or "not explained" with what was measured
    assert "× too" not in found.sentence or "−" not in found.sentence.split("× too")[0][-12:]


CONFIG = RopeConfig(head_dim=64)


def test_identity_is_named() -> None:
    found = diagnose(_backend("identity", 0.0, 0, None), CONFIG)
    assert "returns x unchanged" in found.sentence and found.explained


def test_all_zero_and_constant_are_named() -> None:
    assert "zero for every input" in diagnose(_backend("zeros", 0, 0, None), CONFIG).sentence
    constant = diagnose(_backend("constant", 0.5, 0, None), CONFIG).sentence
    assert "does not depend on the input" in constant


def test_every_row_at_one_position_is_named_with_the_position() -> None:
    found = diagnose(_backend("one_position", 5.0, 0, None), CONFIG)
    assert "every row is rotated at position 5," in found.sentence


def test_nan_output_is_named_with_its_positions() -> None:
    found = diagnose(_backend("good", 0.0, 1, float("nan")), CONFIG)
    assert "NaN or infinite output values" in found.sentence
    assert "diagnosis unavailable" not in found.sentence


def test_llama31_port_rotating_at_p_plus_1_is_a_shift_of_one() -> None:
    config = RopeConfig(
        head_dim=128,
        theta=500000.0,
        rope_type="llama3",
        factor=8.0,
        low_freq_factor=1.0,
        high_freq_factor=4.0,
        original_max_position_embeddings=8192,
    )
    found = diagnose(_backend("shift", 1.0, 0, None), config)
    # the phase error of pair j is ω_j·1: pair 0's ω_0 = 1, so 1 rad (the issue's figure)
    assert "positions shifted by +1" in found.sentence, found.sentence
    assert "1 rad in the fastest pair" in found.sentence
    assert "bfloat16" not in found.sentence


def test_whole_head_rotated_where_config_rotates_a_fraction_names_the_width() -> None:
    def whole(x: Any, positions: Any, rope: RopeConfig) -> Any:
        return _rotated(x, positions.astype(np.float64), RopeConfig(head_dim=rope.head_dim))

    found = diagnose(whole, RopeConfig(head_dim=64, rotary_dim=32))
    assert "rotated width measured 64 columns, the config says d_r = 32" in found.sentence


@pytest.mark.parametrize("kind", ["identity", "zeros", "constant", "noise"])
def test_sinusoidal_diagnosis_never_raises(kind: str) -> None:
    from pespec.sinusoidal.diagnosis import diagnose as sincos_diagnose
    from pespec.sinusoidal.properties.base import Level

    def encoder(positions: Any, d_model: int, base: float) -> Any:
        n = len(positions)
        if kind == "identity":
            return np.tile(np.asarray(positions, dtype=np.float64)[:, None], (1, d_model))
        if kind == "zeros":
            return np.zeros((n, d_model))
        if kind == "constant":
            return np.full((n, d_model), np.nan)
        return np.random.default_rng(0).standard_normal((n, d_model))

    found = sincos_diagnose(encoder, level=Level("float32", "float32"))
    assert found.sentence()


SIN_KINDS = ("zeros", "constant", "nan", "inf", "noise", "positions", "huge", "one_row")


def _encoder(kind: str, value: float, seed: int) -> Any:
    def encoder(positions: Any, d_model: int, base: float) -> Any:
        n = len(positions)
        rng = np.random.default_rng(seed)
        if kind == "zeros":
            return np.zeros((n, d_model))
        if kind == "constant":
            return np.full((n, d_model), value)
        if kind in ("nan", "inf"):
            y = rng.standard_normal((n, d_model))
            y[rng.integers(0, n, size=2), 0] = np.nan if kind == "nan" else np.inf
            return y
        if kind == "positions":
            return np.tile(np.asarray(positions, dtype=np.float64)[:, None], (1, d_model))
        if kind == "huge":
            return np.full((n, d_model), 1e300) * value
        if kind == "one_row":
            return np.tile(rng.standard_normal(d_model), (n, 1))
        return rng.standard_normal((n, d_model)) * value

    return encoder


@settings(max_examples=12, deadline=None)
@given(
    kind=st.sampled_from(SIN_KINDS),
    value=st.floats(-1e3, 1e3, allow_nan=False),
    seed=st.integers(0, 2**16),
)
def test_sinusoidal_diagnosis_never_raises_on_arbitrary_outputs(
    kind: str, value: float, seed: int
) -> None:
    from pespec.sinusoidal.diagnosis import diagnose as sincos_diagnose
    from pespec.sinusoidal.properties.base import Level

    found = sincos_diagnose(_encoder(kind, value, seed), level=Level("float32", "float32"))
    assert found.sentence()


@settings(max_examples=6, deadline=None)
@given(kind=st.sampled_from(("identity", "zeros", "nan", "noise", "one_position")))
def test_multiaxis_diagnosis_never_raises_on_arbitrary_outputs(kind: str) -> None:
    from pespec.multiaxis.rope.run import check
    from tests.multiaxis.rope.ports import small

    def backend(x: Any, positions: Any, config: Any) -> Any:
        if kind == "identity":
            return x.copy()
        if kind == "zeros":
            return np.zeros_like(x)
        if kind == "nan":
            return np.full_like(x, np.nan)
        if kind == "one_position":
            return backend_at_zero(x)
        return np.random.default_rng(0).standard_normal(x.shape)

    def backend_at_zero(x: Any) -> Any:
        return x.astype(np.float32)  # every row at position 0: the rotation is the identity

    report = check(backend, config=small("flux.1", grid=[1, 4, 4]))
    assert not report.conformant
    assert report.diagnosis_sentence  # a cause or what was measured, never empty
