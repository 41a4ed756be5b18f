"""Multi-axis golden fixtures (SPEC §9.4): certified rows of every preset's grid.

One JSON file ``multiaxis-<preset>.json`` per preset of
:data:`pespec.multiaxis.sinusoidal.presets.PRESETS`,
in ``pespec/golden/`` with the other families' sets and listed in the same ``MANIFEST``
(format ``pespec-multiaxis-golden/1``, registered in :mod:`pespec.conformance.fixtures` when
this module is imported). A set holds a few rows of the preset's grid (:func:`golden_rows`:
the origin, one step along each axis, each axis at its last coordinate, the centre and the
last row) and the oracle's output there: every value the correctly rounded float64 of the
exact encoding (SPEC Annex B per section), as its shortest round-trip decimal and its exact
``float.hex``. Positions are stored as the grid's row indices and as float64 coordinates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.fixture_json import (
    csv_bytes,
    exact_floats,
    grid_sample,
    hex_rows,
    load_format,
    malformed,
    matching_fixture,
    matrix,
    npz_bytes,
    render_each,
    render_set,
)
from pespec.conformance.fixtures import (
    FixtureCheck,
    FixtureError,
    FixtureFormat,
    FixtureProgress,
    bit_differences,
    register_fixture_format,
)
from pespec.multiaxis.sinusoidal.presets import PRESETS, Preset
from pespec.multiaxis.sinusoidal.reference import oracle_encode
from pespec.sinusoidal.golden import ORACLE_PROVENANCE

__all__ = [
    "FIXTURE_FORMAT",
    "FORMAT",
    "MultiAxisFixture",
    "compute_fixture",
    "file_name",
    "fixture_for",
    "golden_rows",
    "load_fixtures",
    "parse_fixture",
    "render_files",
    "render_fixture",
    "verify_fixture",
]

FORMAT = "pespec-multiaxis-golden/1"
"""Identifier of the multi-axis fixture format (SPEC §9.4)."""

GENERATOR = {
    "name": ORACLE_PROVENANCE,
    "method": "section by section: the 1-D certified oracle (MPFR via gmpy2, Ziv loop until "
    "the error interval rounds to one float64, round to nearest, ties to even)",
}

DEFINITION = (
    "SPEC 9.1/9.2: values[r][c] is column c of the multi-axis encoding at grid row rows[r] "
    "(positions[r], one coordinate per axis): the 1-D sinusoidal encoding (SPEC 1) of the "
    "section owning column c at that section's axis coordinate; every value correctly "
    "rounded (round half to even) from the exact real value"
)


@dataclass(frozen=True)
class MultiAxisFixture:
    """One multi-axis set: rows (n,) of the grid, positions (n, k), values (n, D)."""

    name: str
    preset: str
    data: dict[str, Any]
    rows: NDArray[np.int64]
    positions: NDArray[np.float64]
    values: NDArray[np.float64]

    @property
    def grid(self) -> Preset:
        """The preset (configuration and grid) the set was computed for."""
        from pespec.multiaxis.sinusoidal.presets import resolve_config

        return resolve_config(dict(self.data))


def file_name(preset: str) -> str:
    """``multiaxis-<preset>.json``."""
    return f"multiaxis-{preset}.json"


def golden_rows(sizes: tuple[int, ...]) -> NDArray[np.int64]:
    """The grid rows of a set, sorted: the origin, one step along each axis, each axis at its
    last coordinate (others 0), the centre and the last row (row-major, last axis fastest)."""
    return np.array(grid_sample(sizes), dtype=np.int64)


def compute_fixture(name: str) -> MultiAxisFixture:
    """Evaluate preset ``name``'s set with the certified oracle."""
    chosen = PRESETS[name]
    rows = golden_rows(chosen.sizes)
    positions = np.asarray(chosen.positions()[rows], dtype=np.float64)
    values = oracle_encode(positions, chosen.config)
    data = chosen.to_dict()
    data.pop("source")  # provenance lives in the preset table; the set holds what is computed
    return MultiAxisFixture(file_name(name)[:-5], name, data, rows, positions, values)


def render_fixture(fixture: MultiAxisFixture) -> bytes:
    """The set's JSON file, byte-deterministic (fixed key order, one row per line)."""
    fields = [
        ("positions", matrix(fixture.positions.tolist())),
        ("positions_hex", matrix(hex_rows(fixture.positions))),
        ("values", matrix(fixture.values.tolist())),
        ("values_hex", matrix(hex_rows(fixture.values))),
    ]
    return render_set(FORMAT, GENERATOR, DEFINITION, fixture, fields)


def render_files(on_progress: FixtureProgress | None = None) -> dict[str, bytes]:
    """Every preset's set, in memory: {file name: bytes}; ``on_progress(name)`` after each."""
    return render_each(
        PRESETS, file_name, lambda n: render_fixture(compute_fixture(n)), on_progress
    )


def parse_fixture(name: str, data: bytes) -> MultiAxisFixture:
    """Read one multi-axis fixture file (``json`` only, never pickle); checks decimals = hex,
    the shapes, and that the rows are the stated grid's positions."""
    with malformed(name, "multi-axis fixture"):
        doc = json.loads(data.decode("ascii"))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise FixtureError(f"{name}: format must be {FORMAT!r}")
        rows = np.array(doc["rows"], dtype=np.int64)
        fixture = MultiAxisFixture(
            str(doc["name"]),
            str(doc["preset"]),
            dict(doc["preset_config"]),
            rows,
            exact_floats(name, doc["positions"], doc["positions_hex"], "positions"),
            exact_floats(name, doc["values"], doc["values_hex"], "values"),
        )
        grid = fixture.grid
    n, width = rows.shape[0], grid.config.d_model
    if fixture.values.shape != (n, width) or fixture.positions.shape != (n, grid.config.axes):
        raise FixtureError(
            f"{name}: values {fixture.values.shape} and positions {fixture.positions.shape} "
            f"do not fit {n} rows of width {width} over {grid.config.axes} axes"
        )
    on_grid = np.asarray(grid.positions()[rows], dtype=np.float64)
    if on_grid.tobytes() != fixture.positions.tobytes():
        raise FixtureError(f"{name}: positions are not the grid's rows {rows.tolist()}")
    return fixture


def load_fixtures(directory: Path | None = None) -> list[MultiAxisFixture]:
    """Every multi-axis set in ``directory`` (default: the shipped ones), sorted by file name;
    the folder's MANIFEST is verified first (a changed file raises FixtureError naming it)."""
    return load_format(directory, FORMAT, parse_fixture)


def fixture_for(chosen: Preset, directory: Path | None = None) -> MultiAxisFixture | None:
    """The verified set whose configuration and grid are ``chosen``'s, or None."""
    return matching_fixture(load_fixtures(directory), chosen.to_dict(), _data, _computed)


def _data(fixture: MultiAxisFixture) -> dict[str, Any]:
    return fixture.data


def _computed(data: dict[str, Any]) -> dict[str, Any]:
    """The set's data but its provenance (which lives in the preset table)."""
    return {k: v for k, v in data.items() if k != "source"}


def verify_fixture(fixture: MultiAxisFixture) -> tuple[int, list[str]]:
    """Recompute every stored value with the oracle: (how many differ, messages: 5 at most
    itemised, then a count)."""
    want = oracle_encode(fixture.positions, fixture.grid.config)
    return bit_differences(fixture.name, ("values", fixture.values), want, ("grid", fixture.rows))


def _npz_bytes(fixture: MultiAxisFixture) -> bytes:
    arrays = {"rows": fixture.rows, "positions": fixture.positions, "values": fixture.values}
    return npz_bytes(arrays, fixture.data)


def _csv_bytes(fixture: MultiAxisFixture) -> bytes:
    """One line per grid row: row, the k coordinates, then the D values (repr)."""
    return csv_bytes(fixture.rows, fixture.positions, fixture.values, "c")


def _verify(fixture: MultiAxisFixture, file: str, limit: int) -> FixtureCheck:
    wrong, problems = verify_fixture(fixture)
    return FixtureCheck(int(fixture.values.size), wrong, tuple(problems[:limit]))


FIXTURE_FORMAT = register_fixture_format(
    FixtureFormat(
        format=FORMAT,
        description="multi-axis sin-cos sets (SPEC §9.4)",
        parse=parse_fixture,
        verify=_verify,
        writers={"npz": _npz_bytes, "csv": _csv_bytes},
        render=render_files,
        planned=lambda: len(PRESETS),
    )
)
"""The handler of ``pespec-multiaxis-golden/1`` files (:mod:`pespec.conformance.fixtures`)."""
