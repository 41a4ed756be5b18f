"""The multi-axis rotary family's report fields, report hooks and diagnosis neighbours (SPEC
§9.7; :mod:`pespec.multiaxis.rope.diagnosis` compares the output with them).

The neighbouring configurations (:func:`candidates`) whose exact reference the diagnosis
compares the output with: the axes relabelled (t/h/w mixed up, h and w swapped), and, for
M-RoPE, sectioned vs interleaved and ``mrope_section`` permuted or resized (the sizes of the
other published layout); for a per-axis rotary (Flux), ``axes_dim`` permuted or the pairs in
halves.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from pespec.multiaxis.rope.config import (
    MultiAxisRopeConfig,
    RotarySection,
    mrope,
    mrope_axes,
    per_axis_rotary,
)
from pespec.multiaxis.section_report import SectionText

__all__ = [
    "COMMAND",
    "candidates",
    "mrope_layout",
    "rebuilt",
    "refresh",
    "report_fields",
]

PUBLISHED_SECTIONS = ((16, 24, 24), (24, 20, 20))
"""The mrope_section of Qwen2/2.5-VL and of Qwen3-VL: each the other's resized sections."""
DIAGNOSIS_ROWS = 256


def _data(run: Any) -> dict[str, Any]:
    """A multi-axis rotary report's family data besides the configuration: the ids and the
    grid, the rows checked of all the ids rows."""
    ids, grid = run.preset.ids, list(run.preset.grid)
    return {
        "ids": ids,
        "grid": grid,
        "rows": int(run.positions.shape[0]),
        "grid_rows": run.grid_rows,
    }


def _section(s: dict[str, Any]) -> str:
    rope = s.get("rope", {})
    return (
        f"pairs {len(s.get('pairs', []))} of head_dim {rope.get('head_dim')}, "
        f"θ {rope.get('theta')}, {rope.get('pairing')}"
    )


_TEXT = SectionText(
    "multiaxis-rope",
    head=lambda config: f"D {config.get('head_dim')}",
    part=lambda s: f"axis {s.get('axis')} {len(s.get('pairs', []))} pairs",
    rows=lambda d: f"{d.get('rows')} rows checked ({d.get('ids')} ids, grid {d.get('grid')})",
    section=_section,
    data=_data,
    working=lambda level: level.phase,
)
COMMAND, report_fields, rebuilt, refresh = _TEXT.command, _TEXT.fields, _TEXT.rebuilt, _TEXT.refresh
"""The command; a multi-axis rotary report's keywords from a run (or a file seen as one); a
report read back from its JSON; its text derived again from its data."""


def mrope_layout(config: MultiAxisRopeConfig) -> tuple[tuple[int, ...], bool] | None:
    """(mrope_section, interleaved) when ``config`` is an M-RoPE (one rotary, pair j in slot
    j, three axes), else None."""
    ropes = {s.rope for s in config.sections}
    if len(ropes) != 1 or config.axes != 3 or any(s.pairs != s.slots for s in config.sections):
        return None
    axes = config.axis_of_slot().tolist()
    sizes = tuple(axes.count(a) for a in range(3))
    for interleaved in (False, True):
        try:
            if mrope_axes(len(axes), sizes, interleaved) == axes:
                return sizes, interleaved
        except ValueError:
            continue
    return None


def _relabelled(config: MultiAxisRopeConfig, order: tuple[int, ...]) -> MultiAxisRopeConfig:
    sections = tuple(
        RotarySection(order[s.axis], s.rope, s.pairs, s.slots) for s in config.sections
    )
    return MultiAxisRopeConfig(config.head_dim, config.axes, sections, config.pairing, config.name)


def _mrope_candidates(config: MultiAxisRopeConfig, found: dict[str, MultiAxisRopeConfig]) -> None:
    layout = mrope_layout(config)
    if layout is None:
        return
    sizes, interleaved = layout
    rope = config.sections[0].rope
    words = {False: "sectioned", True: "interleaved"}
    other = words[not interleaved]
    options = [(sizes, not interleaved, f"{other} M-RoPE instead of {words[interleaved]}")]
    for permuted in sorted(set(itertools.permutations(sizes)) - {sizes}):
        options.append((permuted, interleaved, f"mrope_section permuted to {list(permuted)}"))
    for resized in PUBLISHED_SECTIONS:
        if resized != sizes and sum(resized) == sum(sizes):
            options.append((resized, interleaved, f"mrope_section resized to {list(resized)}"))
            options.append(
                (resized, not interleaved, f"{other} M-RoPE with mrope_section {list(resized)}")
            )
    for candidate_sizes, flag, name in options:
        try:
            found[name] = mrope(rope.head_dim, rope.theta, candidate_sizes, interleaved=flag)
        except ValueError:
            continue


def _per_axis_candidates(
    config: MultiAxisRopeConfig, found: dict[str, MultiAxisRopeConfig]
) -> None:
    dims = [s.rope.head_dim for s in config.sections]
    if len(dims) != config.axes or [s.axis for s in config.sections] != list(range(config.axes)):
        return
    if sum(dims) != config.head_dim:  # an M-RoPE: each section a part of one head's rotary
        return
    theta = config.sections[0].rope.theta
    for permuted in sorted(set(itertools.permutations(dims)) - {tuple(dims)}):
        found[f"axes_dim permuted to {list(permuted)}"] = per_axis_rotary(
            permuted, theta, pairing=config.pairing
        )
    whole = config.head_dim  # θ^(−2j/D) = (θ^(d_a/D))^(−2j/d_a): each axis at θ^(d_a/D)
    found[
        f"per-axis frequencies computed over the whole width D = {whole} instead of each "
        f"axis's share {dims} (θ^(−2j/{whole}))"
    ] = dataclasses.replace(
        config,
        sections=tuple(
            dataclasses.replace(
                s, rope=dataclasses.replace(s.rope, theta=theta ** (s.rope.head_dim / whole))
            )
            for s in config.sections
        ),
    )
    flipped = "halves" if config.pairing == "interleaved" else "interleaved"
    found[f"pairs in {flipped} instead of {config.pairing}"] = per_axis_rotary(
        dims, theta, pairing=flipped
    )


def candidates(config: MultiAxisRopeConfig) -> dict[str, MultiAxisRopeConfig]:
    """Named neighbouring configurations of ``config``."""
    found: dict[str, MultiAxisRopeConfig] = {}
    names = "thw" if config.axes == 3 else [str(a) for a in range(config.axes)]
    for order in itertools.permutations(range(config.axes)):
        if order != tuple(range(config.axes)):
            fed = ", ".join(
                f"{names[a]} feeds {names[order[a]]}'s sections"
                for a in range(config.axes)
                if order[a] != a
            )
            found[f"axes mixed up ({fed})"] = _relabelled(config, order)
    _mrope_candidates(config, found)
    _per_axis_candidates(config, found)
    flipped = "halves" if config.pairing == "interleaved" else "interleaved"
    name = f"pairs in {flipped} instead of {config.pairing}"
    if name not in found:  # the head's pairs read the other way, sections unchanged
        found[name] = dataclasses.replace(config, pairing=flipped)
    return found
