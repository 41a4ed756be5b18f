"""The diagnosis names "the t/h/w split computed the other way" (diffusers Wan's two formulas,
h = w = 2⌊D/6⌋ in ``WanRotaryPosEmbed.__init__`` and ⌊D/3⌋ in ChronoEdit's ``forward``), with
the values: a hand-made float32 port, the real ChronoEdit rope at D 64, and the neighbour's
exact value against an independent 400-bit mpmath transcription
(tests/multiaxis/rope/mp_video.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.rope.config import mrope
from pespec.multiaxis.rope.presets import PRESETS, resolve_config
from pespec.multiaxis.rope.run import check
from pespec.multiaxis.rope.splits import misread_apply, other_split
from pespec.multiaxis.rope.video import video_rotary, wan_axes_dim
from pespec.rope.inputs import drawn_x
from tests.multiaxis.rope import mp_video

WAN64 = video_rotary(wan_axes_dim(64), 10000.0, "wan-d64")  # 24, 20, 20
CONFIG = {"config": WAN64.to_dict(), "ids": "grid", "grid": [3, 6, 7]}
NAME = "the t/h/w split computed the other way (the table built as 24, 20, 20"


def _port(built: tuple[int, ...], read: tuple[int, ...]) -> Any:
    """A float32 numpy port of a Wan rope: per-axis tables of dims ``built`` (ω_j =
    10000^(−2j/d), each repeated for its pair), concatenated, the columns read at the
    coordinate of the axis whose ``read`` chunk holds them; cos at 2s, sin at 2s + 1."""

    def backend(x: np.ndarray, positions: np.ndarray, config: Any) -> np.ndarray:
        omegas = [
            np.repeat(1.0 / 10000.0 ** (np.arange(0, d, 2, dtype=np.float64) / d), 2) for d in built
        ]
        omega = np.concatenate(omegas).astype(np.float32)
        axis = np.repeat(np.arange(3), read)
        angle = positions[:, axis].astype(np.float32) * omega
        c, s = np.cos(angle[:, 0::2]), np.sin(angle[:, 1::2])
        a, b = x[:, 0::2].astype(np.float32), x[:, 1::2].astype(np.float32)
        out = np.empty(x.shape, dtype=np.float32)
        out[:, 0::2], out[:, 1::2] = a * c - b * s, a * s + b * c
        return out

    return backend


def test_the_neighbour_is_offered_only_where_the_two_formulas_differ() -> None:
    got = other_split(WAN64)
    assert got is not None and got[1] == (22, 21, 21)  # 64 − 2·21, 64 // 3, 64 // 3
    assert "24, 20, 20" in got[0] and "22, 21, 21" in got[0] and "D 64" in got[0]
    assert other_split(PRESETS["wan2.1"].config) is None  # D 128: 44, 42, 42 both ways
    assert other_split(PRESETS["hunyuanvideo"].config) is None  # 16, 56, 56 is not Wan's split
    assert other_split(mrope(64, 1e4, [12, 10, 10])) is None  # halves M-RoPE


def test_the_neighbour_value_is_the_mpmath_transcription() -> None:
    positions = resolve_config(CONFIG).positions()[::9]
    x = drawn_x(positions.shape[0], 64, seed=3)
    got = misread_apply(x, positions, WAN64, (22, 21, 21))
    want = np.array(
        [
            mp_video.split_row(r, p, 1e4, (24, 20, 20), (22, 21, 21))
            for r, p in zip(x.tolist(), positions.tolist(), strict=True)
        ]
    )
    # cos, sin within 2^-52 each (reference.cos_sin), then a·c − b·s in float64:
    # |error| ≤ (|a| + |b|)·(2^-52 + 2^-53) + 2^-53·|result| ≤ 2^-50·(|a| + |b|).
    pair_sum = np.repeat(np.abs(x[:, 0::2]) + np.abs(x[:, 1::2]), 2, axis=1)
    assert np.all(np.abs(got - want) <= 2.0**-50 * pair_sum)


def test_a_hand_port_reading_the_other_split_fails_with_the_cause_named() -> None:
    report = check(_port((24, 20, 20), (22, 21, 21)), config=CONFIG)
    assert not report.conformant
    assert report.diagnosis == {"cause": other_split(WAN64)[0]}  # type: ignore[index]
    assert NAME in report.diagnosis_sentence and "read as 22, 21, 21" in report.diagnosis_sentence


def test_the_same_port_reading_its_own_split_is_conformant() -> None:
    # No false failure: the port is correct when built and read one way.
    assert check(_port((24, 20, 20), (24, 20, 20)), config=CONFIG).conformant


def test_another_bug_keeps_its_own_name() -> None:
    # h and w exchanged (read 24, 20, 20 at t, w, h) is a §9.7 neighbour and is named first.
    def swapped(x: np.ndarray, positions: np.ndarray, config: Any) -> np.ndarray:
        out: np.ndarray = _port((24, 20, 20), (24, 20, 20))(x, positions[:, [0, 2, 1]], config)
        return out

    report = check(swapped, config=CONFIG)
    assert not report.conformant and "axes mixed up" in report.diagnosis["cause"]


def test_real_chronoedit_rope_at_64_is_named() -> None:
    pytest.importorskip("diffusers")
    from pespec.clients import mrope_video as vp

    report = check(vp.wan_backend(64, chronoedit=True), config=CONFIG)
    assert not report.conformant
    assert NAME in report.diagnosis_sentence
