"""The generated multi-axis rotary preset table (SPEC Annex K.1) states each preset's published
layout, dims per axis and θ. Expected values are the sources' (cited per row), not the code's."""

from __future__ import annotations

from paths import ROOT

from pespec.multiaxis.rope.config import mrope, per_axis_rotary
from pespec.multiaxis.rope.presets import PRESETS
from pespec.specblocks.mrope import layout_words, mrope_presets_table

PUBLISHED = {
    # Qwen/Qwen2.5-VL-7B-Instruct config.json: hidden 3584 / 28 heads, rope_theta 1e6,
    # mrope_section [16, 24, 24] (sectioned, rotate_half).
    "qwen2.5-vl-7b": ("128", "M-RoPE sectioned, halves", "pairs t 16, h 24, w 24", "1e+06"),
    # Qwen/Qwen3-VL-4B-Instruct config.json: head_dim 128, rope_theta 5e6, [24, 20, 20],
    # interleaved.
    "qwen3-vl-4b": ("128", "M-RoPE interleaved, halves", "pairs t 24, h 20, w 20", "5e+06"),
    # diffusers FluxPosEmbed(theta=10000, axes_dim=(16, 56, 56)), repeat_interleave_real.
    "flux.1": ("128", "per-axis, adjacent pairs", "axes_dim t 16, h 56, w 56", "10000"),
    # WanRotaryPosEmbed at attention_head_dim 128: h = w = 2·(128 // 6) = 42, t = 44.
    "wan2.1": ("128", "per-axis, adjacent pairs", "axes_dim t 44, h 42, w 42", "10000"),
    # HunyuanVideoTransformer3DModel: rope_axes_dim (16, 56, 56), rope_theta 256.
    "hunyuanvideo": ("128", "per-axis, adjacent pairs", "axes_dim t 16, h 56, w 56", "256"),
    # get_3d_rotary_pos_embed at 64: 64 // 4 = 16, 64 // 8 · 3 = 24.
    "cogvideox-5b": ("64", "per-axis, adjacent pairs", "axes_dim t 16, h 24, w 24", "10000"),
    # EVA-02-B/14: 768 / 12 = 64, half (32) per axis h then w, θ 10000.
    "eva02-b": ("64", "per-axis, adjacent pairs", "axes_dim h 32, w 32", "10000"),
    # Qwen2.5-VL vision_config: 1280 / 16 = 80, half (40) per axis h then w, rotate_half over
    # the whole head, θ 10000 (transformers' axial default).
    "qwen2.5-vl-vision": ("80", "per-axis, halves", "axes_dim h 40, w 40", "10000"),
}


def _rows(table: str) -> dict[str, list[str]]:
    rows = [line.strip("|").split(" | ") for line in table.splitlines()[2:]]
    return {cells[0].strip().strip("`"): [c.strip() for c in cells[1:]] for cells in rows}


def test_table_has_every_preset_with_its_published_layout() -> None:
    rows = _rows(mrope_presets_table())
    assert list(rows) == list(PRESETS)
    assert set(PUBLISHED) == set(PRESETS), "a preset without its published row here"
    for name, want in PUBLISHED.items():
        assert tuple(rows[name][:4]) == want, name
        assert rows[name][-1] == PRESETS[name].source


def test_layout_words_tell_sectioned_from_interleaved_and_per_axis() -> None:
    # [1, 1, 1] interleaved is t, h, w one pair each in slots 0, 1, 2: every axis one run of
    # one slot, indistinguishable from sectioned; [2, 1, 1]: t in slots 0 and 3 → interleaved.
    assert layout_words(mrope(8, 1e4, [2, 1, 1]))[0] == "M-RoPE sectioned, halves"
    assert layout_words(mrope(8, 1e4, [2, 1, 1], interleaved=True))[0] == (
        "M-RoPE interleaved, halves"
    )
    halves = per_axis_rotary((4, 8), 100.0, pairing="halves")
    assert layout_words(halves) == ("per-axis, halves", "axes_dim h 4, w 8", "100")


def test_annex_k_holds_the_generated_table_not_a_hand_copy() -> None:
    annex = (ROOT / "spec" / "30-annex-k-multiaxis-rope.md").read_text(encoding="utf-8")
    assert "<!-- GENERATED: pespec.specblocks.mrope:mrope_presets_table -->" in annex
    assert "[16, 24, 24]; the M-RoPE" not in annex  # the hand list it replaced
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    assert mrope_presets_table() in spec
