"""The fixture-format registry: one handler per ``format`` tag of the fixtures folder (SPEC §7).

Every JSON file in the fixtures folder names its own format in its ``"format"`` field; the
verify, export and regenerate loops (``pespec golden``) read that field and dispatch to the
handler registered for it, never to a file-name prefix. This module names no family: each
family registers its :class:`FixtureFormat` from its own fixture module when that module is
imported, and the front end imports the families' fixture modules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "FixtureCheck",
    "FixtureError",
    "FixtureFormat",
    "FixtureProgress",
    "files_of_format",
    "fixture_formats",
    "handler_for",
    "read_format",
    "register_fixture_format",
    "render_fixture_files",
]


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
    ``planned`` is how many sets ``render`` reports to ``on_progress``.
    """

    format: str
    description: str
    parse: Callable[[str, bytes], Any]
    verify: Callable[[Any, str, int], FixtureCheck]
    writers: Mapping[str, Callable[[Any], bytes]]
    render: Callable[[FixtureProgress | None], dict[str, bytes]]
    planned: Callable[[], int]


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
