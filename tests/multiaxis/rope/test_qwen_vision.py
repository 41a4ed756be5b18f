"""Qwen2.5-VL's vision-encoder rotary (preset ``qwen2.5-vl-vision``, SPEC §9.7): the preset
from the published vision_config, its oracle against an independent mpmath transcription,
its token order against transformers' and llama.cpp's, and transformers' own rotary module
with its apply function conformant at float32."""

from __future__ import annotations

import importlib
import json
from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.rope.presets import PRESETS, PUBLISHED, resolve_config
from pespec.multiaxis.rope.reference import apply, oracle_apply, reference_bound
from pespec.multiaxis.rope.run import check
from pespec.rope.inputs import drawn_x
from tests.multiaxis.rope import mp

NAME = "qwen2.5-vl-vision"
# Qwen/Qwen2.5-VL-7B-Instruct vision_config: hidden_size 1280, num_heads 16 → D 80;
# spatial_merge_size 2, window_size 112, patch_size 14 → windows of 112 / 2 / 14 = 4 blocks.
# transformers 5.24 Qwen2_5_VLVisionConfig: rope_type "axial", θ default 10000.
HEAD, THETA, MERGE, WINDOW = 80, 10000.0, 2, 4


def _vision_config() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (PUBLISHED / "qwen2.5-vl-7b-instruct.json").read_text(encoding="utf-8")
    )["vision_config"]
    return data


def test_preset_is_the_published_vision_config() -> None:
    preset = PRESETS[NAME]
    vision = _vision_config()
    assert vision["hidden_size"] // vision["num_heads"] == HEAD == preset.config.head_dim
    assert preset.config.axes == 2 and preset.config.pairing == "halves"
    for axis, section in enumerate(preset.config.sections):
        assert section.axis == axis and section.rope.head_dim == HEAD // 2
        assert section.rope.theta == THETA
        assert section.slots == tuple(range(axis * HEAD // 4, (axis + 1) * HEAD // 4))
    # transformers' Qwen2VLImageProcessor: max_pixels 28·28·1280 = 1003520; 980² = 960400 is the
    # largest square image of whole 28-pixel blocks under it (1008² = 1016064 is not).
    assert 980**2 <= 28 * 28 * 1280 < 1008**2
    assert preset.grid == (1, 70, 70) and preset.positions().shape == (4900, 2)


def test_oracle_is_the_correctly_rounded_mpmath_value() -> None:
    preset = PRESETS[NAME]
    ids = preset.positions()
    rows = np.r_[0, 1, 2, 3, 5, 63, 64, 130, 2000, 4899]
    positions = ids[rows]
    x = drawn_x(positions.shape[0], HEAD, seed=11)
    expected = np.array(
        [mp.vision_row(r, p, THETA) for r, p in zip(x.tolist(), positions.tolist(), strict=True)]
    )
    assert np.array_equal(oracle_apply(x, positions, preset.config), expected)
    error = np.abs(apply(x, positions, preset.config) - expected)
    assert np.all(error <= reference_bound(x, positions, preset.config))


def _clip_cpp_order(height: int, width: int) -> list[tuple[int, int]]:
    """llama.cpp tools/mtmd/clip.cpp, PROJECTOR_TYPE_QWEN25VL's ``positions`` input (facts
    transcribed): merged blocks (y, x step 2) in row-major order, each block's window-order
    index ``idx`` (windows of ``grid_window`` blocks row-major, blocks row-major inside);
    patch ``ptr`` of block b written at ``idx[b]·4 + ptr % 4`` as (y + dy, x + dx)."""
    ph, pw = height // MERGE, width // MERGE
    idx, dst = [0] * (ph * pw), 0
    for y in range(0, ph, WINDOW):
        for x in range(0, pw, WINDOW):
            for dy in range(min(WINDOW, ph - y)):
                for dx in range(min(WINDOW, pw - x)):
                    idx[(y + dy) * pw + (x + dx)] = dst
                    dst += 1
    out = [(0, 0)] * (height * width)
    ptr = 0
    for y in range(0, height, MERGE):
        for x in range(0, width, MERGE):
            for dy in range(2):
                for dx in range(2):
                    out[idx[ptr // 4] * 4 + ptr % 4] = (y + dy, x + dx)
                    ptr += 1
    return out


@pytest.mark.parametrize("grid", [(70, 70), (16, 16), (12, 20), (6, 10)])
def test_token_order_is_llama_cpp_clip_order(grid: tuple[int, int]) -> None:
    preset = resolve_config({**PRESETS[NAME].to_dict(), "grid": [1, *grid]})
    assert [tuple(p) for p in preset.positions().tolist()] == _clip_cpp_order(*grid)


@pytest.mark.parametrize("grid", [(70, 70), (16, 16), (12, 20)])
def test_token_order_is_transformers_order(grid: tuple[int, int]) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    vu = importlib.import_module("transformers.vision_utils")
    thw = torch.tensor([[1, *grid]])
    ids = vu.get_vision_position_ids(thw, MERGE)
    window, _ = vu.get_vision_window_index(thw, MERGE, 112, 14)
    ordered = ids.reshape(-1, MERGE * MERGE, 2)[window].reshape(-1, 2).numpy()
    preset = resolve_config({**PRESETS[NAME].to_dict(), "grid": [1, *grid]})
    assert np.array_equal(preset.positions(), ordered)


def transformers_vision_backend(swap: bool = False) -> Any:
    """transformers 5.24's ``Qwen2_5_VLVisionRotaryEmbedding`` built from the published
    vision_config and the model's ``apply_rotary_pos_emb_vision`` on a float32 query: x (n, D),
    positions (n, 2) (h, w) in the encoder's order; ``swap`` feeds (w, h) (a port of the
    h/w-exchange bug class, to show the check can fail)."""
    torch = importlib.import_module("torch")
    module = importlib.import_module("transformers.models.qwen2_5_vl.modeling_qwen2_5_vl")
    transformers = importlib.import_module("transformers")
    rotary = module.Qwen2_5_VLVisionRotaryEmbedding(
        transformers.Qwen2_5_VLVisionConfig(**_vision_config())
    )

    def backend(x: Any, positions: Any, config: Any) -> Any:
        p = torch.as_tensor(np.asarray(positions)[:, ::-1] if swap else positions)
        q = torch.as_tensor(np.asarray(x, dtype=np.float32))[:, None, :]
        cos, sin = rotary(q, p.contiguous())
        y, _ = module.apply_rotary_pos_emb_vision(q, q, cos, sin)
        return y[:, 0, :].numpy()

    return backend


def test_transformers_vision_rotary_is_the_preset_at_float32() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    report = check(transformers_vision_backend(), config=NAME)
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]
    assert report.level == "float32/float32/float32"
    assert not check(transformers_vision_backend(swap=True), config=NAME).conformant


@pytest.mark.parametrize("name", ["transformers:qwen2_vl-vision", "transformers:qwen2_5_vl-vision"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_transformers_vision_clients_are_conformant(name: str, dtype: str) -> None:
    # The table's clients (θ and D read from the preset's sections, not from the file).
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from pespec.clients.catalog import get_client

    client = get_client(name)
    assert client.configs == (NAME,) and client.options["kind"] in (
        "qwen2_vision",
        "qwen2_5_vision",
    )
    report = check(client.build(dtype, NAME), config=NAME)
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]
    assert report.level == f"float32/{dtype}/{dtype}"


def test_vision_clients_refuse_a_three_axis_preset() -> None:
    from pespec.clients.catalog import get_client

    with pytest.raises(ValueError, match=r"takes \(h, w\) positions; --config 'qwen2.5-vl-7b'"):
        get_client("transformers:qwen2_5_vl-vision").build("float32", "qwen2.5-vl-7b")
