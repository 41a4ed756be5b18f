"""Video rotaries (SPEC §9.7): Wan 2.1, HunyuanVideo, CogVideoX-5b presets against an
independent mpmath transcription (400 bits), their head splits, and the real diffusers 0.42.1
modules with their apply functions at float32."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.rope.presets import PRESETS, resolve_config
from pespec.multiaxis.rope.reference import apply, oracle_apply, reference_bound
from pespec.multiaxis.rope.run import check
from pespec.multiaxis.rope.video import (
    cogvideox_axes_dim,
    video_rotary,
    wan_axes_dim,
    wan_forward_split,
)
from pespec.rope.inputs import drawn_x
from tests.multiaxis.rope import mp, mp_video

PUBLISHED = {  # (θ, (t, h, w) dims) read from the diffusers 0.42.1 sources (module docstring)
    "wan2.1": (10000.0, (44, 42, 42)),  # WanRotaryPosEmbed, D 128: h = w = 2·(128 // 6)
    "hunyuanvideo": (256.0, (16, 56, 56)),  # rope_theta, rope_axes_dim
    "cogvideox-5b": (10000.0, (16, 24, 24)),  # get_3d_rotary_pos_embed, D 64: 64/4, 64/8·3
    "eva02-b": (10000.0, (32, 32)),  # EVA-02 VisionRotaryEmbeddingFast(dim=64 // 2), h then w
}
U32 = 2.0**-24


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_oracle_is_the_correctly_rounded_mpmath_value(name: str) -> None:
    preset = PRESETS[name]
    grid = preset.positions()
    rows = np.unique(np.r_[0, 1, 7, grid.shape[0] // 2, grid.shape[0] - 2, grid.shape[0] - 1])
    positions = grid[rows]
    x = drawn_x(positions.shape[0], preset.config.head_dim, seed=5)
    theta, dims = PUBLISHED[name]
    rows_mp = [
        mp.flux_row(r, p, theta, dims) for r, p in zip(x.tolist(), positions.tolist(), strict=True)
    ]
    expected = np.array(rows_mp)
    assert np.array_equal(oracle_apply(x, positions, preset.config), expected)
    error = np.abs(apply(x, positions, preset.config) - expected)
    assert np.all(error <= reference_bound(x, positions, preset.config))


def test_head_splits_and_grids() -> None:
    assert wan_axes_dim(128) == (44, 42, 42) == wan_forward_split(128)
    assert wan_axes_dim(64) == (24, 20, 20) and wan_forward_split(64) == (22, 21, 21)
    assert cogvideox_axes_dim(64) == (16, 24, 24)
    # the pipelines' defaults: Wan 81 × 480 × 832, HunyuanVideo 129 × 720 × 1280, CogVideoX
    # 49 × 480 × 720; VAE 4× in time ((f − 1)/4 + 1), 8× in space, patch 2 × 2.
    grids = {name: PRESETS[name].grid for name in PUBLISHED}
    assert grids == {
        "eva02-b": (1, 16, 16),  # 224 / 14
        "wan2.1": (21, 30, 52),
        "hunyuanvideo": (33, 45, 80),
        "cogvideox-5b": (13, 30, 45),
    }
    ids = PRESETS["wan2.1"].positions()
    assert ids[:2].tolist() == [[0, 0, 0], [0, 0, 1]] and ids[-1].tolist() == [20, 29, 51]
    with pytest.raises(ValueError, match="attention_head_dim must be an int >= 6"):
        wan_axes_dim(4)
    with pytest.raises(ValueError, match="every axis dim must be even"):
        video_rotary((21, 21, 22), 1e4, "odd")
    eva = PRESETS["eva02-b"].positions()  # (h, w), w fastest
    assert eva.shape == (256, 2) and eva[[0, 1, 16]].tolist() == [[0, 0], [0, 1], [1, 0]]
    with pytest.raises(ValueError, match="the position ids have 2 axes; the config has 3"):
        resolve_config({"config": PRESETS["wan2.1"].config.to_dict(), "ids": "grid2d"})
    with pytest.raises(ValueError, match="ids must be one of"):
        resolve_config({"config": PRESETS["wan2.1"].config.to_dict(), "ids": "video"})


def small(name: str, grid: list[int]) -> dict[str, Any]:
    preset = PRESETS[name]
    return {"config": preset.config.to_dict(), "ids": "grid", "grid": grid}


REAL = [("wan2.1", "wan"), ("hunyuanvideo", "hunyuan"), ("cogvideox-5b", "cogvideox")]


@pytest.mark.parametrize(("name", "kind"), REAL)
def test_diffusers_video_rotary_is_conformant_at_float32(name: str, kind: str) -> None:
    pytest.importorskip("diffusers")
    from pespec.clients import mrope_video as vp

    backend = {
        "wan": vp.wan_backend(),
        "hunyuan": vp.hunyuan_backend(),
        "cogvideox": vp.cogvideox_backend,
    }[kind]
    report = check(backend, config=small(name, [3, 10, 12]))
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]
    assert report.level == "float32/float32/float32"


def test_chronoedit_split_agrees_with_wan_at_128() -> None:
    pytest.importorskip("diffusers")
    from pespec.clients import mrope_video as vp

    report = check(vp.wan_backend(chronoedit=True), config=small("wan2.1", [3, 6, 7]))
    assert report.conformant


def test_chronoedit_split_computed_two_ways_is_non_conformant_at_64() -> None:
    # ChronoEdit builds its table as Wan's 24, 20, 20 and reads it as 22, 21, 21 (D = 64).
    pytest.importorskip("diffusers")
    from pespec.clients import mrope_video as vp

    wan64 = video_rotary(wan_axes_dim(64), 10000.0, "wan-d64")
    config = {"config": wan64.to_dict(), "ids": "grid", "grid": [3, 6, 7]}
    backend = vp.wan_backend(64, chronoedit=True)
    assert not check(backend, config=config).conformant
    # The cause, confirmed independently: the real output is the mpmath value of the table
    # read with the other split, within float32's rounding of cos, sin (u each, relative),
    # two products and a sum: ≤ 3u(|x_a| + |x_b|) + O(u²) ≤ 4u(|x_a| + |x_b|).
    positions = resolve_config(config).positions()
    x = drawn_x(positions.shape[0], 64, seed=1)
    got = backend(x, positions, wan64)
    misread = np.array(
        [
            mp_video.split_row(r, p, 1e4, (24, 20, 20), (22, 21, 21))
            for r, p in zip(x.tolist(), positions.tolist(), strict=True)
        ]
    )
    pair_sum = np.repeat(np.abs(x[:, 0::2]) + np.abs(x[:, 1::2]), 2, axis=1)
    assert np.all(np.abs(got - misread) <= 4 * U32 * pair_sum)
    # and the same transcription with one split is Wan's rotary (the oracle), which it misses
    same = [
        mp_video.split_row(r, p, 1e4, (24, 20, 20), (24, 20, 20))
        for r, p in zip(x[:4].tolist(), positions[:4].tolist(), strict=True)
    ]
    assert np.array_equal(np.array(same), oracle_apply(x[:4], positions[:4], wan64))
    # (the misread pairs are the lowest frequencies, ω ≈ 2e-4: a small but certain miss)
    miss = np.abs(got - oracle_apply(x, positions, wan64)) / (4 * U32 * np.maximum(pair_sum, 1))
    assert np.max(miss) > 1000


def test_every_preset_has_an_mpmath_oracle_test() -> None:
    # grid presets are checked here, the others in test_definition.py
    assert {n for n in PRESETS if PRESETS[n].ids in ("grid", "grid2d")} == set(PUBLISHED)


def _eva_port(swap: bool) -> Any:
    """A float32 port of EVA-02's VisionRotaryEmbeddingFast(32) over (h, w) (no real EVA
    package installs here): ω_j = 10000^(−2j/32) per axis, h first (w first with ``swap``),
    adjacent pairs."""

    def backend(x: np.ndarray, positions: np.ndarray, config: Any) -> np.ndarray:
        inv = (1.0 / 10000.0 ** (np.arange(0, 32, 2, dtype=np.float32) / 32)).astype(np.float32)
        p = positions[:, ::-1] if swap else positions
        angle = np.concatenate([p[:, a : a + 1].astype(np.float32) * inv for a in (0, 1)], 1)
        c, s = np.cos(angle), np.sin(angle)
        v = x.astype(np.float32)
        out = np.empty_like(v)
        out[:, 0::2] = v[:, 0::2] * c - v[:, 1::2] * s
        out[:, 1::2] = v[:, 1::2] * c + v[:, 0::2] * s
        return out

    return backend


def test_eva02_ports() -> None:
    assert check(_eva_port(False), config="eva02-b").conformant
    report = check(_eva_port(True), config="eva02-b")
    assert not report.conformant
    assert report.diagnosis is not None and "axes" in report.diagnosis["cause"]
