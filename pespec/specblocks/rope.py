"""Generated blocks of SPEC §8 and its annexes: rotary presets, reference errors, long context."""

from __future__ import annotations

import numpy as np

from pespec.rope import oracle
from pespec.rope.config import RopeConfig
from pespec.rope.inputs import rotary_x
from pespec.rope.longcontext import METHODS, THRESHOLDS, reach
from pespec.rope.presets import PRESET_SOURCES, PRESETS
from pespec.rope.reference import COS_SIN_BOUND, cos_sin, rotate, rotation_bound
from pespec.rope.schedules import frequencies

__all__ = ["long_context_table", "rope_presets_table", "rope_reference_errors_table"]


def _parameters(config: RopeConfig) -> str:
    fields = config.to_dict()
    shown = []
    for key in (
        "factor",
        "low_freq_factor",
        "high_freq_factor",
        "original_max_position_embeddings",
        "max_position_embeddings",
        "seq_len",
        "beta_fast",
        "beta_slow",
        "truncate",
        "mscale",
        "mscale_all_dim",
        "attention_factor",
    ):
        if key in fields:
            value = fields[key]
            shown.append(f"{key} {value:g}" if isinstance(value, float) else f"{key} {value}")
    if config.short_factor is not None:
        shown.append("short/long_factor (48 each, from the config)")
    return "; ".join(shown) or "—"


def rope_presets_table() -> str:
    """The rotary presets and their sources (SPEC Annex F.1)."""
    lines = [
        "| preset | schedule | θ | head_dim / d_r | pairing | parameters | A (float64) "
        "| source (config.json on the Hub) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, config in PRESETS.items():
        source = PRESET_SOURCES[name]
        _, attention = frequencies(config)
        where = f"`{source.repo}` (copy `{source.copy}`)"
        where += f"; {source.note}" if source.note else ""
        lines.append(
            f"| {name} | {config.rope_type} | {config.theta:g} | "
            f"{config.head_dim} / {config.d_r} | {config.pairing} | "
            f"{_parameters(config)} | {attention:.6g} | {where} |"
        )
    return "\n".join(lines) + "\n"


_POSITIONS = np.concatenate(
    [np.arange(0, 70), np.arange(2**24 - 70, 2**24 + 1), [4095, 4096, 131_071, 1_000_003]]
)


def rope_reference_errors_table() -> str:
    """Per preset: worst |cos_sin − oracle| in units of 2^-52 and worst rotation error/bound
    (SPEC Annex C)."""
    lines = [
        "| preset | positions | worst cos/sin error (units of 2^−52) | worst rotation "
        "error / bound |",
        "|---|---|---|---|",
    ]
    for name, config in PRESETS.items():
        cos, sin = cos_sin(_POSITIONS, config)
        want_cos, want_sin = oracle.cos_sin(_POSITIONS.tolist(), config)
        angle = max(np.max(np.abs(cos - want_cos)), np.max(np.abs(sin - want_sin)))
        rows = _POSITIONS[::8]
        x = rotary_x(rows.shape[0], config.head_dim)  # the vectors of §8.6
        got, want = rotate(x, rows, config), oracle.rotate(x, rows.tolist(), config)
        bound = rotation_bound(x, config) + np.spacing(np.abs(want)) / 2
        rotated = bound > 0
        ratio = float(np.max(np.abs(got - want)[rotated] / bound[rotated]))
        lines.append(
            f"| {name} | {_POSITIONS.shape[0]} (0–69, 2^24 − 70 … 2^24, 4 more) "
            f"| {angle / COS_SIN_BOUND:.3g} | {ratio:.3g} |"
        )
    lines.append("")
    lines.append(
        "(Rotation: the vectors of §8.6 at every eighth position; the bound here is "
        "the proved bound plus half an ulp of the oracle's value.)"
    )
    return "\n".join(lines) + "\n"


def long_context_table() -> str:
    """The reach of every preset for each method and threshold (SPEC Annex G)."""
    header = (
        "| preset | " + " | ".join(f"{m}, {t:g} rad" for m in METHODS for t in THRESHOLDS) + " |"
    )
    lines = [header, "|---|" + "---|" * (len(METHODS) * len(THRESHOLDS))]
    for name, config in PRESETS.items():
        cells = [f"{reach(config, m, t):,}" for m in METHODS for t in THRESHOLDS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
