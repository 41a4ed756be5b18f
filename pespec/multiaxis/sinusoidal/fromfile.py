"""``pespec check --family multiaxis --from-file``: a saved multi-axis output checked (SPEC §9.5).

The file (.npy, .npz or .csv, read by :func:`pespec.conformance.savedfile.read_output`, never
pickle) holds the (n, D) output; its rows' positions, (n, k), come from ``positions`` (a
``.npy`` or ``.csv`` of k columns), else an ``.npz``'s ``positions`` array, else the preset's
whole grid in its row order (last axis fastest). A file that does not fit (not 2-D, another
column count, another row count than the positions) raises ValueError naming it (exit 2);
a wrong dtype or a non-finite value fails the contract. Checks: the preset's certified set on
the rows that hold its positions (``golden``), every row of each section against the exact
reference (``reference:section-i``, in chunks); separability and the properties need calls
and are skipped. A failing file is diagnosed as a backend is (the same neighbours: they need
only the output at the file's positions).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import FIXTURE_ERROR, PlannedCheck, Worst, comparison_result
from pespec.conformance.report import CheckResult, Report
from pespec.multiaxis.section_file import FileKind, open_section_file
from pespec.multiaxis.sinusoidal.compare import fold_sections
from pespec.multiaxis.sinusoidal.config import MultiAxisConfig
from pespec.multiaxis.sinusoidal.presets import Preset, resolve_config
from pespec.multiaxis.sinusoidal.reference import encode
from pespec.sinusoidal.properties.base import Level, level_for_dtype, parse_level

__all__ = ["CHUNK_ROWS", "check_file"]

CHUNK_ROWS: Final = 4096
"""Rows compared with the exact reference at a time (bounded memory for a large grid)."""
FILE_KIND = FileKind(
    "multiaxis",
    "§9.5",
    ("D", "d_model"),
    "the {n} rows of the grid of {name} (row order)",
    ("deterministic", "separability", "property"),
    resolve_config,
    parse_level,
    lambda claim: claim.output_dtype,
    level_for_dtype,
)
"""The kind's file check (:func:`~pespec.multiaxis.section_file.open_section_file`)."""


def _golden(
    output: NDArray[Any], positions: NDArray[Any], chosen: Preset, level: Level
) -> list[CheckResult]:
    """The preset's certified set on the file's rows that hold its positions (none when the
    configuration is no preset's or no row holds one)."""
    from pespec.multiaxis.sinusoidal.golden import fixture_for

    fixture = fixture_for(chosen)
    if fixture is None:
        return []
    pairs = []
    for i, point in enumerate(fixture.positions):  # a few rows: a vector search each
        found = np.nonzero(np.all(positions == point, axis=1))[0]
        if found.size:
            pairs.append((i, int(found[0])))
    if not pairs:
        return []
    mine, theirs = (np.array(v, dtype=np.intp) for v in zip(*pairs, strict=True))
    worst = Worst()
    y, expected = np.asarray(output[theirs]), fixture.values[mine]
    fold_sections(worst, y, positions[theirs], expected, chosen.config, level, FIXTURE_ERROR)
    title = f"the certified set of {fixture.preset} ({mine.size} rows)"
    planned = PlannedCheck(f"golden:{fixture.name}", "golden", title, "§9.4")
    return [comparison_result(planned, worst, level)]


def _reference(
    output: NDArray[Any], positions: NDArray[Any], config: MultiAxisConfig, level: Level
) -> list[CheckResult]:
    """Each section's columns of every row against the exact reference, in chunks."""
    worsts = [Worst() for _ in config.sections]
    for r0 in range(0, positions.shape[0], CHUNK_ROWS):
        p = positions[r0 : r0 + CHUNK_ROWS]
        y, exact = np.asarray(output[r0 : r0 + CHUNK_ROWS]), encode(p, config)
        for index, worst in enumerate(worsts):
            fold_sections(worst, y, p, exact, config, level, only=index)
    results = []
    for index, worst in enumerate(worsts):
        planned = PlannedCheck(
            f"reference:section-{index}", "reference", config.describe(index), "§9.4"
        )
        results.append(comparison_result(planned, worst, level))
    return results


def _without_leading_rows(
    name: str,
    output: NDArray[Any],
    leading: int,
    positions: str | None,
    saved: Any,
    chosen: Preset,
) -> NDArray[Any]:
    """``output`` without its ``leading`` rows (MAE's cls row); a file with the preset's
    leading rows and no ``leading`` is told to pass ``--leading-rows`` (ValueError)."""
    if isinstance(leading, bool) or not isinstance(leading, int) or leading < 0:
        raise ValueError(f"--leading-rows must be an int >= 0; got {leading!r}")
    if leading >= max(output.shape[0], 1):
        raise ValueError(
            f"--leading-rows must be less than the {output.shape[0]} rows of {name!r}; "
            f"got {leading}"
        )
    grid = int(np.prod(chosen.sizes))
    more = chosen.leading_rows
    if not leading and more and positions is None and saved.positions is None:
        if output.ndim == 2 and output.shape[0] == grid + more:
            raise ValueError(
                f"from_file {name!r} has {output.shape[0]} rows: {more} leading row(s) "
                f"before the {grid} rows of the grid of {chosen.name} (the model's table "
                f"starts with its cls token's zeros); pass --leading-rows {more} to skip them"
            )
    return output[leading:]


def check_file(
    path: str | Path,
    config: Any,
    *,
    positions: str | None = None,
    level: str | None = None,
    key: str | None = None,
    leading_rows: int = 0,
) -> Report:
    """Check the multi-axis output saved in ``path`` for ``config`` (a preset name, a JSON
    config or its path); see the module docstring. The level follows the rule every family's
    file check shares (:func:`~pespec.conformance.filerules.claimed_file_level`)."""

    def cut(name: str, output: NDArray[Any], saved: Any, chosen: Preset) -> NDArray[Any]:
        return _without_leading_rows(name, output, leading_rows, positions, saved, chosen)

    file = open_section_file(
        FILE_KIND, path, config, positions=positions, level=level, key=key, cut=cut
    )
    chosen, output, rows, judged = file.preset, file.output, file.positions, file.level
    if judged is not None and file.out_dtype is not None:
        file.checks += _golden(output, rows, chosen, judged)
        file.checks += _reference(output, rows, chosen.config, judged)
    from pespec.multiaxis.sinusoidal.fileview import FileView
    from pespec.multiaxis.sinusoidal.report import diagnose, report_fields

    view = FileView(chosen, output, rows, judged, file.out_dtype)
    report = file.report(report_fields(view))
    report.family_data["rows"] = int(rows.shape[0])
    if not report.conformant and judged is not None and view.positions.shape[0]:
        diagnose(view, report)
    return report
