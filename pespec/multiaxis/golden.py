"""Multi-axis golden fixtures (SPEC §9.4): certified rows of every preset's grid.

One JSON file ``multiaxis-<preset>.json`` per preset of :data:`pespec.multiaxis.presets.PRESETS`,
in ``pespec/golden/`` with the other families' sets and listed in the same ``MANIFEST``
(format ``pespec-multiaxis-golden/1``, registered in :mod:`pespec.conformance.fixtures` when
this module is imported). A set holds a few rows of the preset's grid (:func:`golden_rows`:
the origin, one step along each axis, each axis at its last coordinate, the centre and the
last row) and the oracle's output there: every value the correctly rounded float64 of the
exact encoding (SPEC Annex B per section), as its shortest round-trip decimal and its exact
``float.hex``. Positions are stored as the grid's row indices and as float64 coordinates.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec._version import SPEC_VERSION
from pespec.conformance.fixtures import (
    FixtureCheck,
    FixtureError,
    FixtureFormat,
    FixtureProgress,
    bit_differences,
    files_of_format,
    register_fixture_format,
    verified_directory,
)
from pespec.multiaxis.presets import PRESETS, Preset
from pespec.multiaxis.reference import oracle_encode

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
    "name": "pespec.reference.oracle",
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
        from pespec.multiaxis.presets import resolve_config

        return resolve_config(dict(self.data))


def file_name(preset: str) -> str:
    """``multiaxis-<preset>.json``."""
    return f"multiaxis-{preset}.json"


def golden_rows(sizes: tuple[int, ...]) -> NDArray[np.int64]:
    """The grid rows of a set, sorted: the origin, one step along each axis, each axis at its
    last coordinate (others 0), the centre and the last row (row-major, last axis fastest)."""
    index: list[tuple[int, ...]] = [tuple(0 for _ in sizes)]
    for axis, size in enumerate(sizes):
        for coordinate in {min(1, size - 1), size - 1}:
            point = [0] * len(sizes)
            point[axis] = coordinate
            index.append(tuple(point))
    index.append(tuple(s // 2 for s in sizes))
    index.append(tuple(s - 1 for s in sizes))
    flat = {int(np.ravel_multi_index(i, sizes)) for i in index}
    return np.array(sorted(flat), dtype=np.int64)


def compute_fixture(name: str) -> MultiAxisFixture:
    """Evaluate preset ``name``'s set with the certified oracle."""
    chosen = PRESETS[name]
    rows = golden_rows(chosen.sizes)
    positions = np.asarray(chosen.positions()[rows], dtype=np.float64)
    values = oracle_encode(positions, chosen.config)
    data = chosen.to_dict()
    data.pop("source")  # provenance lives in the preset table; the set holds what is computed
    return MultiAxisFixture(file_name(name)[:-5], name, data, rows, positions, values)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": "), allow_nan=False)


def _matrix(rows: list[list[Any]]) -> str:
    lines = ["  " + json.dumps(row, separators=(",", ":"), allow_nan=False) for row in rows]
    return "[\n" + ",\n".join(lines) + "\n ]"


def _hex_rows(array: NDArray[np.float64]) -> list[list[str]]:
    return [[float(v).hex() for v in row] for row in array.tolist()]


def render_fixture(fixture: MultiAxisFixture) -> bytes:
    """The set's JSON file, byte-deterministic (fixed key order, one row per line)."""
    fields: list[tuple[str, str]] = [
        ("format", _dump(FORMAT)),
        ("spec_version", _dump(SPEC_VERSION)),
        ("generator", _dump(GENERATOR)),
        ("name", _dump(fixture.name)),
        ("preset", _dump(fixture.preset)),
        ("definition", _dump(DEFINITION)),
        ("preset_config", _dump(fixture.data)),
        ("rows", _dump(fixture.rows.tolist())),
        ("positions", _matrix(fixture.positions.tolist())),
        ("positions_hex", _matrix(_hex_rows(fixture.positions))),
        ("values", _matrix(fixture.values.tolist())),
        ("values_hex", _matrix(_hex_rows(fixture.values))),
    ]
    body = ",\n".join(f" {json.dumps(key)}: {text}" for key, text in fields)
    return ("{\n" + body + "\n}\n").encode("ascii")


def render_files(on_progress: FixtureProgress | None = None) -> dict[str, bytes]:
    """Every preset's set, in memory: {file name: bytes}; ``on_progress(name)`` after each."""
    files = {}
    for name in PRESETS:
        files[file_name(name)] = render_fixture(compute_fixture(name))
        if on_progress is not None:
            on_progress(file_name(name)[:-5])
    return files


def _floats(name: str, decimals: Any, hexes: Any, what: str) -> NDArray[np.float64]:
    """The hex rows as float64, checked equal to the decimal rows bit for bit."""
    exact = np.array([[float.fromhex(h) for h in row] for row in hexes], dtype=np.float64)
    if np.array(decimals, dtype=np.float64).tobytes() != exact.tobytes():
        raise FixtureError(f"{name}: {what} decimals differ from {what}_hex")
    return exact


def parse_fixture(name: str, data: bytes) -> MultiAxisFixture:
    """Read one multi-axis fixture file (``json`` only, never pickle); checks decimals = hex,
    the shapes, and that the rows are the stated grid's positions."""
    try:
        doc = json.loads(data.decode("ascii"))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise FixtureError(f"{name}: format must be {FORMAT!r}")
        rows = np.array(doc["rows"], dtype=np.int64)
        fixture = MultiAxisFixture(
            str(doc["name"]),
            str(doc["preset"]),
            dict(doc["preset_config"]),
            rows,
            _floats(name, doc["positions"], doc["positions_hex"], "positions"),
            _floats(name, doc["values"], doc["values_hex"], "values"),
        )
        grid = fixture.grid
    except FixtureError:
        raise
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise FixtureError(
            f"{name}: malformed multi-axis fixture ({type(exc).__name__}: {exc})"
        ) from None
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
    target = verified_directory(directory)
    return [parse_fixture(p.name, p.read_bytes()) for p in files_of_format(target, FORMAT)]


def fixture_for(chosen: Preset, directory: Path | None = None) -> MultiAxisFixture | None:
    """The verified set whose configuration and grid are ``chosen``'s, or None."""
    wanted = chosen.to_dict()
    wanted.pop("source", None)
    for fixture in load_fixtures(directory):
        stored = dict(fixture.data)
        stored.pop("source", None)
        if stored == wanted:
            return fixture
    return None


def verify_fixture(fixture: MultiAxisFixture) -> tuple[int, list[str]]:
    """Recompute every stored value with the oracle: (how many differ, messages: 5 at most
    itemised, then a count)."""
    want = oracle_encode(fixture.positions, fixture.grid.config)
    return bit_differences(fixture.name, ("values", fixture.values), want, ("grid", fixture.rows))


def _npz_bytes(fixture: MultiAxisFixture) -> bytes:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        rows=fixture.rows,
        positions=fixture.positions,
        values=fixture.values,
        config=np.array(json.dumps(fixture.data, sort_keys=True)),
    )
    return buffer.getvalue()


def _csv_bytes(fixture: MultiAxisFixture) -> bytes:
    """One line per grid row: row, the k coordinates, then the D values (repr)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    axes, width = fixture.positions.shape[1], fixture.values.shape[1]
    writer.writerow(["row"] + [f"axis{a}" for a in range(axes)] + [f"c{j}" for j in range(width)])
    for r, row in enumerate(fixture.rows.tolist()):
        values = fixture.positions[r].tolist() + fixture.values[r].tolist()
        writer.writerow([row] + [repr(v) for v in values])
    return buffer.getvalue().encode("ascii")


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
