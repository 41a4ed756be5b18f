"""Golden fixtures: certified encodings shipped as JSON, loadable from any language (SPEC §8).

Each fixture set is one JSON file in ``pespec/golden/``; ``MANIFEST`` lists the SHA-256 of
every file in ``sha256sum`` format (``sha256sum -c MANIFEST`` works); ``MANIFEST.provenance``
records the library versions and run time of the last regeneration and is the only file
that may differ between machines. Every stored value is the oracle's certified correctly
rounded float64 (:mod:`pespec.reference.oracle`), given both as its shortest round-trip
decimal and as its exact ``float.hex`` form.

Public API (the conformance suite uses it): :class:`FixtureSet`, :func:`load_fixture_sets`,
:func:`fixture_directory`. The ``pespec golden`` command is :mod:`pespec.cli.golden`.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.resources
import io
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gmpy2
import mpmath
import numpy as np
from numpy.typing import NDArray

from pespec._atomic import write_atomic
from pespec._version import SPEC_VERSION
from pespec.reference.conventions import PRESETS, Convention, diffusers_convention
from pespec.reference.oracle import encode as oracle_encode

__all__ = [
    "CATALOG",
    "FORMAT",
    "GENERATOR",
    "MANIFEST",
    "PROVENANCE",
    "FixtureError",
    "FixtureSet",
    "FixtureSpec",
    "ValueMismatch",
    "catalog_markdown",
    "check_directory",
    "compute_fixture",
    "export_fixture_sets",
    "fixture_directory",
    "load_fixture_sets",
    "manifest_text",
    "parse_fixture",
    "read_manifest",
    "regenerate",
    "render_catalog",
    "render_fixture",
    "verify_checksums",
    "verify_values",
]

FORMAT = "pespec-golden/1"
"""Identifier of the file format described in SPEC §8 (bumped on any incompatible change)."""

GENERATOR = {
    "name": "pespec.reference.oracle",
    "method": "MPFR (gmpy2) with rigorous error bounds; Ziv loop until the error interval "
    "rounds to one float64 (round to nearest, ties to even)",
}
"""Who computed the values; library versions are in MANIFEST.provenance, not in the files."""

DEFINITION = (
    "theta_k = c*(p+o)*base^(-k/(d_model/2-s)) for k = 0..d_model/2-1 with (s, o, c) = "
    "(frequency_shift, position_offset, argument_scale); the sine and cosine of theta_k go "
    "to the columns given by layout (interleaved: 2k, 2k+1; sin_cos_halves: k, d/2+k; "
    "cos_sin_halves: d/2+k, k); each value is the correctly rounded (round half to even) "
    "float64 of the exact real number, all inputs taken at their exact binary values"
)

MANIFEST = "MANIFEST"
PROVENANCE = "MANIFEST.provenance"


class FixtureError(ValueError):
    """A fixture file or directory is missing, malformed or fails its checksum."""


@dataclass(frozen=True)
class FixtureSet:
    """One golden set: ``values[i, j]`` is the encoding at ``positions[i]``, column ``columns[j]``.

    positions: shape (n,), int64, or float64 when some position is fractional;
    columns: shape (m,), intp, increasing; values: shape (n, m), float64, certified.
    """

    name: str
    description: str
    d_model: int
    base: float
    convention: Convention
    positions: NDArray[Any]
    columns: NDArray[np.intp]
    values: NDArray[np.float64]


@dataclass(frozen=True)
class FixtureSpec:
    """A catalog entry: what to compute (``columns=None`` means every column)."""

    name: str
    description: str
    d_model: int
    positions: tuple[int | float, ...]
    base: float = 10000.0
    convention: Convention = PRESETS["canonical"]
    columns: tuple[int, ...] | None = None


@dataclass(frozen=True)
class ValueMismatch:
    """A stored value that differs from the oracle's certified value."""

    file: str
    position: int | float
    column: int
    stored: float
    certified: float

    def __str__(self) -> str:
        return (
            f"{self.file}: position {self.position!r}, column {self.column}: stored "
            f"{self.stored!r} ({self.stored.hex()}), certified {self.certified!r} "
            f"({self.certified.hex()})"
        )


# ---------------------------------------------------------------------------
# the catalog


def _sampled_pair_columns(d_model: int, edge: int, stride: int) -> tuple[int, ...]:
    """Both columns (interleaved) of the first and last ``edge`` pairs and every stride-th."""
    half = d_model // 2
    pairs = sorted({*range(edge), *range(half - edge, half), *range(0, half, stride)})
    return tuple(c for k in pairs for c in (2 * k, 2 * k + 1))


_LONG = (
    0,
    1,
    *(2**k for k in range(10, 32)),
    2**31 - 1,
    10**6,
    10**7,
    10**8,
    10**9,
    123456789,
    1999999999,
)
_BASE_POSITIONS = (0, 1, 2, 3, 10, 100, 1000, 4096, 10000, 65535, 100000, 1000000)
_LARGE_D_POSITIONS = (0, 1, 2, 100, 1000, 4095, 8191, 100000, 2**20, 2**31 - 1)
_CONVENTION_POSITIONS = (*range(16), 100, 1000, 4999, 65536)
_FRACTIONAL = (
    0.5,
    0.25,
    0.1,
    1 / 3,
    2 / 3,
    1.5,
    2.5,
    1e-3,
    1e-8,
    3.141592653589793,
    999.999,
    1234.5678,
    65535.5,
    123456.789,
    1000000.5,
    2**31 - 0.5,
    -0.5,
    -1.25,
    -1000.125,
    -123456.789,
)
_NEGATIVE = (-1, -2, -3, -10, -100, -1000, -4999, -65536, -(2**20), -(2**31))


def _catalog() -> tuple[FixtureSpec, ...]:
    specs = [
        FixtureSpec("tiny-d4-L3", "hand-check configuration: d=4, positions 0..2", 4, (0, 1, 2)),
        FixtureSpec("d64-L128", "d=64, every position 0..127, every column", 64, tuple(range(128))),
        FixtureSpec(
            "gpt2-d768-L1024",
            "GPT-2 size (d=768, context 1024): sampled rows, every column",
            768,
            (0, 1, 2, 3, 7, 8, 63, 64, 127, 255, 256, 511, 512, 767, 1022, 1023),
        ),
        FixtureSpec(
            "transformer-d512-L5000",
            "original Transformer (d=512, positions < 5000): sampled rows, every column",
            512,
            (0, 1, 2, 3, 10, 100, 255, 256, 511, 1000, 1023, 2047, 2500, 4095, 4998, 4999),
        ),
        FixtureSpec(
            "long-context-d128",
            "long context: positions up to 2^31 (powers of two, 2^31-1, powers of ten)",
            128,
            _LONG,
        ),
        FixtureSpec(
            "fractional-d64",
            "fractional positions (each float64 taken at its exact binary value), "
            "including negative ones",
            64,
            _FRACTIONAL,
        ),
        FixtureSpec("negative-d64", "negative integer positions", 64, _NEGATIVE),
    ]
    for label, base in (("100", 100.0), ("1e4", 1e4), ("1e5", 1e5), ("5e5", 5e5), ("1e6", 1e6)):
        specs.append(
            FixtureSpec(
                f"base-{label}-d128",
                f"base {label} (d=128)",
                128,
                _BASE_POSITIONS,
                base=base,
            )
        )
    for d_model, stride in ((2048, 32), (8192, 32)):
        specs.append(
            FixtureSpec(
                f"large-d{d_model}",
                f"d={d_model}: both columns of the first 16 and last 16 pairs and of every "
                f"{stride}th pair",
                d_model,
                _LARGE_D_POSITIONS,
                columns=_sampled_pair_columns(d_model, 16, stride),
            )
        )
    conventions = [
        *PRESETS.items(),
        ("diffusers-flip-shift0-scale1000", diffusers_convention(True, 0.0, 1000.0)),
    ]
    for name, convention in conventions:
        specs.append(
            FixtureSpec(
                f"convention-{name}",
                f"convention {convention.name!r} (d=32)",
                32,
                _CONVENTION_POSITIONS,
                convention=convention,
            )
        )
    return tuple(specs)


CATALOG: tuple[FixtureSpec, ...] = _catalog()
"""Every shipped fixture set, in file-name order of generation."""


# ---------------------------------------------------------------------------
# computing and rendering


def _positions_array(positions: Sequence[int | float]) -> NDArray[Any]:
    if all(isinstance(p, int) for p in positions):
        return np.array(positions, dtype=np.int64)
    return np.array([float(p) for p in positions], dtype=np.float64)


def compute_fixture(spec: FixtureSpec) -> FixtureSet:
    """Evaluate a catalog entry with the certified oracle."""
    positions = _positions_array(spec.positions)
    columns = np.arange(spec.d_model, dtype=np.intp)
    if spec.columns is not None:
        columns = np.array(spec.columns, dtype=np.intp)
    full = oracle_encode(positions, spec.d_model, base=spec.base, convention=spec.convention)
    return FixtureSet(
        name=spec.name,
        description=spec.description,
        d_model=spec.d_model,
        base=spec.base,
        convention=spec.convention,
        positions=positions,
        columns=columns,
        values=np.ascontiguousarray(full[:, columns]),
    )


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": "), allow_nan=False)


def _matrix(rows: Iterable[list[Any]]) -> str:
    lines = ["  " + json.dumps(row, separators=(",", ":"), allow_nan=False) for row in rows]
    return "[\n" + ",\n".join(lines) + "\n ]"


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
        ("definition", _dump(DEFINITION)),
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


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_text(files: dict[str, bytes]) -> bytes:
    """``sha256sum`` lines (hash, two spaces, name) for every file, sorted by name."""
    return "".join(f"{_sha256(files[name])}  {name}\n" for name in sorted(files)).encode("ascii")


def render_catalog(
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> dict[str, bytes]:
    """Every fixture file and the MANIFEST, in memory: {file name: bytes}; ``extra``: further
    files sharing the directory and MANIFEST (the command line passes the rotary sets of
    :func:`pespec.rope.golden.render_rope_files`, SPEC §12.10, a layer above this one)."""
    files: dict[str, bytes] = {}
    for spec in catalog:
        files[f"{spec.name}.json"] = render_fixture(compute_fixture(spec))
        if on_progress is not None:
            on_progress(spec)
    files.update(extra or {})
    files[MANIFEST] = manifest_text(files)
    return files


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


def fixture_directory() -> Path:
    """The directory of the shipped fixtures (``pespec/golden``, package data).

    Found through :mod:`importlib.resources`, so an installed (non-editable) package reads its
    own copy and never a source checkout.
    """
    resource = importlib.resources.files("pespec").joinpath("golden")
    if not isinstance(resource, Path):  # a zip import: the fixtures are not plain files
        raise FileNotFoundError(f"pespec's golden fixtures are not a directory: {resource}")
    return resource


def regenerate(
    directory: Path | None = None,
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> dict[str, bytes]:
    """Recompute every set (and write ``extra``'s files, as :func:`render_catalog`) and
    replace ``directory`` atomically; returns the files written.

    Files are written to a temporary sibling directory first and the two directories are
    then swapped with two renames, so an interruption before the swap leaves the previous
    files intact (and one between the renames leaves them in ``.golden-old-*``).
    """
    target = (directory or fixture_directory()).resolve()
    files = render_catalog(catalog, on_progress, extra)
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


def check_directory(
    directory: Path | None = None,
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> list[str]:
    """Regenerate in memory (``extra`` as :func:`render_catalog`); the names of files that
    differ byte for byte, are missing or are not part of the catalog (MANIFEST.provenance
    excepted)."""
    target = directory or fixture_directory()
    expected = render_catalog(catalog, on_progress, extra)
    present = {p.name for p in target.glob("*") if p.is_file() and p.name != PROVENANCE}
    differing = [
        name
        for name, data in expected.items()
        if name not in present or (target / name).read_bytes() != data
    ]
    return sorted(differing + sorted(present - set(expected)))


# ---------------------------------------------------------------------------
# reading and verifying


def read_manifest(directory: Path) -> dict[str, str]:
    """{file name: sha256 hex} from ``directory/MANIFEST``."""
    path = directory / MANIFEST
    if not path.is_file():
        raise FixtureError(f"{path}: MANIFEST is missing")
    entries: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="ascii").splitlines(), 1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or not name:
            raise FixtureError(f"{path}:{number}: malformed line {line!r}")
        entries[name] = digest
    return entries


def verify_checksums(directory: Path | None = None) -> list[str]:
    """Problems found comparing the files with MANIFEST (empty when all match)."""
    target = directory or fixture_directory()
    problems = []
    entries = read_manifest(target)
    for name, digest in sorted(entries.items()):
        path = target / name
        if not path.is_file():
            problems.append(f"{name}: listed in MANIFEST but missing")
        elif _sha256(path.read_bytes()) != digest:
            problems.append(f"{name}: SHA-256 differs from MANIFEST (file changed)")
    for path in sorted(target.glob("*.json")):
        if path.name not in entries:
            problems.append(f"{path.name}: not listed in MANIFEST")
    return problems


def _require(condition: bool, name: str, message: str) -> None:
    if not condition:
        raise FixtureError(f"{name}: {message}")


def parse_fixture(name: str, data: bytes) -> FixtureSet:
    """Read one fixture file's bytes; checks its structure and that every decimal value
    equals its hex form. Uses only ``json`` (never pickle)."""
    try:
        doc = json.loads(data.decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FixtureError(f"{name}: not valid ASCII JSON: {exc}") from None
    _require(isinstance(doc, dict), name, "top level must be a JSON object")
    _require(doc.get("format") == FORMAT, name, f"format must be {FORMAT!r}")
    try:
        is_float = doc["position_type"] == "float"
        positions: NDArray[Any]
        if is_float:
            hexes = doc["positions_hex"]
            positions = np.array([float.fromhex(h) for h in hexes], dtype=np.float64)
            decimals = np.array(doc["positions"], dtype=np.float64)
            _require(positions.tobytes() == decimals.tobytes(), name, "positions differ from hex")
        else:
            positions = np.array(doc["positions"], dtype=np.int64)
        columns = np.array(doc["columns"], dtype=np.intp)
        values = np.array(
            [[float.fromhex(h) for h in row] for row in doc["values_hex"]], dtype=np.float64
        ).reshape(len(positions), len(columns))
        decimal_values = np.array(doc["values"], dtype=np.float64).reshape(values.shape)
        mismatch = np.argwhere(decimal_values.view(np.int64) != values.view(np.int64))
        if mismatch.size:
            i, j = (int(v) for v in mismatch[0])
            raise FixtureError(
                f"{name}: position {positions[i].item()!r}, column {int(columns[j])}: decimal "
                f"{float(decimal_values[i, j])!r} differs from hex {float(values[i, j]).hex()}"
            )
        _require(list(values.shape) == doc["shape"], name, "shape does not match the values")
        base = float.fromhex(doc["base_hex"])
        _require(base == doc["base"], name, "base differs from base_hex")
        d_model = int(doc["d_model"])
        _require(
            columns.size == 0 or (columns.min() >= 0 and columns.max() < d_model),
            name,
            f"columns must lie in [0, {d_model})",
        )
        return FixtureSet(
            name=doc["name"],
            description=doc["description"],
            d_model=d_model,
            base=base,
            convention=Convention.from_dict(doc["convention"]),
            positions=positions,
            columns=columns,
            values=values,
        )
    except FixtureError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise FixtureError(f"{name}: malformed fixture ({type(exc).__name__}: {exc})") from None


def _fixture_files(directory: Path) -> list[Path]:
    """The absolute sets' files (the rotary ``rope-*.json`` sets have their own format)."""
    return sorted(p for p in directory.glob("*.json") if not p.name.startswith("rope-"))


def load_fixture_sets(directory: Path | None = None) -> list[FixtureSet]:
    """Every fixture set in ``directory`` (default: the shipped ones), sorted by file name.

    The MANIFEST checksums are verified first; a mismatch raises :class:`FixtureError`
    naming the file.
    """
    target = directory or fixture_directory()
    problems = verify_checksums(target)
    if problems:
        raise FixtureError(f"fixture checksum verification failed in {target}: {problems[0]}")
    return [parse_fixture(path.name, path.read_bytes()) for path in _fixture_files(target)]


def verify_values(fixture: FixtureSet, file: str) -> list[ValueMismatch]:
    """Recompute every stored value with the oracle; the values that differ."""
    full = oracle_encode(
        fixture.positions, fixture.d_model, base=fixture.base, convention=fixture.convention
    )
    certified = full[:, fixture.columns]
    bad = np.argwhere(certified.view(np.int64) != fixture.values.view(np.int64))
    return [
        ValueMismatch(
            file=file,
            position=fixture.positions[i].item(),
            column=int(fixture.columns[j]),
            stored=float(fixture.values[i, j]),
            certified=float(certified[i, j]),
        )
        for i, j in bad.tolist()
    ]


# ---------------------------------------------------------------------------
# export


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


def export_fixture_sets(
    fixtures: Sequence[FixtureSet], directory: Path, file_format: str
) -> list[Path]:
    """Write ``<name>.npz`` (arrays, no pickled objects) or ``<name>.csv`` per set; atomic."""
    return export_with(fixtures, directory, file_format, {"npz": _npz_bytes, "csv": _csv_bytes})


def export_with(
    fixtures: Sequence[Any], directory: Path, file_format: str, writers: dict[str, Any]
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


def catalog_markdown() -> str:
    """SPEC §8's table of the shipped sets (read from the shipped files)."""
    lines = [
        "| file | d_model | base | convention | positions | columns | values | bytes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    total_values = total_bytes = 0
    directory = fixture_directory()
    for path in _fixture_files(directory):
        data = path.read_bytes()
        fixture = parse_fixture(path.name, data)
        count = fixture.values.size
        total_values += count
        total_bytes += len(data)
        lines.append(
            f"| `{path.name}` | {fixture.d_model} | {fixture.base:g} | "
            f"{fixture.convention.name} | {fixture.positions.size} | {fixture.columns.size} | "
            f"{count} | {len(data)} |"
        )
    total_bytes += (directory / MANIFEST).stat().st_size
    lines.append(f"| total (with MANIFEST) | | | | | | {total_values} | {total_bytes} |")
    return "\n".join(lines) + "\n"
