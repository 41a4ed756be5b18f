"""The multi-axis rotary presets (SPEC Annex K.1): layout, dims per axis, θ, ids, source."""

from __future__ import annotations

from pespec.multiaxis.rope.config import MultiAxisRopeConfig
from pespec.multiaxis.rope.presets import PRESETS, Preset

__all__ = ["mrope_presets_table"]  # layout_words too, for tests; no block of its own

_IDS = {
    "qwen-vl": "Qwen-VL: {before} text, T×H×W = {grid}, {after} text",
    "flux": "Flux: {before} text (0, 0, 0), latent H×W = {hw}",
    "grid": "video patches T×H×W = {grid}",
    "grid2d": "image patches H×W = {hw}",
    "qwen-vision": "Qwen-VL vision encoder: patches H×W = {hw}, 2×2 merge blocks, windows of "
    "4×4 blocks",
}
"""The position ids of each ``Preset.ids`` rule, in words."""


def layout_words(config: MultiAxisRopeConfig) -> tuple[str, str, str]:
    """(layout, dims per axis, θ) of ``config`` read from its sections.

    M-RoPE (every section pairs of one rotary over the whole head) is *sectioned* when each
    axis holds one run of slots, else *interleaved*: dims are pairs per axis
    (``mrope_section``). Otherwise *per-axis*: dims are each axis's rotary head_dim
    (``axes_dim``)."""
    letters = "hw" if config.axes == 2 else "thw"
    sections = sorted(config.sections, key=lambda s: s.axis)
    ropes = {s.rope for s in sections}
    thetas = sorted({s.rope.theta for s in sections})
    theta = ", ".join(f"{t:g}" for t in thetas)
    pairing = "halves" if config.pairing == "halves" else "adjacent pairs"
    if len(ropes) == 1 and sections[0].rope.head_dim == config.head_dim:
        runs = all(max(s.slots) - min(s.slots) + 1 == len(s.slots) for s in sections)
        layout = f"M-RoPE {'sectioned' if runs else 'interleaved'}, {pairing}"
        dims = "pairs " + ", ".join(f"{letters[s.axis]} {len(s.pairs)}" for s in sections)
        return layout, dims, theta
    dims = "axes_dim " + ", ".join(f"{letters[s.axis]} {s.rope.head_dim}" for s in sections)
    return f"per-axis, {pairing}", dims, theta


def _ids(preset: Preset) -> str:
    grid = "×".join(str(g) for g in preset.grid)
    hw = f"{preset.grid[1]}×{preset.grid[2]}"
    return _IDS[preset.ids].format(
        before=preset.text_before, after=preset.text_after, grid=grid, hw=hw
    )


def mrope_presets_table() -> str:
    """Every multi-axis rotary preset: D, layout, dims per axis, θ, position ids, source."""
    lines = [
        "| preset | D | layout | dims per axis | θ | position ids checked | source |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, preset in PRESETS.items():
        layout, dims, theta = layout_words(preset.config)
        lines.append(
            f"| `{name}` | {preset.config.head_dim} | {layout} | {dims} | {theta} "
            f"| {_ids(preset)} | {preset.source} |"
        )
    return "\n".join(lines) + "\n"
