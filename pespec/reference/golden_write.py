"""Writing golden fixtures: the byte-deterministic files, the MANIFEST, regeneration and
export (SPEC §7).

:func:`render_catalog` renders every set in memory; :func:`regenerate` replaces the fixture
directory atomically; :func:`export_fixture_sets` writes ``.npz`` or ``.csv`` copies.
"""

from __future__ import annotations

import csv
import io
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gmpy2
import mpmath
import numpy as np

from pespec._atomic import write_atomic
from pespec._version import SPEC_VERSION
from pespec.reference.golden import (
    DEFINITION,
    FORMAT,
    GENERATOR,
    MANIFEST,
    PROVENANCE,
    FixtureSet,
    fixture_directory,
    sha256_hex,
)
from pespec.reference.golden_catalog import CATALOG, FixtureSpec, compute_fixture

__all__ = [
    "WRITERS",
    "export_fixture_sets",
    "export_with",
    "manifest_text",
    "regenerate",
    "render_catalog",
    "render_fixture",
    "render_sets",
    "replace_directory",
    "with_manifest",
]


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": "), allow_nan=False)


def _matrix(rows: Iterable[list[Any]]) -> str:
    lines = ["  " + json.dumps(row, separators=(",", ":"), allow_nan=False) for row in rows]
    return "[\n" + ",\n".join(lines) + "\n ]"


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
        ("format", _dump(FORMAT)),
        ("spec_version", _dump(SPEC_VERSION)),
        ("generator", _dump(GENERATOR)),
        ("name", _dump(fixture.name)),
        ("description", _dump(fixture.description)),
        ("definition", _dump(DEFINITION + _scale_clause(fixture))),
        ("d_model", _dump(fixture.d_model)),
        ("base", _dump(float(fixture.base))),
        ("base_hex", _dump(float(fixture.base).hex())),
        ("convention", _dump(fixture.convention.to_dict())),
        ("position_type", _dump("float" if is_float else "int")),
        ("positions", _dump(positions)),
    ]
    if is_float:
        fields.append(("positions_hex", _dump([float(p).hex() for p in positions])))
    rows = fixture.values.tolist()
    fields += [
        ("columns", _dump([int(c) for c in fixture.columns.tolist()])),
        ("shape", _dump(list(fixture.values.shape))),
        ("values", _matrix(rows)),
        ("values_hex", _matrix([[v.hex() for v in row] for row in rows])),
    ]
    body = ",\n".join(f" {json.dumps(key)}: {text}" for key, text in fields)
    return ("{\n" + body + "\n}\n").encode("ascii")


def manifest_text(files: dict[str, bytes]) -> bytes:
    """``sha256sum`` lines (hash, two spaces, name) for every file, sorted by name."""
    return "".join(f"{sha256_hex(files[name])}  {name}\n" for name in sorted(files)).encode("ascii")


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


def with_manifest(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """``files`` and the ``MANIFEST`` that lists them."""
    return {**files, MANIFEST: manifest_text(dict(files))}


def render_catalog(
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> dict[str, bytes]:
    """Every fixture file and the MANIFEST, in memory: {file name: bytes}; ``extra``: further
    files sharing the directory and MANIFEST (other formats' files, rendered by their
    families: :func:`pespec.reference.fixture_formats.render_fixture_files`)."""
    return with_manifest({**render_sets(catalog, on_progress), **(extra or {})})


def _provenance() -> bytes:
    """The environment of a regeneration; no run time, so that regenerating a clean tree on
    the same machine leaves ``MANIFEST.provenance`` unchanged (the CLI prints the time)."""
    data = {
        "note": "environment of the last regeneration; not part of the byte-identical check",
        "spec_version": SPEC_VERSION,
        "generator": GENERATOR["name"],
        "mpmath": mpmath.__version__,
        "gmpy2": gmpy2.version(),
        "mpfr": gmpy2.mpfr_version(),
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    return (json.dumps(data, indent=1) + "\n").encode("ascii")


def regenerate(
    directory: Path | None = None,
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> dict[str, bytes]:
    """Recompute every set (and write ``extra``'s files, as :func:`render_catalog`) and
    replace ``directory`` atomically (:func:`replace_directory`); returns the files written."""
    return replace_directory(directory, render_catalog(catalog, on_progress, extra))


def replace_directory(directory: Path | None, files: Mapping[str, bytes]) -> dict[str, bytes]:
    """Replace ``directory`` (default: the shipped one) by ``files`` (MANIFEST included) and
    ``MANIFEST.provenance``, atomically; returns the files written.

    Files are written to a temporary sibling directory first and the two directories are
    then swapped with two renames, so an interruption before the swap leaves the previous
    files intact (and one between the renames leaves them in ``.golden-old-*``).
    """
    target = (directory or fixture_directory()).resolve()
    files_with_provenance = {**files, PROVENANCE: _provenance()}
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-new-", dir=target.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; the package directory is not
    try:
        for name, data in files_with_provenance.items():
            with open(staging / name, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
            old.rmdir()
            os.replace(target, old)
        os.replace(staging, target)
        if old is not None:
            shutil.rmtree(old)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return files_with_provenance


def _csv_bytes(fixture: FixtureSet) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["position", *(str(int(c)) for c in fixture.columns)])
    for position, row in zip(fixture.positions.tolist(), fixture.values.tolist(), strict=True):
        writer.writerow([repr(position), *(repr(v) for v in row)])
    return buffer.getvalue().encode("ascii")


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


def export_with(
    fixtures: Sequence[Any], directory: Path, file_format: str, writers: Mapping[str, Any]
) -> list[Path]:
    """Write ``<fixture.name>.<file_format>`` per fixture with ``writers[file_format]`` (the
    file's bytes), atomically; shared by the absolute and the rotary fixture sets."""
    if file_format not in writers:
        raise ValueError(f"file_format must be one of {sorted(writers)}; got {file_format!r}")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for fixture in fixtures:
        path = directory / f"{fixture.name}.{file_format}"
        write_atomic(path, writers[file_format](fixture))
        written.append(path)
    return written
