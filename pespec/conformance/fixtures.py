"""The fixtures folder, engine side (SPEC §7): the format registry, MANIFEST and writing.

Every JSON file in the fixtures folder names its own format in its ``"format"`` field; the
verify, export and regenerate loops (``pespec golden``) read that field and dispatch to the
handler registered for it, never to a file-name prefix. This module names no family: each
family registers its :class:`FixtureFormat` from its own fixture module when that module is
imported (the registry, :mod:`pespec.families`, names those modules).

It also holds what every format shares: ``MANIFEST`` (``sha256sum`` lines of every file) and
its verification (:func:`verified_directory`, the one gate of every fixture reader),
``MANIFEST.provenance``, the atomic replacement of the folder and the atomic export.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import os
import platform
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec._atomic import write_atomic
from pespec._version import SPEC_VERSION

__all__ = [
    "MANIFEST",
    "PROVENANCE",
    "FixtureCheck",
    "FixtureError",
    "FixtureFormat",
    "FixtureProgress",
    "bit_differences",
    "differing_files",
    "export_with",
    "files_of_format",
    "fixture_directory",
    "fixture_formats",
    "handler_for",
    "manifest_text",
    "read_format",
    "read_manifest",
    "register_fixture_format",
    "render_fixture_files",
    "replace_directory",
    "sha256_hex",
    "verified_directory",
    "verify_checksums",
    "with_manifest",
]

MANIFEST = "MANIFEST"
PROVENANCE = "MANIFEST.provenance"


def bit_differences(
    name: str,
    stored: tuple[str, NDArray[np.float64]],
    certified: NDArray[np.float64],
    rows: tuple[str, NDArray[Any]],
    shown: int = 5,
) -> tuple[int, list[str]]:
    """Values of a fixture that differ bit for bit from the certified ones: (how many, messages:
    ``shown`` itemised as ``NAME: LABEL[r][c] (ROWS_WORD row N): stored HEX, certified HEX``,
    then a count). ``stored`` is (its label, the array); ``rows`` (what a row is, row ids)."""
    label, values = stored
    row_word, ids = rows
    bad = np.argwhere(certified.view(np.int64) != values.view(np.int64))
    problems = [
        f"{name}: {label}[{r}][{c}] ({row_word} row {int(ids[r])}): stored "
        f"{float(values[r, c]).hex()}, certified {float(certified[r, c]).hex()}"
        for r, c in bad.tolist()[:shown]
    ]
    if len(bad) > shown:
        problems.append(f"{name}: {len(bad)} wrong values in all")
    return len(bad), problems


class FixtureError(ValueError):
    """A fixture file or directory is missing, malformed or fails its checksum."""


FixtureProgress = Callable[[str], None]
"""Called with a set's name each time a handler has rendered one set."""


@dataclass(frozen=True)
class FixtureCheck:
    """One file's verification: values recomputed, wrong ones, the lines to print about them."""

    checked: int
    wrong: int
    messages: tuple[str, ...]


@dataclass(frozen=True)
class FixtureFormat:
    """A family's handler of one fixture format.

    ``parse(file_name, data)`` reads a file (a :class:`FixtureError` naming the file when it
    is malformed); ``verify(fixture, file_name, limit)`` recomputes its values with the
    family's oracle (at most ``limit`` wrong values itemised); ``writers`` maps an export
    format (``"npz"``, ``"csv"``) to the bytes of ``<fixture.name>.<format>``;
    ``render(on_progress)`` computes the family's shipped files, {file name: bytes};
    ``planned`` is how many sets ``render`` reports to ``on_progress``; ``generator``: who
    computes the values, recorded in ``MANIFEST.provenance`` (None: not recorded there).
    """

    format: str
    description: str
    parse: Callable[[str, bytes], Any]
    verify: Callable[[Any, str, int], FixtureCheck]
    writers: Mapping[str, Callable[[Any], bytes]]
    render: Callable[[FixtureProgress | None], dict[str, bytes]]
    planned: Callable[[], int]
    generator: str | None = None


_HANDLERS: dict[str, FixtureFormat] = {}


def register_fixture_format(handler: FixtureFormat) -> FixtureFormat:
    """Register ``handler`` for its format tag; returns it. Registering the same tag twice
    with a different handler is an error (two families cannot share a format)."""
    known = _HANDLERS.get(handler.format)
    if known is not None and known is not handler:
        raise ValueError(
            f"fixture format {handler.format!r} is already registered ({known.description})"
        )
    _HANDLERS[handler.format] = handler
    return handler


def fixture_formats() -> tuple[FixtureFormat, ...]:
    """Every registered handler, sorted by format tag."""
    return tuple(_HANDLERS[tag] for tag in sorted(_HANDLERS))


_LEADING_FORMAT = re.compile(rb'\A\{\s*"format"\s*:\s*"([ -!#-\[\]-~]*)"\s*,')
"""A file that opens with its ``format`` key (as every file pespec writes does): the tag is
read from the first bytes without parsing megabytes of values; any other file is parsed."""


def read_format(name: str, data: bytes) -> str:
    """The ``"format"`` field of fixture file ``name`` (bytes ``data``)."""
    match = _LEADING_FORMAT.match(data[:256])
    if match is not None:
        return match.group(1).decode("ascii")
    try:
        doc = json.loads(data.decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FixtureError(f"{name}: not valid ASCII JSON: {exc}") from None
    tag = doc.get("format") if isinstance(doc, dict) else None
    if not isinstance(tag, str):
        raise FixtureError(f'{name}: has no "format" field naming its fixture format')
    return tag


def handler_for(name: str, data: bytes) -> FixtureFormat:
    """The handler of fixture file ``name``'s format; a :class:`FixtureError` naming the file,
    its format and the known formats when no family registered it."""
    tag = read_format(name, data)
    handler = _HANDLERS.get(tag)
    if handler is None:
        known = ", ".join(repr(t) for t in sorted(_HANDLERS)) or "none registered"
        raise FixtureError(f"{name}: unknown fixture format {tag!r}; known formats: {known}")
    return handler


def files_of_format(directory: Path, tag: str) -> list[Path]:
    """The ``*.json`` files of ``directory`` whose ``format`` is ``tag``, sorted by name
    (a file whose format cannot be read belongs to no format)."""
    return [path for path in sorted(directory.glob("*.json")) if _format_or_none(path) == tag]


def _format_or_none(path: Path) -> str | None:
    with path.open("rb") as handle:
        head = handle.read(256)
    try:
        if _LEADING_FORMAT.match(head) is not None:
            return read_format(path.name, head)
        return read_format(path.name, path.read_bytes())
    except FixtureError:
        return None


def render_fixture_files(on_progress: FixtureProgress | None = None) -> dict[str, bytes]:
    """Every registered family's shipped files, in memory: {file name: bytes} (no MANIFEST).

    Two families rendering the same file name is an error, never a silent overwrite.
    """
    files: dict[str, bytes] = {}
    for handler in fixture_formats():
        rendered = handler.render(on_progress)
        clash = sorted(set(files) & set(rendered))
        if clash:
            raise ValueError(f"{handler.format!r} renders {clash[0]}, already rendered")
        files.update(rendered)
    return files


# ---------------------------------------------------------------------------
# the folder and its MANIFEST


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fixture_directory() -> Path:
    """The directory of the shipped fixtures (``pespec/golden``, package data).

    Found through :mod:`importlib.resources`, so an installed (non-editable) package reads its
    own copy and never a source checkout.
    """
    resource = importlib.resources.files("pespec").joinpath("golden")
    if not isinstance(resource, Path):  # a zip import: the fixtures are not plain files
        raise FileNotFoundError(f"pespec's golden fixtures are not a directory: {resource}")
    return resource


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
        elif (actual := sha256_hex(path.read_bytes())) != digest:
            problems.append(
                f"{name}: SHA-256 differs from MANIFEST (file changed): MANIFEST lists "
                f"{digest[:12]}…, the file hashes to {actual[:12]}…"
            )
    for path in sorted(target.glob("*.json")):
        if path.name not in entries:
            problems.append(f"{path.name}: not listed in MANIFEST")
    return problems


def verified_directory(directory: Path | None = None) -> Path:
    """``directory`` (default: the shipped fixtures) once every file matches MANIFEST.

    The one gate of every fixture reader, whatever the format (SPEC §7): a changed,
    missing or unlisted file raises :class:`FixtureError` naming the folder, the file and
    the mismatch, so a tampered fixture is an installation error, never a wrong verdict.
    """
    target = directory or fixture_directory()
    problems = verify_checksums(target)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise FixtureError(
            f"fixture checksum verification failed in {target}: {problems[0]}{more}; "
            "reinstall pespec (`pespec golden verify` lists every difference)"
        )
    return target


def differing_files(directory: Path | None, expected: Mapping[str, bytes]) -> list[str]:
    """The names of files of ``directory`` (default: the shipped one) that differ from
    ``expected`` byte for byte, are missing or are not expected (MANIFEST.provenance
    excepted), sorted."""
    target = directory or fixture_directory()
    present = {p.name for p in target.glob("*") if p.is_file() and p.name != PROVENANCE}
    differing = [
        name
        for name, data in expected.items()
        if name not in present or (target / name).read_bytes() != data
    ]
    return sorted(differing + sorted(present - set(expected)))


# ---------------------------------------------------------------------------
# writing


def manifest_text(files: dict[str, bytes]) -> bytes:
    """``sha256sum`` lines (hash, two spaces, name) for every file, sorted by name."""
    return "".join(f"{sha256_hex(files[name])}  {name}\n" for name in sorted(files)).encode("ascii")


def with_manifest(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """``files`` and the ``MANIFEST`` that lists them."""
    return {**files, MANIFEST: manifest_text(dict(files))}


def provenance(generator: str | None = None) -> bytes:
    """The environment of a regeneration; no run time, so that regenerating a clean tree on
    the same machine leaves ``MANIFEST.provenance`` unchanged (the CLI prints the time).

    ``generator``: who computed the values; default: the ``generator`` of every registered
    format that records one, joined by ", " (a constant of each family's fixture module).
    """
    import gmpy2
    import mpmath
    import numpy as np

    if generator is None:
        named = [h.generator for h in fixture_formats() if h.generator is not None]
        generator = ", ".join(named)
    data = {
        "note": "environment of the last regeneration; not part of the byte-identical check",
        "spec_version": SPEC_VERSION,
        "generator": generator,
        "mpmath": mpmath.__version__,
        "gmpy2": gmpy2.version(),
        "mpfr": gmpy2.mpfr_version(),
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    return (json.dumps(data, indent=1) + "\n").encode("ascii")


def replace_directory(
    directory: Path | None, files: Mapping[str, bytes], generator: str | None = None
) -> dict[str, bytes]:
    """Replace ``directory`` (default: the shipped one) by ``files`` (MANIFEST included) and
    ``MANIFEST.provenance`` (:func:`provenance` of ``generator``), atomically; returns the
    files written.

    Files are written to a temporary sibling directory first and the two directories are
    then swapped with two renames, so an interruption before the swap leaves the previous
    files intact (and one between the renames leaves them in ``.golden-old-*``).
    """
    target = (directory or fixture_directory()).resolve()
    files_with_provenance = {**files, PROVENANCE: provenance(generator)}
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


def export_with(
    fixtures: Sequence[Any], directory: Path, file_format: str, writers: Mapping[str, Any]
) -> list[Path]:
    """Write ``<fixture.name>.<file_format>`` per fixture with ``writers[file_format]`` (the
    file's bytes), atomically; every family's sets (a handler's ``writers``)."""
    if file_format not in writers:
        raise ValueError(f"file_format must be one of {sorted(writers)}; got {file_format!r}")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for fixture in fixtures:
        path = directory / f"{fixture.name}.{file_format}"
        write_atomic(path, writers[file_format](fixture))
        written.append(path)
    return written
