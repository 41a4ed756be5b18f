"""The multi-axis family's report fields, report hooks and diagnosis (SPEC §9.6).

The diagnosis evaluates the exact reference of a few *neighbouring configurations* (h and w
swapped, the coordinates rounded to float32, the grid scaling left out) at the checked rows
and names the one the backend's output matches within its level's bound, when the declared
one does not.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from pespec.conformance.contract import BackendFailure
from pespec.conformance.report import Report
from pespec.multiaxis.section_report import SectionText
from pespec.multiaxis.sinusoidal.config import MultiAxisConfig, Section
from pespec.multiaxis.sinusoidal.grid import grid_positions, per_axis
from pespec.multiaxis.sinusoidal.measure import section_facts
from pespec.multiaxis.sinusoidal.reference import encode, section_columns, section_positions
from pespec.multiaxis.sinusoidal.view import RunView
from pespec.sinusoidal.properties.base import EncodingConfig
from pespec.sinusoidal.properties.errormodel import element_bound

__all__ = ["COMMAND", "diagnose", "rebuilt", "refresh", "report_fields"]


def _data(run: RunView) -> dict[str, Any]:
    """A multi-axis report's family data besides the configuration: the grid, its scaling,
    the rows checked and those the backend's declared capabilities left out."""
    preset = run.preset
    return {
        "grid": list(preset.sizes),
        "base_size": preset.base_size,
        "interpolation_scale": preset.interpolation_scale,
        "rows": int(run.positions.shape[0]),
        "rows_declared_out": run.declared_out,
    }


_TEXT = SectionText(
    "multiaxis",
    head=lambda config: str(config.get("arrangement")),
    part=lambda s: f"axis {s.get('axis')} d={s.get('d_model')}",
    rows=lambda data: f"grid {data.get('grid')} ({data.get('rows')} rows checked)",
    section=lambda s: (
        f"d = {s.get('d_model')}, base {s.get('base')}, "
        f"layout {s.get('convention', {}).get('layout')}"
    ),
    data=_data,
    working=lambda level: level.working_dtype,
)
COMMAND, report_fields, rebuilt, refresh = _TEXT.command, _TEXT.fields, _TEXT.rebuilt, _TEXT.refresh
"""The command; a multi-axis report's keywords from a run; a report read back from its JSON;
its text derived again from its data."""


def _swapped(config: MultiAxisConfig) -> MultiAxisConfig | None:
    """The configuration with its last two axes (h and w) exchanged (None for one axis)."""
    if config.axes < 2:
        return None
    h, w = config.axes - 2, config.axes - 1
    swap = {h: w, w: h}
    sections = tuple(
        Section(swap.get(s.axis, s.axis), s.d_model, s.base, s.convention) for s in config.sections
    )
    return replace(config, sections=sections)


def _matches(run: RunView, y: Any, positions: Any, config: MultiAxisConfig) -> bool:
    """Whether every section's columns of ``y`` are within their bound of ``config``'s (rows
    whose positions are NaN are not compared; none left: no match)."""
    keep = ~np.any(np.isnan(np.asarray(positions, dtype=np.float64)), axis=1)
    if not keep.any():
        return False
    y, positions = np.asarray(y)[keep], np.asarray(positions)[keep]
    exact = encode(positions, config)
    level = run.level_object()
    for index, section in enumerate(config.sections):
        one_d = EncodingConfig(
            section_positions(positions, config, index),
            section.d_model,
            section.base,
            section.convention,
        )
        error = np.abs(
            section_columns(y, config, index).astype(np.float64)
            - section_columns(exact, config, index)
        )
        if not np.all(error <= element_bound(one_d, level) + 2.0**-52):
            return False
    return True


def candidates(run: RunView) -> dict[str, tuple[MultiAxisConfig, Any]]:
    """Named neighbouring (configuration, positions) of the declared one."""
    found: dict[str, tuple[MultiAxisConfig, Any]] = {}
    swapped = _swapped(run.config)
    if swapped is not None:
        found["h and w swapped (which coordinate feeds which section)"] = (
            swapped,
            run.positions,
        )
    low = run.positions.astype(np.float32).astype(np.float64)
    if not np.array_equal(low, run.positions):
        found["grid coordinates rounded to float32 (computed in float32)"] = (run.config, low)
    preset = run.preset
    if preset.base_size is not None or set(
        per_axis(preset.interpolation_scale, len(preset.sizes))
    ) != {1.0}:
        plain = grid_positions(preset.sizes)
        plain = plain[run.rows]
        found["grid scaling left out (positions are the grid indices)"] = (run.config, plain)
        if swapped is not None:
            found["grid scaling left out and h and w swapped"] = (swapped, plain)
    from pespec.multiaxis.sinusoidal.neighbours import more_candidates

    for name, candidate in more_candidates(run).items():
        found.setdefault(name, candidate)
    return found


def diagnose(run: RunView, report: Report) -> None:
    """Name the neighbouring configuration the output matches, if one does (first 256 rows)."""
    failed = [c for c in report.checks if c.status == "failed" and c.stage == "reference"]
    if not failed:
        return
    rows = min(256, run.positions.shape[0])
    try:
        y = run.output(run.positions[:rows])
    except BackendFailure as failure:  # the backend failed the contract: nothing to compare
        report.diagnosis_sentence = (
            f"no neighbour compared: the output failed the contract ({failure})"
        )
        return
    for name, (config, positions) in candidates(run).items():
        if _matches(run, y, positions[:rows], config):
            report.diagnosis = {"cause": name}
            report.diagnosis_sentence = f"the output is the declared encoding with {name}"
            return
    facts = section_facts(y, run.positions[:rows], run.config)
    if facts:
        report.diagnosis = {"cause": "measured per section: " + "; ".join(facts)}
        report.diagnosis_sentence = (
            "no neighbouring configuration reproduces the output; measured per section: "
            + "; ".join(facts)
        )
        return
    report.diagnosis_sentence = (
        "no neighbouring configuration (h and w swapped, sections permuted or resized, the "
        "frequency denominator D/4 vs D/4 − 1, coordinates in float32/bfloat16/float16, grid "
        "scaling left out, a cls/extra token offset) reproduces the output"
    )
