"""The Fourier presets (SPEC §10.3): every convention axis of each preset, and its source."""

from __future__ import annotations

from pespec._markdown import cell
from pespec.fourier.presets import PRESETS

__all__ = ["fourier_presets_table"]


def _frequencies(name: str) -> str:
    conv = PRESETS[name]
    if conv.law == "matrix":
        return f"B given ({len(conv.matrix)}×{conv.in_dims})"
    if conv.law == "base2":
        return f"2^(j+{conv.exponent_start}), j < {conv.bands}"
    if conv.law == "geometric":
        e = f"({conv.exponent_start} + {conv.exponent_step}j)/{conv.exponent_denominator}"
        return f"{conv.base:g}^({e}), j < {conv.bands}"
    return f"linspace({conv.linear_start:g}, {conv.linear_stop:g}, {conv.bands})"


def fourier_presets_table() -> str:
    """The Fourier presets: k, π factor, frequencies, order, blocks, raw input, input, domain,
    width D and source."""
    lines = [
        "| preset | k | π factor | frequencies ω_j | angle order | blocks | raw input | "
        "input | domain | D | source |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, conv in PRESETS.items():
        order = "–" if conv.law == "matrix" else conv.order
        taken = "log x" if conv.input_log else ("integer x" if conv.integer_inputs else "x")
        low, high = conv.domain
        blocks = cell(conv.blocks)
        lines.append(
            f"| `{name}` | {conv.in_dims} | {conv.pi} | {_frequencies(name)} | {order} | "
            f"{blocks} | {conv.raw} | {taken} | [{low:g}, {high:g}] | {conv.width} | "
            f"{conv.source} |"
        )
    return "\n".join(lines) + "\n"
