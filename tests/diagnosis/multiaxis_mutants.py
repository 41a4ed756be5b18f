"""A generated evaluation set for the multi-axis rotary diagnosis (issue 39 item 2).

A plain float32 port written once from the definition (SPEC §9: head slot s is rotated by
pos[axis_s]·ω_s with ω_s = θ^(−2·pair_s/d_r) of the section that owns the slot), read off
the configuration so that one port serves every preset, and mutation operators that
change one step of it: per-axis frequencies over the whole head width D instead of the
section's d_r, θ dropped (10000), two axes swapped, the section sizes rotated (the split
read in another order), sectioned instead of interleaved slots (or the reverse), one axis's
positions off by one, the sine's sign, the head pairing. (Ids rounded to bfloat16 are
left out: the small grids' ids are below 256, exact in bfloat16, and the suite's own
neighbour list covers the rounded ids.) Each mutant records the true cause (keywords
and, where nameable, the value). The presets and their grids are drawn per seed; even
seeds are the guide half, odd seeds the measured half. The diagnosis code never reads this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.rope.config import MultiAxisRopeConfig
from pespec.multiaxis.rope.presets import PRESETS

Array = NDArray[Any]
PRESET_NAMES = ("flux.1", "qwen2.5-vl-7b", "qwen3-vl-4b", "cogvideox-5b", "eva02-b")


@dataclass(frozen=True)
class AxisPort:
    """How the port computes each step; the correct port is ``AxisPort()``."""

    width: str = "section"  # or 'head' (ω over the whole head width D)
    theta_from: str = "config"  # or 'default' (10000)
    swap_axes: tuple[int, int] | None = None
    rotate_sections: bool = False  # the slots' axis labels read with section sizes rotated
    layout: str = "config"  # or 'other' (sectioned ↔ interleaved slots)
    offset_axis: int | None = None  # that axis's positions + 1
    sin_sign: int = 1
    pairing: str = "config"  # or 'other'


@dataclass(frozen=True)
class AxisMutant:
    """One generated case: preset, grid, port and true cause."""

    seed: int
    kind: str
    preset: str
    grid: tuple[int, ...]
    port: AxisPort
    keywords: tuple[str, ...]
    value: str | None

    @property
    def half(self) -> str:
        """'guide' (even seed) or 'measured' (odd seed)."""
        return "guide" if self.seed % 2 == 0 else "measured"

    def suite_config(self) -> dict[str, Any]:
        """The multi-axis suite's configuration: the preset on this mutant's small grid."""
        preset = PRESETS[self.preset]
        data: dict[str, Any] = {"config": preset.config.to_dict(), "ids": preset.ids}
        data.update({"grid": list(self.grid), "text_before": 4, "text_after": 4})
        return data

    def backend(self) -> Callable[[Array, Array, Any], Array]:
        """The mutated port as a backend ``(x, positions (n, axes), config) -> (n, D)``."""
        return _backend(self.port)


def _slots(config: MultiAxisRopeConfig, port: AxisPort) -> tuple[Array, Array]:
    """(axis per slot, ω per slot) as the port computes them, each (D/2,)."""
    half = config.head_dim // 2
    axis, omega = np.zeros(half, dtype=np.int64), np.zeros(half)
    for section in config.sections:
        theta = section.rope.theta if port.theta_from == "config" else 10000.0
        width = section.rope.d_r if port.width == "section" else config.head_dim
        for pair, slot in zip(section.pairs, section.slots, strict=True):
            axis[slot] = section.axis
            omega[slot] = theta ** (-2.0 * pair / width)
    if port.rotate_sections:
        labels = [int(a) for a in axis]
        runs = _runs(labels)
        sizes = [*[n for _, n in runs][1:], runs[0][1]]
        axis = np.concatenate([np.full(n, a) for (a, _), n in zip(runs, sizes, strict=True)])
    if port.layout == "other":
        counts = np.bincount(axis, minlength=config.axes)
        contiguous = np.concatenate([np.full(n, a) for a, n in enumerate(counts)])
        axis = contiguous if not np.array_equal(axis, contiguous) else _interleave(counts)
    if port.swap_axes is not None:
        a, b = port.swap_axes
        axis = np.where(axis == a, -1, axis)
        axis = np.where(axis == b, a, axis)
        axis = np.where(axis == -1, b, axis)
    return axis, omega


def _runs(labels: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for label in labels:
        if out and out[-1][0] == label:
            out[-1] = (label, out[-1][1] + 1)
        else:
            out.append((label, 1))
    return out


def _interleave(counts: Array) -> Array:
    """Qwen3-VL's interleaved reading of the section sizes: slot s belongs to axis a ≥ 1
    when s % 3 == a and s < 3·count_a, else to axis 0 (transformers'
    ``apply_interleaved_mrope``)."""
    slots = np.arange(int(np.sum(counts)))
    axis = np.zeros(slots.size, dtype=np.int64)
    for a in range(1, counts.size):
        axis[(slots % counts.size == a) & (slots < counts.size * int(counts[a]))] = a
    return axis


def _backend(port: AxisPort) -> Callable[[Array, Array, Any], Array]:
    def backend(x: Array, positions: Array, config: Any) -> Array:
        axis, omega = _slots(config, port)
        pos = np.asarray(positions, dtype=np.float64).copy()
        if port.offset_axis is not None:
            pos[:, port.offset_axis] += 1
        angle = pos.astype(np.float32)[:, axis] * omega.astype(np.float32)[None, :]
        c, s = np.cos(angle), np.sin(angle) * port.sin_sign
        v = np.asarray(x, dtype=np.float32)
        pairing = config.pairing
        if port.pairing == "other":
            pairing = "interleaved" if pairing == "halves" else "halves"
        half = config.head_dim // 2
        a_cols = np.arange(half) if pairing == "halves" else np.arange(0, config.head_dim, 2)
        b_cols = a_cols + half if pairing == "halves" else a_cols + 1
        out: Array = v.copy()
        a, b = v[:, a_cols], v[:, b_cols]
        out[:, a_cols], out[:, b_cols] = a * c - b * s, a * s + b * c
        return out

    return backend


def _kinds(
    config: MultiAxisRopeConfig,
) -> Iterator[tuple[str, AxisPort, tuple[str, ...], str | None]]:
    d = config.head_dim
    yield "frequencies over D", AxisPort(width="head"), ("whole width",), str(d)
    thetas = {s.rope.theta for s in config.sections}
    if thetas != {10000.0}:
        yield "θ dropped", AxisPort(theta_from="default"), ("θ", "theta"), "10000"
    if config.axes >= 3:
        yield "axes 1 and 2 swapped", AxisPort(swap_axes=(1, 2)), ("axes mixed up",), None
    yield "axes 0 and 1 swapped", AxisPort(swap_axes=(0, 1)), ("axes mixed up",), None
    labels = [0] * (d // 2)
    for section in config.sections:
        for slot in section.slots:
            labels[slot] = section.axis
    if len(_runs(labels)) == config.axes:  # each axis's slots contiguous: sizes can rotate
        yield (
            "sections rotated",
            AxisPort(rotate_sections=True),
            ("section split", "mrope_section"),
            None,
        )
    one_rope = all(s.pairs == s.slots for s in config.sections)  # M-RoPE: one 1-D rotary
    if one_rope:
        yield "sectioned ↔ interleaved", AxisPort(layout="other"), ("interleaved",), None
    yield "axis 1 offset +1", AxisPort(offset_axis=1), ("shifted by",), "+1"
    yield "sin sign", AxisPort(sin_sign=-1), ("other way", "sign"), None
    yield "pairing", AxisPort(pairing="other"), ("pairs", "halves", "interleaved"), None


def _draw(seed: int) -> tuple[str, tuple[int, ...]]:
    rng = np.random.default_rng([seed, 39])
    preset = str(rng.choice(PRESET_NAMES))
    axes = PRESETS[preset].config.axes  # a 2-axis preset reads (H, W) of a (1, H, W) grid
    side = int(rng.choice([6, 8]))
    grid = (1, side, side) if axes == 2 else (int(rng.choice([1, 2])), side, side)
    return preset, grid


def axis_mutants(seeds: range = range(8)) -> list[AxisMutant]:
    """Every mutant of every seed's preset and grid."""
    out = []
    for seed in seeds:
        preset, grid = _draw(seed)
        for kind, port, keywords, value in _kinds(PRESETS[preset].config):
            out.append(AxisMutant(seed, kind, preset, grid, port, keywords, value))
    return out


def correct_axes(seeds: range = range(8)) -> list[AxisMutant]:
    """The unmutated port of each seed's preset (no cause)."""
    return [AxisMutant(s, "correct float32", *_draw(s), AxisPort(), (), None) for s in seeds]
