"""Writing golden fixtures: the byte-deterministic files, the MANIFEST, regeneration and
export (SPEC §7).

:func:`render_catalog` renders every set in memory; :func:`regenerate` replaces the fixture
directory atomically; :func:`export_fixture_sets` writes ``.npz`` or ``.csv`` copies. The
MANIFEST, the atomic folder replacement and the atomic export are the engine's
(:mod:`pespec.conformance.fixtures`), imported from there.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from pespec._version import SPEC_VERSION
from pespec.conformance.csvexport import Cell, csv_table
from pespec.conformance.fixture_json import dump, json_object, matrix
from pespec.conformance.fixtures import (
    export_with,
    replace_directory,
    with_manifest,
)
from pespec.sinusoidal.golden import DEFINITION, FORMAT, GENERATOR, FixtureSet
from pespec.sinusoidal.golden_catalog import CATALOG, FixtureSpec, compute_fixture

__all__ = [
    "WRITERS",
    "export_fixture_sets",
    "regenerate",
    "render_catalog",
    "render_fixture",
    "render_sets",
]


def _scale_clause(fixture: FixtureSet) -> str:
    """The definition's words for an output scale (SPEC §3.1); empty when A = 1."""
    if fixture.convention.output_scale == 1.0:
        return ""
    return (
        "; with an output scale A (convention output_scale: a number, or sqrt(2/d) = the "
        "exact square root of 2/d_model) each value is the correctly rounded float64 of A "
        "times that sine or cosine"
    )


def render_fixture(fixture: FixtureSet) -> bytes:
    """The fixture's JSON file, byte-deterministic (fixed key order, one row per line)."""
    is_float = fixture.positions.dtype.kind == "f"
    positions = [float(p) if is_float else int(p) for p in fixture.positions.tolist()]
    fields: list[tuple[str, str]] = [
        ("format", dump(FORMAT)),
        ("spec_version", dump(SPEC_VERSION)),
        ("generator", dump(GENERATOR)),
        ("name", dump(fixture.name)),
        ("description", dump(fixture.description)),
        ("definition", dump(DEFINITION + _scale_clause(fixture))),
        ("d_model", dump(fixture.d_model)),
        ("base", dump(float(fixture.base))),
        ("base_hex", dump(float(fixture.base).hex())),
        ("convention", dump(fixture.convention.to_dict())),
        ("position_type", dump("float" if is_float else "int")),
        ("positions", dump(positions)),
    ]
    if is_float:
        fields.append(("positions_hex", dump([float(p).hex() for p in positions])))
    rows = fixture.values.tolist()
    fields += [
        ("columns", dump([int(c) for c in fixture.columns.tolist()])),
        ("shape", dump(list(fixture.values.shape))),
        ("values", matrix(rows)),
        ("values_hex", matrix([[v.hex() for v in row] for row in rows])),
    ]
    return json_object(fields)


def render_sets(
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
) -> dict[str, bytes]:
    """Every set of ``catalog``, in memory: {file name: bytes} (no MANIFEST)."""
    files: dict[str, bytes] = {}
    for spec in catalog:
        files[f"{spec.name}.json"] = render_fixture(compute_fixture(spec))
        if on_progress is not None:
            on_progress(spec)
    return files


def render_catalog(
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> dict[str, bytes]:
    """Every fixture file and the MANIFEST, in memory: {file name: bytes}; ``extra``: further
    files sharing the directory and MANIFEST (other formats' files, rendered by their
    families: :func:`pespec.conformance.fixtures.render_fixture_files`)."""
    return with_manifest({**render_sets(catalog, on_progress), **(extra or {})})


def regenerate(
    directory: Path | None = None,
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> dict[str, bytes]:
    """Recompute every set (and write ``extra``'s files, as :func:`render_catalog`) and
    replace ``directory`` atomically (:func:`replace_directory`); returns the files written."""
    files = render_catalog(catalog, on_progress, extra)
    return replace_directory(directory, files, generator=GENERATOR["name"])


def _csv_bytes(fixture: FixtureSet) -> bytes:
    """One line per position: the position, then its values at the set's columns."""
    header: list[Cell] = ["position", *(int(c) for c in fixture.columns)]
    rows = zip(fixture.positions.tolist(), fixture.values.tolist(), strict=True)
    return csv_table(header, ([p, *row] for p, row in rows))


def _npz_bytes(fixture: FixtureSet) -> bytes:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        positions=fixture.positions,
        columns=fixture.columns.astype(np.int64),
        values=fixture.values,
        d_model=np.int64(fixture.d_model),
        base=np.float64(fixture.base),
        convention=np.array(json.dumps(fixture.convention.to_dict(), sort_keys=True)),
    )
    return buffer.getvalue()


WRITERS: Mapping[str, Callable[[FixtureSet], bytes]] = {"npz": _npz_bytes, "csv": _csv_bytes}
"""Export format -> the bytes of ``<name>.<format>`` for one absolute set."""


def export_fixture_sets(
    fixtures: Sequence[FixtureSet], directory: Path, file_format: str
) -> list[Path]:
    """Write ``<name>.npz`` (arrays, no pickled objects) or ``<name>.csv`` per set; atomic."""
    return export_with(fixtures, directory, file_format, WRITERS)
