"""Multi-axis rotary golden fixtures (SPEC R9.14): certified rotated rows of every preset.

One JSON file ``multiaxis-rope-<preset>.json`` per preset of
:data:`pespec.mrope.presets.PRESETS`, in ``pespec/golden/`` with the other families' sets and
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

import csv
import io
import json
import re
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
from pespec.mrope.presets import PRESETS, Preset, resolve_config
from pespec.mrope.reference import oracle_apply

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
    "x_rows",
]

FORMAT = "pespec-multiaxis-rope-golden/1"
"""Identifier of the multi-axis rotary fixture format (SPEC R9.14)."""

X_FORMULA = (
    "x[r][k] = ((37*(k+1) + 101*r) mod 257 - 128) / 64 for row r of the ids (0-based), "
    "k = 0..head_dim-1"
)
"""The input of row r of the ids: a multiple of 1/64 in [−2, 1.984375] (exact in float64;
the formula of the rotary sets, :data:`pespec.rope.golden.X_FORMULA`, at the row's index)."""

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


def x_rows(rows: NDArray[np.int64], head_dim: int) -> NDArray[np.float64]:
    """:data:`X_FORMULA` at ids rows ``rows``: shape (len(rows), head_dim)."""
    r = np.asarray(rows, dtype=np.int64)[:, None]
    k = np.arange(head_dim, dtype=np.int64)[None, :]
    result: NDArray[np.float64] = ((37 * (k + 1) + 101 * r) % 257 - 128) / 64.0
    return result


def golden_rows(chosen: Preset) -> NDArray[np.int64]:
    """The ids rows of a set, sorted: the first and last text token before the vision block
    and after it; in the block its origin, one step along each axis, each axis at its last
    index (the others 0), its centre and its last row."""
    sizes, before = chosen.grid, chosen.text_before
    block = int(np.prod(sizes))
    total = chosen.positions().shape[0]
    index: list[tuple[int, ...]] = [(0, 0, 0), tuple(s // 2 for s in sizes)]
    index.append(tuple(s - 1 for s in sizes))
    for axis, size in enumerate(sizes):
        for coordinate in (min(1, size - 1), size - 1):
            point = [0, 0, 0]
            point[axis] = coordinate
            index.append(tuple(point))
    found = {before + int(np.ravel_multi_index(i, sizes)) for i in index}
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
    x = x_rows(rows, chosen.config.head_dim)
    data = chosen.to_dict()
    data.pop("source")  # provenance lives in the preset table; the set holds what is computed
    y = oracle_apply(x, positions, chosen.config)
    return MRopeFixture(file_name(name)[:-5], name, data, rows, positions, x, y)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": "), allow_nan=False)


def _matrix(rows: list[list[Any]]) -> str:
    lines = ["  " + json.dumps(row, separators=(",", ":"), allow_nan=False) for row in rows]
    return "[\n" + ",\n".join(lines) + "\n ]"


def render_fixture(fixture: MRopeFixture) -> bytes:
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
        ("x_formula", _dump(X_FORMULA)),
        ("y", _matrix(fixture.y.tolist())),
        ("y_hex", _matrix([[float(v).hex() for v in row] for row in fixture.y.tolist()])),
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


def _parsed(name: str, doc: Any) -> MRopeFixture:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise FixtureError(f"{name}: format must be {FORMAT!r}")
    if doc.get("x_formula") != X_FORMULA:
        raise FixtureError(f"{name}: x_formula must be {X_FORMULA!r}")
    rows = np.array(doc["rows"], dtype=np.int64)
    y = np.array([[float.fromhex(h) for h in row] for row in doc["y_hex"]], dtype=np.float64)
    if np.array(doc["y"], dtype=np.float64).tobytes() != y.tobytes():
        raise FixtureError(f"{name}: y decimals differ from y_hex")
    positions = np.array(doc["positions"], dtype=np.int64)
    data = dict(doc["preset_config"])
    head_dim = int(data["config"]["head_dim"])
    return MRopeFixture(
        str(doc["name"]), str(doc["preset"]), data, rows, positions, x_rows(rows, head_dim), y
    )


def parse_fixture(name: str, data: bytes) -> MRopeFixture:
    """Read one set (``json`` only, never pickle); checks decimals = hex, the shapes, and
    that the positions are the stated ids' rows."""
    try:
        fixture = _parsed(name, json.loads(data.decode("ascii")))
        ids = fixture.grid.positions()
        width, axes = fixture.grid.config.head_dim, fixture.grid.config.axes
    except FixtureError:
        raise
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise FixtureError(
            f"{name}: malformed multi-axis rotary fixture ({type(exc).__name__}: {exc})"
        ) from None
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
    target = verified_directory(directory)
    return [parse_fixture(p.name, p.read_bytes()) for p in files_of_format(target, FORMAT)]


def fixture_for(chosen: Preset, directory: Path | None = None) -> MRopeFixture | None:
    """The verified set whose configuration and ids are ``chosen``'s, or None."""
    wanted = chosen.to_dict()
    wanted.pop("source", None)
    wanted["config"].pop("name", None)
    for fixture in load_fixtures(directory):
        stored = dict(fixture.data)
        stored.pop("source", None)
        stored["config"] = {k: v for k, v in stored["config"].items() if k != "name"}
        if stored == wanted:
            return fixture
    return None


def verify_fixture(fixture: MRopeFixture) -> tuple[int, list[str]]:
    """Recompute every stored value with the oracle: (how many differ, messages: 5 at most
    itemised, then a count)."""
    want = oracle_apply(fixture.x, fixture.positions, fixture.grid.config)
    return bit_differences(fixture.name, ("y", fixture.y), want, ("ids", fixture.rows))


def _npz_bytes(fixture: MRopeFixture) -> bytes:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        rows=fixture.rows,
        positions=fixture.positions,
        x=fixture.x,
        y=fixture.y,
        config=np.array(json.dumps(fixture.data, sort_keys=True)),
    )
    return buffer.getvalue()


def _csv_bytes(fixture: MRopeFixture) -> bytes:
    """One line per row: ids row, the k coordinates, then the head_dim values of y (repr)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    axes, width = fixture.positions.shape[1], fixture.y.shape[1]
    writer.writerow(["row"] + [f"axis{a}" for a in range(axes)] + [f"y{j}" for j in range(width)])
    for r, row in enumerate(fixture.rows.tolist()):
        coordinates = [str(int(v)) for v in fixture.positions[r].tolist()]
        writer.writerow([row] + coordinates + [repr(v) for v in fixture.y[r].tolist()])
    return buffer.getvalue().encode("ascii")


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
