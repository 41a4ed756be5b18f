"""More neighbouring configurations for the multi-axis diagnosis (SPEC §9.6).

:func:`pespec.multiaxis.sinusoidal.report.candidates` names the h/w swap, float32 coordinates and a
missing grid scaling; this module adds the other documented slips, each a (configuration,
positions) whose exact reference the output is compared with:

* sections permuted (the same sections, another order of their column blocks: CogVideoX's
  [t | w | h] written [w | h | t]) or resized (each axis keeps its place, the widths differ:
  a t/h/w split computed another way, or an equal split);
* the per-axis frequency denominator D/4 vs D/4 − 1 (big_vision's ``arange(D/4)/(D/4 − 1)``
  against MAE's ``/(D/4)``), i.e. the sections' ``frequency_shift`` 0 ↔ 1;
* grid coordinates rounded to bfloat16 or float16 (diffusers' Ideogram under autocast);
* a cls/extra token offset: row r of the output holds the encoding of grid row r − m (MAE's
  ``cls_token=True`` table indexed without skipping its leading row of zeros). Rows with no
  grid row m before them are not compared (their positions are NaN).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.sinusoidal.config import MultiAxisConfig, Section
from pespec.multiaxis.sinusoidal.view import RunView
from pespec.numerics.formats import DTYPES

__all__ = ["MAX_OFFSET", "denominator_neighbour", "more_candidates"]

MAX_OFFSET = 4
"""Leading extra rows tried (a cls token, a few register tokens)."""

Candidate = tuple[MultiAxisConfig, NDArray[Any]]


def _same(a: MultiAxisConfig, b: MultiAxisConfig) -> bool:
    return a.sections == b.sections and a.arrangement == b.arrangement


def _permuted(config: MultiAxisConfig) -> list[tuple[str, MultiAxisConfig]]:
    """Every other order of the sections (at most 3! - 1), named by the axes' order."""
    found = []
    for order in itertools.permutations(range(len(config.sections))):
        if list(order) == sorted(order) or len(order) > 3:
            continue
        sections = tuple(config.sections[i] for i in order)
        axes = ", ".join(str(s.axis) for s in sections)
        found.append(
            (f"sections permuted (axes in the order {axes})", replace(config, sections=sections))
        )
    return found


def _resized(config: MultiAxisConfig) -> list[tuple[str, MultiAxisConfig]]:
    """Each section in place with another section's width, or all of one width D/k."""
    widths = [s.d_model for s in config.sections]
    options = set(itertools.permutations(widths)) if len(widths) <= 3 else set()
    if config.d_model % (2 * len(widths)) == 0:
        options.add(tuple([config.d_model // len(widths)] * len(widths)))
    found = []
    for option in sorted(options):
        if list(option) == widths:
            continue
        sections = tuple(
            Section(s.axis, d, s.base, s.convention)
            for s, d in zip(config.sections, option, strict=True)
        )
        text = ", ".join(str(d) for d in option)
        found.append((f"sections resized (widths {text})", replace(config, sections=sections)))
    return found


def denominator_neighbour(config: MultiAxisConfig) -> tuple[str, MultiAxisConfig] | None:
    """Every section's frequency_shift toggled 0 ↔ 1 (ω_k = base^(−k/(d/2 − s)))."""
    shifts = {s.convention.frequency_shift for s in config.sections}
    if len(shifts) != 1 or not shifts <= {0, 1} or min(s.d_model for s in config.sections) < 4:
        return None  # d/2 − 1 = 0 (a section of 2 columns) has no such neighbour
    shift = 1 - int(shifts.pop())
    sections = tuple(
        Section(s.axis, s.d_model, s.base, replace(s.convention, frequency_shift=shift))
        for s in config.sections
    )
    name = "D/4 − 1 instead of D/4" if shift else "D/4 instead of D/4 − 1"
    label = f"the per-axis frequency denominator {name} (d/2 − {shift} per section)"
    return label, replace(config, sections=sections)


def _rounded(positions: NDArray[Any], dtype: str) -> NDArray[np.float64] | None:
    low = np.asarray(positions, dtype=np.float64).astype(DTYPES[dtype]).astype(np.float64)
    return None if np.array_equal(low, positions) else low


def _offset(run: RunView, offset: int) -> NDArray[np.float64]:
    """The positions of grid rows ``rows − offset`` (NaN where that is before the grid)."""
    grid = np.asarray(run.preset.positions(), dtype=np.float64)
    before = run.rows - offset
    out = np.full((run.rows.shape[0], grid.shape[1]), np.nan)
    out[before >= 0] = grid[before[before >= 0]]
    return out


def more_candidates(run: RunView) -> dict[str, Candidate]:
    """The neighbours named in the module docstring, in the order they are tried."""
    config = run.config
    found: dict[str, Candidate] = {}
    for name, other in _permuted(config) + _resized(config):
        if not _same(other, config):
            found.setdefault(name, (other, run.positions))
    shifted = denominator_neighbour(config)
    if shifted is not None:
        found[shifted[0]] = (shifted[1], run.positions)
    for dtype in ("bfloat16", "float16"):
        low = _rounded(run.positions, dtype)
        if low is not None:
            found[f"grid coordinates rounded to {dtype} (positions in low precision)"] = (
                config,
                low,
            )
    for offset in range(1, MAX_OFFSET + 1):
        rows = "a row" if offset == 1 else f"{offset} rows"
        found[
            f"a cls/extra token offset ({rows} before the grid: row r holds grid row r − {offset})"
        ] = (config, _offset(run, offset))
    return found
