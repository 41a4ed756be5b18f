"""The multi-axis presets (SPEC §9.3): configuration, grid, coordinates and source."""

from __future__ import annotations

from pespec._markdown import cell
from pespec.multiaxis.sinusoidal.presets import PRESETS

__all__ = ["multiaxis_presets_table"]


def _coordinates(base: float | None, sizes: tuple[int, ...], scale: object) -> str:
    """The coordinate of index i on each axis in words: i, i/1.875, i·64/(192·1), ..."""
    scales = list(scale) if isinstance(scale, tuple) else [scale] * len(sizes)
    words = []
    for size, s in zip(sizes, scales, strict=True):
        if base is not None and base != size:
            words.append(f"i·{base:g}/({size}·{s:g})")
        else:
            words.append("i" if s == 1.0 else f"i/{s:g}")
    return words[0] if len(set(words)) == 1 else ", ".join(words)


def multiaxis_presets_table() -> str:
    """The multi-axis presets: D, sections (axis → columns), grid, coordinates, source."""
    lines = [
        "| preset | D | sections (axis: d, layout) | grid | coordinate of index i | source |",
        "|---|---|---|---|---|---|",
    ]
    for name, chosen in PRESETS.items():
        config = chosen.config
        axes = "hw" if config.axes == 2 else "thw"
        sections = ", ".join(
            f"{axes[s.axis]}: {s.d_model} {s.convention.layout}" for s in config.sections
        )
        grid = "×".join(str(g) for g in chosen.sizes)
        where = _coordinates(chosen.base_size, chosen.sizes, chosen.interpolation_scale)
        lines.append(
            f"| `{name}` | {config.d_model} | {config.arrangement}: {sections} | {grid} "
            f"| {where} | {cell(chosen.source)} |"
        )
    return "\n".join(lines) + "\n"
