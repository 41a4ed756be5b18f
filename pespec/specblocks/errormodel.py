"""Generated blocks of SPEC §4 and Annex A: the error model's constants, ranges and tightness."""

from __future__ import annotations

import numpy as np

from pespec.numerics.formats import FUNCTION_ULPS, SIGNIFICAND_BITS
from pespec.sinusoidal.properties.errormodel import (
    TABLE_LEVELS,
    adjacent_separation,
    max_element_bound,
    meaningful_position_limit,
    uniqueness_position_limit,
)
from pespec.sinusoidal.properties.tightness import column_ratios, naive_float32, pow_float32

__all__ = [
    "TIGHTNESS_PAIRS",
    "TIGHTNESS_STARTS",
    "constants_table",
    "position_limits_table",
    "tightness_table",
    "uniqueness_table",
]

TIGHTNESS_PAIRS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 192, 255)
"""Pairs shown in the per-column tightness table (d_model = 512)."""

TIGHTNESS_STARTS = (100_000, 1_000_000)
"""First positions of the two ranges of 64 consecutive integers tabulated."""


def _format_position(value: float) -> str:
    if value < 0:
        return "none"
    if value >= 1e6:
        return f"{value:.3g}"
    return f"{int(value):,}".replace(",", " ")


def constants_table() -> str:
    """The §4 constants per working precision (SPEC §4.3)."""
    lines = [
        "| T_work | u_w | c_f (ulps) | K_f = c_f | K_θ(k) = (2c_f + 2)(1 + λ_k) | angle term at "
        "pair 0 |",
        "|---|---|---|---|---|---|",
    ]
    for name in ("float64", "float32", "float16", "bfloat16"):
        c_f = FUNCTION_ULPS[name]
        lines.append(
            f"| {name} | 2^−{SIGNIFICAND_BITS[name]} | {c_f:g} | {c_f:g} | "
            f"{2 * c_f + 2:g}·(1 + λ_k) | 0 (ω̂_0 = 1) |"
        )
    return "\n".join(lines) + "\n"


def position_limits_table(d_model: int = 512, base: float = 10000.0) -> str:
    """Meaningful position ranges per level (SPEC Annex A.2)."""
    lines = [
        f"d_model = {d_model}, base = {base:g}. P(τ): largest integer position up to which the "
        "bound stays below τ in every column.",
        "",
        "| level | T_out | T_work | bound at p = 0 | bound at p = 1000 | P(10⁻²) | P(10⁻³) |",
        "|---|---|---|---|---|---|---|",
    ]
    for level in TABLE_LEVELS:
        at0 = max_element_bound(level, 0.0, d_model, base)
        at1000 = max_element_bound(level, 1000.0, d_model, base)
        p2 = meaningful_position_limit(level, d_model, base, 1e-2)
        p3 = meaningful_position_limit(level, d_model, base, 1e-3)
        lines.append(
            f"| `{level.name}` | {level.output_dtype} | {level.working_dtype} | {at0:.3g} | "
            f"{at1000:.3g} | {_format_position(p2)} | {_format_position(p3)} |"
        )
    return "\n".join(lines) + "\n"


def uniqueness_table(d_model: int = 512, base: float = 10000.0) -> str:
    """The guaranteed-uniqueness range of adjacent rows per level (SPEC §5.6)."""
    separation = adjacent_separation(d_model, base)
    lines = [
        f"d_model = {d_model}, base = {base:g}; ‖x_(p+1) − x_p‖ = {separation:.6f} for every p.",
        "",
        "| level | adjacent rows guaranteed distinct up to position |",
        "|---|---|",
    ]
    for level in TABLE_LEVELS:
        limit = uniqueness_position_limit(level, d_model, base)
        lines.append(f"| `{level.name}` | {_format_position(limit)} |")
    return "\n".join(lines) + "\n"


def tightness_table(d_model: int = 512, base: float = 10000.0) -> str:
    """Worst |y − x|/b per pair for both float32 formulas at large positions (SPEC Annex A.3)."""
    ranges = [np.arange(start, start + 64, dtype=np.int64) for start in TIGHTNESS_STARTS]
    results = {
        (name, start): column_ratios(encoder, positions, d_model, base)
        for name, encoder in (("naive", naive_float32), ("pow", pow_float32))
        for start, positions in zip(TIGHTNESS_STARTS, ranges, strict=True)
    }
    heads = [f"{name}, p = {start} … {start + 63}" for name, start in results]
    lines = [
        f"d_model = {d_model}, base = {base:g}, level float32; worst |y − x|/b over 64 positions.",
        "",
        "| pair k | " + " | ".join(heads) + " |",
        "|---" * (len(heads) + 1) + "|",
    ]
    for k in TIGHTNESS_PAIRS:
        cells = " | ".join(f"{ratio[k]:.3f}" for ratio in results.values())
        lines.append(f"| {k} | {cells} |")
    overall = " | ".join(f"**{float(np.max(ratio)):.3f}**" for ratio in results.values())
    lines.append(f"| all pairs | {overall} |")
    return "\n".join(lines) + "\n"
