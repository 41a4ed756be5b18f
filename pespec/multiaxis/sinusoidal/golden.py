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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.fixture_json import grid_sample
from pespec.conformance.fixtures import FixtureError
from pespec.conformance.preset_sets import PresetRows, PresetSetFormat, computed, floats, grid_csv
from pespec.multiaxis.sinusoidal.presets import PRESETS, Preset
from pespec.multiaxis.sinusoidal.reference import oracle_encode
from pespec.sinusoidal.golden import ORACLE_PROVENANCE

__all__ = [
    "FIXTURE_FORMAT",
    "FORMAT",
    "GOLDEN",
    "MultiAxisFixture",
    "compute_fixture",
    "fixture_for",
    "golden_rows",
]

FORMAT = "pespec-multiaxis-golden/1"
"""Identifier of the multi-axis fixture format (SPEC §9.4)."""


@dataclass(frozen=True)
class MultiAxisFixture(PresetRows):
    """One multi-axis set: rows (n,) of the grid, positions (n, k), values (n, D)."""

    positions: NDArray[np.float64]
    values: NDArray[np.float64]

    @property
    def grid(self) -> Preset:
        """The preset (configuration and grid) the set was computed for."""
        from pespec.multiaxis.sinusoidal.presets import resolve_config

        return resolve_config(dict(self.data))


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
    data = computed(chosen.to_dict())
    return MultiAxisFixture(GOLDEN.set_name(name), name, data, rows, positions, values)


def _built(file: str, parsed: dict[str, Any]) -> MultiAxisFixture:
    """The set of the parsed fields, once its shapes fit its grid and its positions are the
    grid's rows."""
    fixture = MultiAxisFixture(**parsed)
    grid, rows = fixture.grid, fixture.rows
    n, width = rows.shape[0], grid.config.d_model
    if fixture.values.shape != (n, width) or fixture.positions.shape != (n, grid.config.axes):
        raise FixtureError(
            f"{file}: values {fixture.values.shape} and positions {fixture.positions.shape} "
            f"do not fit {n} rows of width {width} over {grid.config.axes} axes"
        )
    on_grid = np.asarray(grid.positions()[rows], dtype=np.float64)
    if on_grid.tobytes() != fixture.positions.tobytes():
        raise FixtureError(f"{file}: positions are not the grid's rows {rows.tolist()}")
    return fixture


GOLDEN: PresetSetFormat[MultiAxisFixture] = PresetSetFormat(
    tag=FORMAT,
    description="multi-axis sin-cos sets (SPEC §9.4)",
    noun="multi-axis fixture",
    generator={
        "name": ORACLE_PROVENANCE,
        "method": "section by section: the 1-D certified oracle (MPFR via gmpy2, Ziv loop until "
        "the error interval rounds to one float64, round to nearest, ties to even)",
    },
    definition=(
        "SPEC 9.1/9.2: values[r][c] is column c of the multi-axis encoding at grid row rows[r] "
        "(positions[r], one coordinate per axis): the 1-D sinusoidal encoding (SPEC 1) of the "
        "section owning column c at that section's axis coordinate; every value correctly "
        "rounded (round half to even) from the exact real value"
    ),
    fields=(*PresetRows.FIELDS, floats("positions"), floats("values")),
    presets=PRESETS,
    prefix="multiaxis-",
    compute=compute_fixture,
    build=_built,
    npz={"rows": "rows", "positions": "positions", "values": "values"},
    csv=grid_csv("rows", "positions", "values", "c"),
    certify=lambda fixture: oracle_encode(fixture.positions, fixture.grid.config),
    row_word="grid",
)
"""The format's declaration: one JSON file per preset, a few grid rows, every value certified."""

FIXTURE_FORMAT = GOLDEN.register()
"""The handler of ``pespec-multiaxis-golden/1`` files (:mod:`pespec.conformance.fixtures`)."""


def fixture_for(chosen: Preset, directory: Path | None = None) -> MultiAxisFixture | None:
    """The verified set whose configuration and grid are ``chosen``'s (provenance aside, which
    lives in the preset table), or None."""
    return GOLDEN.matching(chosen.to_dict(), directory)
