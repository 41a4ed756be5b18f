"""Generated blocks of SPEC §3 and Annex F: the convention presets and their sources."""

from __future__ import annotations

from pespec.sinusoidal.reference.conventions import (
    PRESET_SOURCES,
    PRESETS,
    TIMESTEP_PRESETS,
    TIMESTEP_SOURCES,
)

__all__ = ["presets_table", "timestep_presets_table"]


def timestep_presets_table(d_model: int = 256, base: float = 10000.0) -> str:
    """The timestep presets (SPEC §3.3), their fields and sources."""
    lines = [
        f"| preset | layout | s | o | c | lowest ω (d={d_model}, base={base:g}) | equal to | "
        "source |",
        "|---|---|---|---|---|---|---|---|",
    ]
    half = d_model // 2
    for name, convention in TIMESTEP_PRESETS.items():
        lowest = base ** (-(half - 1) / convention.denominator(d_model))
        same = [f"`{other}`" for other, known in PRESETS.items() if known == convention]
        lines.append(
            f"| `{name}` | {convention.layout} | {convention.frequency_shift:g} "
            f"| {convention.position_offset} | {convention.argument_scale:g} "
            f"| {lowest:.6g} | {', '.join(same) or '—'} | {TIMESTEP_SOURCES[name]} |"
        )
    return "\n".join(lines) + "\n"


def _scale_text(scale: float | str) -> str:
    """The output scale A as the table shows it (√(2/d) for the symbolic rule)."""
    return "√(2/d)" if scale == "sqrt(2/d)" else f"{float(scale):g}"


def presets_table(d_model: int = 512, base: float = 10000.0) -> str:
    """The presets of SPEC §3: fields of every preset and its lowest frequency."""
    lines = [
        f"| preset | layout | s | o | c | A | lowest ω (d={d_model}, base={base:g}) | source |",
        "|---|---|---|---|---|---|---|---|",
    ]
    half = d_model // 2
    for name, convention in PRESETS.items():
        lowest = base ** (-(half - 1) / convention.denominator(d_model))
        lines.append(
            f"| `{name}` | {convention.layout} | {convention.frequency_shift:g} "
            f"| {convention.position_offset} | {convention.argument_scale:g} "
            f"| {_scale_text(convention.output_scale)} "
            f"| {lowest:.6g} | {PRESET_SOURCES[name]} |"
        )
    return "\n".join(lines) + "\n"
