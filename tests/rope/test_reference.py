"""The exact float64 rotary reference against the certified oracle (SPEC Annex C.6).

Expected values come from :mod:`pespec.rope.oracle` (correctly rounded, tested against
mpmath in tests/rope/test_oracle.py). The tolerances are the proved bounds: cos/sin within
``COS_SIN_BOUND`` = 2^-52 of the oracle (SPEC Annex C's theorem on the ω' pieces), the rotation
within ``rotation_bound`` of the exact value, hence within that bound plus half an ulp of the
oracle's (correctly rounded) value.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pespec.rope import PRESETS, RopeConfig, cos_sin, oracle, rotate, rotation_bound
from pespec.rope.reference import COS_SIN_BOUND

NAMES = list(PRESETS)
RNG_SEED = 20260118


def _positions() -> np.ndarray:
    rng = np.random.default_rng(RNG_SEED)
    return np.concatenate(
        [
            np.arange(0, 130),
            np.arange(2**24 - 70, 2**24 + 1),
            rng.integers(0, 2**24, 40),
            [-1, -4097, 1_000_003],
        ]
    )


SLOW = {"Gemma-4-31B global layers"}
"""Presets whose oracle comparison takes over 10 s (72 s with the other core busy): slow."""


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in NAMES]
)
def test_cos_sin_within_bound_of_oracle(name: str) -> None:
    config = PRESETS[name]
    integral = _positions()
    fractional = np.array([0.5, 0.25, 1234.75, 3.0e-3, 2.0**24 - 0.5, -17.125, 1e-300])
    for positions in (integral, fractional):
        cos, sin = cos_sin(positions, config)
        want_cos, want_sin = oracle.cos_sin(positions.tolist(), config)
        assert cos.shape == sin.shape == (positions.shape[0], config.d_r // 2)
        assert np.max(np.abs(cos - want_cos)) <= COS_SIN_BOUND
        assert np.max(np.abs(sin - want_sin)) <= COS_SIN_BOUND


def _variants() -> list[tuple[str, RopeConfig]]:
    """Every preset, each preset in the two other pairings, and partial rotary."""
    out = []
    for name, config in PRESETS.items():
        out.append((name, config))
        for pairing in ("halves", "interleaved", "interleaved_in_halves_out"):
            if pairing != config.pairing:
                out.append((f"{name}/{pairing}", dataclasses.replace(config, pairing=pairing)))
        if config.short_factor is None and config.d_r == config.head_dim:
            partial = dataclasses.replace(config, rotary_dim=config.head_dim // 4)
            out.append((f"{name}/rotary_dim {config.head_dim // 4}", partial))
    return out


def _vectors(n: int, head_dim: int) -> np.ndarray:
    """Normal values at magnitudes 2^-20 .. 2^20, with some exact zeros and equal pairs."""
    rng = np.random.default_rng(RNG_SEED + head_dim)
    x = rng.standard_normal((n, head_dim)) * np.exp2(rng.integers(-20, 21, (n, 1)))
    x[0, :] = 0.0
    x[1, ::3] = 0.0
    return x


@pytest.mark.parametrize("name, config", _variants(), ids=[n for n, _ in _variants()])
def test_rotate_within_bound_of_oracle(name: str, config: RopeConfig) -> None:
    positions = np.array([0, 1, 2, 63, 64, 65, 4095, 4096, 131_071, 2**24 - 1, 2**24, 977, -3])
    x = _vectors(positions.shape[0], config.head_dim)
    got = rotate(x, positions, config)
    want = oracle.rotate(x, positions.tolist(), config)
    tolerance = rotation_bound(x, config) + np.spacing(np.abs(want)) / 2
    error = np.abs(got - want)
    assert np.all(error <= tolerance), f"worst error/bound {np.max(error / tolerance):.3g}"
    assert np.array_equal(got[:, config.d_r :], x[:, config.d_r :])  # pass-through, bit for bit
    fractional = np.array([0.5, 1234.75, -2.5])
    x3 = x[:3]
    got = rotate(x3, fractional, config)
    want = oracle.rotate(x3, fractional.tolist(), config)
    assert np.all(np.abs(got - want) <= rotation_bound(x3, config) + np.spacing(np.abs(want)) / 2)


def test_batched_rotation_equals_per_slice_bit_for_bit() -> None:
    config = PRESETS["DeepSeek-V3"]
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 200, 64))
    positions = np.arange(1000, 1200)
    got = rotate(x, positions, config)
    assert got.shape == x.shape
    for i in range(2):
        for k in range(3):
            assert np.array_equal(got[i, k], rotate(x[i, k], positions, config))
    # a row depends on its position alone: the same position in a gathered call
    picked = rotate(x[0, 0, [5, 150]], positions[[5, 150]], config)
    assert np.array_equal(picked, got[0, 0, [5, 150]])


def test_float32_input_is_taken_exactly() -> None:
    config = PRESETS["Llama-2-7B"]
    x = np.random.default_rng(1).standard_normal((4, 128)).astype(np.float32)
    assert np.array_equal(
        rotate(x, np.arange(4), config), rotate(x.astype(np.float64), np.arange(4), config)
    )


def test_bad_arguments_are_named() -> None:
    config = PRESETS["Llama-2-7B"]
    with pytest.raises(ValueError, match="head_dim=128"):
        rotate(np.zeros((2, 64)), [0, 1], config)
    with pytest.raises(ValueError, match="positions must have shape"):
        rotate(np.zeros((2, 128)), [0, 1, 2], config)
    with pytest.raises(ValueError, match="finite"):
        rotate(np.full((1, 128), np.nan), [0], config)
    with pytest.raises(ValueError, match=r"2\*\*40"):
        cos_sin([2**41], config)
    with pytest.raises(TypeError, match="RopeConfig"):
        cos_sin([1], "llama")  # type: ignore[arg-type]
