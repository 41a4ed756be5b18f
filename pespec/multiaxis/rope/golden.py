"""Multi-axis rotary golden fixtures (SPEC R9.14): certified rotated rows of every preset.

One JSON file ``multiaxis-rope-<preset>.json`` per preset of
:data:`pespec.multiaxis.rope.presets.PRESETS`, in ``pespec/golden/`` with the other families' sets
and
listed in the same ``MANIFEST`` (format ``pespec-multiaxis-rope-golden/1``, registered in
:mod:`pespec.conformance.fixtures` when this module is imported). A set holds a few rows of
the preset's position ids (:func:`golden_rows`: text tokens before and after the vision
block, and the block's origin, one step and the last coordinate along each axis, its centre
and its last row), the input x of each row from :data:`X_FORMULA` (exact dyadic rationals,
indexed by the row's place in the ids, so a saved file's rows carry the same x) and the
oracle's output: every value the correctly rounded float64 of the exact rotation (SPEC
Annex B per section), as its shortest round-trip decimal and its exact ``float.hex``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.fixture_json import (
    csv_bytes,
    dump,
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
from pespec.multiaxis.rope.presets import PRESETS, Preset, resolve_config
from pespec.multiaxis.rope.reference import oracle_apply
from pespec.rope.inputs import rotary_x

__all__ = [
    "FIXTURE_FORMAT",
    "FORMAT",
    "X_FORMULA",
    "MRopeFixture",
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

FORMAT = "pespec-multiaxis-rope-golden/1"
"""Identifier of the multi-axis rotary fixture format (SPEC R9.14)."""

X_FORMULA = (
    "x[r][k] = ((37*(k+1) + 101*r) mod 257 - 128) / 64 for row r of the ids (0-based), "
    "k = 0..head_dim-1"
)
"""The input of row r of the ids: a multiple of 1/64 in [−2, 1.984375] (exact in float64;
the formula of the rotary sets, :func:`pespec.rope.inputs.rotary_x`, at the row's index)."""

GENERATOR = {
    "name": "pespec.rope.oracle",
    "method": "section by section: the 1-D rotary oracle (schedule in outward-rounded "
    "interval arithmetic, angles and rotation in MPFR with rigorous error bounds; Ziv loop "
    "until the error interval rounds to one float64, round to nearest, ties to even)",
}

DEFINITION = (
    "SPEC 9.7: y[r] is x[r] (x_formula at ids row rows[r]) with each slot's pair replaced by "
    "its section's 1-D rotation (SPEC 8.1) at that section's axis coordinate of positions[r]; "
    "every value correctly rounded (round half to even) from the exact real value"
)


@dataclass(frozen=True)
class MRopeFixture:
    """One set: rows (n,) of the ids, positions (n, k), x and y (n, head_dim)."""

    name: str
    preset: str
    data: dict[str, Any]
    rows: NDArray[np.int64]
    positions: NDArray[np.int64]
    x: NDArray[np.float64]
    y: NDArray[np.float64]

    @property
    def grid(self) -> Preset:
        """The preset (configuration and ids) the set was computed for."""
        return resolve_config(dict(self.data))


def file_name(preset: str) -> str:
    """``multiaxis-rope-<slug>.json`` (runs of characters other than a-z0-9 → '-')."""
    return "multiaxis-rope-" + re.sub(r"[^a-z0-9]+", "-", preset.lower()).strip("-") + ".json"


def golden_rows(chosen: Preset) -> NDArray[np.int64]:
    """The ids rows of a set, sorted: the first and last text token before the vision block
    and after it; in the block its origin, one step along each axis, each axis at its last
    index (the others 0), its centre and its last row."""
    sizes, before = chosen.grid, chosen.text_before
    block = int(np.prod(sizes))
    total = chosen.positions().shape[0]
    found = {before + i for i in grid_sample(tuple(sizes))}
    if before:
        found |= {0, before - 1}
    if total > before + block:
        found |= {before + block, total - 1}
    return np.array(sorted(found), dtype=np.int64)


def compute_fixture(name: str) -> MRopeFixture:
    """Evaluate preset ``name``'s set with the certified oracle."""
    chosen = PRESETS[name]
    rows = golden_rows(chosen)
    positions = np.asarray(chosen.positions()[rows], dtype=np.int64)
    x = rotary_x(rows, chosen.config.head_dim)
    data = chosen.to_dict()
    data.pop("source")  # provenance lives in the preset table; the set holds what is computed
    y = oracle_apply(x, positions, chosen.config)
    return MRopeFixture(file_name(name)[:-5], name, data, rows, positions, x, y)


def render_fixture(fixture: MRopeFixture) -> bytes:
    """The set's JSON file, byte-deterministic (fixed key order, one row per line)."""
    fields = [
        ("positions", matrix(fixture.positions.tolist())),
        ("x_formula", dump(X_FORMULA)),
        ("y", matrix(fixture.y.tolist())),
        ("y_hex", matrix(hex_rows(fixture.y))),
    ]
    return render_set(FORMAT, GENERATOR, DEFINITION, fixture, fields)


def render_files(on_progress: FixtureProgress | None = None) -> dict[str, bytes]:
    """Every preset's set, in memory: {file name: bytes}; ``on_progress(name)`` after each."""
    return render_each(
        PRESETS, file_name, lambda n: render_fixture(compute_fixture(n)), on_progress
    )


def _parsed(name: str, doc: Any) -> MRopeFixture:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise FixtureError(f"{name}: format must be {FORMAT!r}")
    if doc.get("x_formula") != X_FORMULA:
        raise FixtureError(f"{name}: x_formula must be {X_FORMULA!r}")
    rows = np.array(doc["rows"], dtype=np.int64)
    y = exact_floats(name, doc["y"], doc["y_hex"], "y")
    positions = np.array(doc["positions"], dtype=np.int64)
    data = dict(doc["preset_config"])
    head_dim = int(data["config"]["head_dim"])
    return MRopeFixture(
        str(doc["name"]), str(doc["preset"]), data, rows, positions, rotary_x(rows, head_dim), y
    )


def parse_fixture(name: str, data: bytes) -> MRopeFixture:
    """Read one set (``json`` only, never pickle); checks decimals = hex, the shapes, and
    that the positions are the stated ids' rows."""
    with malformed(name, "multi-axis rotary fixture"):
        fixture = _parsed(name, json.loads(data.decode("ascii")))
        ids = fixture.grid.positions()
        width, axes = fixture.grid.config.head_dim, fixture.grid.config.axes
    n = fixture.rows.shape[0]
    if fixture.y.shape != (n, width) or fixture.positions.shape != (n, axes):
        raise FixtureError(
            f"{name}: y {fixture.y.shape} and positions {fixture.positions.shape} do not fit "
            f"{n} rows of head_dim {width} over {axes} axes"
        )
    if n and (fixture.rows.min() < 0 or fixture.rows.max() >= ids.shape[0]):
        raise FixtureError(f"{name}: rows must be ids rows 0..{ids.shape[0] - 1}")
    if not np.array_equal(ids[fixture.rows], fixture.positions):
        raise FixtureError(f"{name}: positions are not the ids' rows {fixture.rows.tolist()}")
    return fixture


def load_fixtures(directory: Path | None = None) -> list[MRopeFixture]:
    """Every multi-axis rotary set in ``directory`` (default: the shipped ones), sorted by
    file name; the folder's MANIFEST is verified first."""
    return load_format(directory, FORMAT, parse_fixture)


def fixture_for(chosen: Preset, directory: Path | None = None) -> MRopeFixture | None:
    """The verified set whose configuration and ids are ``chosen``'s, or None."""
    return matching_fixture(load_fixtures(directory), chosen.to_dict(), _data, _computed)


def _data(fixture: MRopeFixture) -> dict[str, Any]:
    return fixture.data


def _computed(data: dict[str, Any]) -> dict[str, Any]:
    """The set's data but its provenance and its configuration's name (neither is computed)."""
    kept = {k: v for k, v in data.items() if k != "source"}
    kept["config"] = {k: v for k, v in kept["config"].items() if k != "name"}
    return kept


def verify_fixture(fixture: MRopeFixture) -> tuple[int, list[str]]:
    """Recompute every stored value with the oracle: (how many differ, messages: 5 at most
    itemised, then a count)."""
    want = oracle_apply(fixture.x, fixture.positions, fixture.grid.config)
    return bit_differences(fixture.name, ("y", fixture.y), want, ("ids", fixture.rows))


def _npz_bytes(fixture: MRopeFixture) -> bytes:
    arrays = {"rows": fixture.rows, "positions": fixture.positions, "x": fixture.x, "y": fixture.y}
    return npz_bytes(arrays, fixture.data)


def _csv_bytes(fixture: MRopeFixture) -> bytes:
    """One line per row: ids row, the k coordinates, then the head_dim values of y (repr)."""
    return csv_bytes(fixture.rows, fixture.positions, fixture.y, "y", lambda v: str(int(v)))


def _verify(fixture: MRopeFixture, file: str, limit: int) -> FixtureCheck:
    wrong, problems = verify_fixture(fixture)
    return FixtureCheck(int(fixture.y.size), wrong, tuple(problems[:limit]))


FIXTURE_FORMAT = register_fixture_format(
    FixtureFormat(
        format=FORMAT,
        description="multi-axis rotary sets (SPEC R9.14)",
        parse=parse_fixture,
        verify=_verify,
        writers={"npz": _npz_bytes, "csv": _csv_bytes},
        render=render_files,
        planned=lambda: len(PRESETS),
    )
)
"""The handler of ``pespec-multiaxis-rope-golden/1`` files (:mod:`pespec.conformance.fixtures`)."""
