"""The multi-axis rotary definition (SPEC §9.7): layouts, presets, position ids, and the
oracle and exact reference against an independent mpmath transcription (400 bits)."""

from __future__ import annotations

import numpy as np
import pytest

from pespec.multiaxis.rope.config import (
    MultiAxisRopeConfig,
    RotarySection,
    mrope,
    mrope_axes,
    per_axis_rotary,
)
from pespec.multiaxis.rope.positions import flux_positions, qwen_vl_positions
from pespec.multiaxis.rope.presets import PRESETS, from_hf_config, resolve_config
from pespec.multiaxis.rope.reference import apply, oracle_apply, reference_bound
from pespec.rope.config import RopeConfig
from pespec.rope.inputs import drawn_x
from tests.multiaxis.rope import mp


def _expected(name: str, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The mpmath rows of a preset, from the published numbers (not from the config object)."""
    published = {
        "qwen2.5-vl-7b": (1e6, (16, 24, 24), False),
        "qwen3-vl-4b": (5e6, (24, 20, 20), True),
    }
    rows = []
    for row, pos in zip(x.tolist(), positions.tolist(), strict=True):
        if name == "flux.1":
            rows.append(mp.flux_row(row, pos, 10000.0, (16, 56, 56)))
        else:
            theta, section, interleaved = published[name]
            rows.append(mp.qwen_row(row, pos, theta, section, interleaved))
    return np.array(rows)


@pytest.mark.parametrize(  # the others: tests/multiaxis/rope/test_video.py, test_qwen_vision.py
    "name", sorted(n for n in PRESETS if PRESETS[n].ids not in ("grid", "grid2d", "qwen-vision"))
)
def test_oracle_is_the_correctly_rounded_mpmath_value(name: str) -> None:
    preset = PRESETS[name]
    grid = preset.positions()
    rows = np.unique(np.r_[0, 1, grid.shape[0] // 2, grid.shape[0] - 17, grid.shape[0] - 1])
    positions = grid[rows]
    x = drawn_x(positions.shape[0], preset.config.head_dim, seed=3)
    expected = _expected(name, x, positions)
    assert np.array_equal(oracle_apply(x, positions, preset.config), expected)
    error = np.abs(apply(x, positions, preset.config) - expected)
    assert np.all(error <= reference_bound(x, positions, preset.config))


def test_qwen3_interleaving_pattern() -> None:
    # transformers 5.24 Qwen3VLTextRotaryEmbedding.recomposition_frequencies with [24, 20, 20]:
    # h overwrites slice(1, 60, 3) = 1, 4, ..., 58; w overwrites slice(2, 60, 3) = 2, ..., 59;
    # t keeps 0, 3, ..., 57 and 60, 61, 62, 63.
    axes = mrope_axes(64, (24, 20, 20), interleaved=True)
    assert [j for j, a in enumerate(axes) if a == 1] == list(range(1, 60, 3))
    assert [j for j, a in enumerate(axes) if a == 2] == list(range(2, 60, 3))
    assert [j for j, a in enumerate(axes) if a == 0] == [*range(0, 60, 3), 60, 61, 62, 63]
    # Qwen2-VL [16, 24, 24]: split then chunk i from axis i: 16 t, 24 h, 24 w.
    assert mrope_axes(64, (16, 24, 24), interleaved=False) == [0] * 16 + [1] * 24 + [2] * 24


def test_presets_read_the_published_fields() -> None:
    qwen2 = PRESETS["qwen2.5-vl-7b"].config
    assert qwen2 == mrope(128, 1e6, (16, 24, 24))  # 3584 / 28 = 128
    assert PRESETS["qwen3-vl-4b"].config == mrope(128, 5e6, (24, 20, 20), interleaved=True)
    flux = PRESETS["flux.1"].config
    assert flux.head_dim == 128 and flux.pairing == "interleaved"
    assert [s.rope.head_dim for s in flux.sections] == [16, 56, 56]


def test_config_round_trips_and_validates() -> None:
    for preset in PRESETS.values():
        assert MultiAxisRopeConfig.from_dict(preset.config.to_dict()) == preset.config
    rope = RopeConfig(head_dim=8)
    with pytest.raises(ValueError, match="slots must fill"):
        MultiAxisRopeConfig(8, 1, (RotarySection(0, rope, (0, 1), (0, 1)),))
    with pytest.raises(ValueError, match="axes must be < 1"):
        MultiAxisRopeConfig(8, 1, (RotarySection(1, rope, (0, 1, 2, 3), (0, 1, 2, 3)),))
    with pytest.raises(ValueError, match="mrope_section must sum to head_dim/2 = 64"):
        mrope(128, 1e6, (16, 24, 16))
    with pytest.raises(ValueError, match="pairing must be one of"):
        per_axis_rotary((16, 56, 56), 1e4, pairing="adjacent")
    with pytest.raises(ValueError, match="config must be one of"):
        resolve_config("qwen2-vl")
    with pytest.raises(ValueError, match="no mrope_section"):
        from_hf_config({"rope_theta": 1e6, "hidden_size": 64, "num_attention_heads": 1})
    with pytest.raises(ValueError, match="no head_dim, nor hidden_size"):
        from_hf_config({"rope_theta": 1e6, "rope_scaling": {"mrope_section": [1, 1, 2]}})


def test_position_ids() -> None:
    # Qwen2-VL get_rope_index: 2 text tokens (0,0,0), (1,1,1); a (1, 2, 2) image at start 2:
    # (2, 2, 2), (2, 2, 3), (2, 3, 2), (2, 3, 3); the next text token at max + 1 = 4.
    ids = qwen_vl_positions(2, (1, 2, 2), text_after=1)
    expected = [[0, 0, 0], [1, 1, 1], [2, 2, 2], [2, 2, 3], [2, 3, 2], [2, 3, 3], [4, 4, 4]]
    assert ids.tolist() == expected
    assert flux_positions(2, 2, text=1).tolist() == [
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 1],
        [0, 1, 0],
        [0, 1, 1],
    ]
