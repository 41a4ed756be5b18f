"""A generated evaluation set for the multi-axis sinusoidal diagnosis (issue 39 item 2).

A plain float64 port written once from SPEC §9's definition (each section a 1-D [sin | cos]
table of its axis, ω_k = base^(−k/(d_i/2 − s)), placed sectioned or grouped), read off the
preset's configuration, and mutation operators that change one step: axes 0 and 1 fed
to each other's sections, the denominator d/2 vs d/2 − 1, the base 1000 whatever the config says,
the arrangement (sectioned ↔ grouped), one axis's positions off by one, the frequencies of
every section computed over the whole width D, the cosines first. Each mutant records its
true cause (keywords; the value where nameable). Presets are drawn per seed; even seeds
are the guide half, odd seeds the measured half. The diagnosis code never reads this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.sinusoidal.config import MultiAxisConfig
from pespec.multiaxis.sinusoidal.presets import PRESETS

Array = NDArray[Any]
PRESET_NAMES = ("mae-vit-b-16", "timm-sincos2d-768", "big-vision-vit-s16", "cogvideox-2b")


@dataclass(frozen=True)
class SinAxisPort:
    """How the port computes each step; the correct port is ``SinAxisPort()``."""

    swap_axes: bool = False
    shift: str = "config"  # or 'other' (d/2 ↔ d/2 − 1)
    base: float | None = None  # a base used whatever the config says
    arrangement: str = "config"  # or 'other'
    offset_axis: int | None = None
    whole_width: bool = False
    cos_first: bool = False


@dataclass(frozen=True)
class SinAxisMutant:
    """One generated case: preset, port and true cause."""

    seed: int
    kind: str
    preset: str
    port: SinAxisPort
    keywords: tuple[str, ...]
    value: str | None

    @property
    def half(self) -> str:
        """'guide' (even seed) or 'measured' (odd seed)."""
        return "guide" if self.seed % 2 == 0 else "measured"

    def backend(self) -> Callable[[Array, Any], Array]:
        """The mutated port as a backend ``(positions (n, axes), config) -> (n, D)``."""
        return _backend(self.port)


def _section(pos: Array, d: int, base: float, shift: float) -> tuple[Array, Array]:
    """(sin, cos) (n, d/2) of one section."""
    k = np.arange(d // 2, dtype=np.float64)
    angle = pos[:, None] * base ** (-k / (d / 2 - shift))[None, :]
    return np.sin(angle), np.cos(angle)


def _backend(port: SinAxisPort) -> Callable[[Array, Any], Array]:
    def backend(positions: Array, config: MultiAxisConfig) -> Array:
        pos = np.asarray(positions, dtype=np.float64).copy()
        if port.offset_axis is not None:
            pos[:, port.offset_axis] += 1
        total = sum(s.d_model for s in config.sections)
        sines, cosines = [], []
        for section in config.sections:
            axis = section.axis
            if port.swap_axes and config.axes >= 2:
                axis = {0: 1, 1: 0}.get(axis, axis)
            shift = float(section.convention.frequency_shift)
            if port.shift == "other":
                shift = 1.0 - shift
            d = section.d_model
            base = section.base if port.base is None else port.base
            if port.whole_width:
                k = np.arange(d // 2, dtype=np.float64)
                angle = pos[:, axis, None] * base ** (-k / (total / 2 - shift))[None, :]
                s, c = np.sin(angle), np.cos(angle)
            else:
                s, c = _section(pos[:, axis], d, base, shift)
            if port.cos_first:
                s, c = c, s
            sines.append(s)
            cosines.append(c)
        grouped = config.arrangement == "grouped"
        if port.arrangement == "other":
            grouped = not grouped
        if grouped:
            return np.concatenate([*sines, *cosines], axis=1)
        return np.concatenate(
            [b for pair in zip(sines, cosines, strict=True) for b in pair], axis=1
        )

    return backend


def _kinds(
    config: MultiAxisConfig,
) -> Iterator[tuple[str, SinAxisPort, tuple[str, ...], str | None]]:
    yield "axes 0 and 1 swapped", SinAxisPort(swap_axes=True), ("swapped",), None
    yield "denominator d/2 ↔ d/2 − 1", SinAxisPort(shift="other"), ("denominator",), None
    yield "base 1000", SinAxisPort(base=1000.0), ("base",), "1000"
    yield "arrangement", SinAxisPort(arrangement="other"), ("arranged", "grouped"), None
    yield "axis 0 offset +1", SinAxisPort(offset_axis=0), ("shifted by", "offset"), None
    yield "frequencies over D", SinAxisPort(whole_width=True), ("whole width",), None
    yield "cos first", SinAxisPort(cos_first=True), ("cos and sin exchanged",), None


def sin_axis_mutants(seeds: range = range(8)) -> list[SinAxisMutant]:
    """Every mutant of every seed's preset."""
    out = []
    for seed in seeds:
        preset = str(np.random.default_rng([seed, 93]).choice(PRESET_NAMES))
        for kind, port, keywords, value in _kinds(PRESETS[preset].config):
            out.append(SinAxisMutant(seed, kind, preset, port, keywords, value))
    return out


def correct_sin_axes(seeds: range = range(8)) -> list[SinAxisMutant]:
    """The unmutated port of each seed's preset (no cause)."""
    out = []
    for seed in seeds:
        preset = str(np.random.default_rng([seed, 93]).choice(PRESET_NAMES))
        out.append(SinAxisMutant(seed, "correct float64", preset, SinAxisPort(), (), None))
    return out
