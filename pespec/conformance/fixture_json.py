"""What the preset-set JSON fixture formats share (SPEC §7): writing, reading, finding, export.

A preset set is a JSON file of a few grid rows of one preset and the certified values there
(a family's ``FixtureFormat``, :mod:`pespec.conformance.fixtures`). The families that store
such sets write them the same way: fixed key order, one matrix row per line, every float
value also as its exact ``float.hex`` (read back and checked equal to the decimals bit for
bit); they pick their rows from the grid the same way (:func:`grid_sample`), and export them
as ``.npz`` and ``.csv`` the same way. This module holds that code once; it names no family.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from pespec._version import SPEC_VERSION
from pespec.conformance.csvexport import csv_table
from pespec.conformance.fixtures import (
    FixtureError,
    FixtureProgress,
    files_of_format,
    verified_directory,
)

__all__ = [
    "PresetSet",
    "csv_bytes",
    "dump",
    "exact_floats",
    "grid_sample",
    "hex_rows",
    "load_format",
    "malformed",
    "matching_fixture",
    "matrix",
    "npz_bytes",
    "render_each",
    "render_set",
]

T = TypeVar("T")


class PresetSet(Protocol):
    """What :func:`render_set` reads of a preset set."""

    @property
    def name(self) -> str: ...

    @property
    def preset(self) -> str: ...

    @property
    def data(self) -> dict[str, Any]: ...

    @property
    def rows(self) -> NDArray[np.int64]: ...


def dump(value: Any) -> str:
    """``value`` as one line of ASCII JSON (no NaN)."""
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": "), allow_nan=False)


def matrix(rows: list[list[Any]]) -> str:
    """A JSON list of lists, one inner list per line."""
    lines = ["  " + json.dumps(row, separators=(",", ":"), allow_nan=False) for row in rows]
    return "[\n" + ",\n".join(lines) + "\n ]"


def hex_rows(array: NDArray[np.float64]) -> list[list[str]]:
    """Each value of the 2-D ``array`` as its exact ``float.hex``."""
    return [[float(v).hex() for v in row] for row in array.tolist()]


def render_set(
    tag: str,
    generator: Any,
    definition: str,
    fixture: PresetSet,
    fields: Sequence[tuple[str, str]],
) -> bytes:
    """A set's JSON file, byte-deterministic (fixed key order, one matrix row per line): its
    format ``tag``, SPEC version, generator, name, preset, definition, preset configuration
    and grid rows, then ``fields`` (key, rendered JSON text) in order."""
    head = [
        ("format", dump(tag)),
        ("spec_version", dump(SPEC_VERSION)),
        ("generator", dump(generator)),
        ("name", dump(fixture.name)),
        ("preset", dump(fixture.preset)),
        ("definition", dump(definition)),
        ("preset_config", dump(fixture.data)),
        ("rows", dump(fixture.rows.tolist())),
    ]
    body = ",\n".join(f" {json.dumps(key)}: {text}" for key, text in [*head, *fields])
    return ("{\n" + body + "\n}\n").encode("ascii")


def render_each(
    names: Iterable[str],
    file_name: Callable[[str], str],
    render: Callable[[str], bytes],
    on_progress: FixtureProgress | None = None,
) -> dict[str, bytes]:
    """{file_name(n): render(n)} for each preset name; ``on_progress(set name)`` after each."""
    files = {}
    for name in names:
        files[file_name(name)] = render(name)
        if on_progress is not None:
            on_progress(file_name(name)[:-5])
    return files


def exact_floats(name: str, decimals: Any, hexes: Any, what: str) -> NDArray[np.float64]:
    """The hex rows as float64, checked equal to the decimal rows bit for bit (a
    :class:`FixtureError` naming file ``name`` and field ``what`` otherwise)."""
    exact = np.array([[float.fromhex(h) for h in row] for row in hexes], dtype=np.float64)
    if np.array(decimals, dtype=np.float64).tobytes() != exact.tobytes():
        raise FixtureError(f"{name}: {what} decimals differ from {what}_hex")
    return exact


@contextlib.contextmanager
def malformed(name: str, what: str) -> Iterator[None]:
    """Turn a missing key, a wrong type or value, or non-ASCII bytes met while reading file
    ``name`` into a :class:`FixtureError` ``NAME: malformed WHAT (Error: message)``."""
    try:
        yield
    except FixtureError:
        raise
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise FixtureError(f"{name}: malformed {what} ({type(exc).__name__}: {exc})") from None


def load_format(directory: Path | None, tag: str, parse: Callable[[str, bytes], T]) -> list[T]:
    """Every file of format ``tag`` in ``directory`` (default: the shipped ones) parsed,
    sorted by file name; the folder's MANIFEST is verified first."""
    target = verified_directory(directory)
    return [parse(p.name, p.read_bytes()) for p in files_of_format(target, tag)]


def matching_fixture(
    fixtures: Iterable[T],
    wanted: dict[str, Any],
    data_of: Callable[[T], dict[str, Any]],
    key: Callable[[dict[str, Any]], dict[str, Any]],
) -> T | None:
    """The first of ``fixtures`` whose data, seen through ``key``, is ``wanted``'s, or None."""
    target = key(wanted)
    for fixture in fixtures:
        if key(dict(data_of(fixture))) == target:
            return fixture
    return None


def grid_sample(sizes: tuple[int, ...]) -> list[int]:
    """Row-major indices (last axis fastest), sorted, of a few points of a grid of ``sizes``:
    the origin, one step along each axis, each axis at its last index (the others 0), the
    centre and the last point."""
    index: list[tuple[int, ...]] = [tuple(0 for _ in sizes)]
    for axis, size in enumerate(sizes):
        for coordinate in (min(1, size - 1), size - 1):
            point = [0] * len(sizes)
            point[axis] = coordinate
            index.append(tuple(point))
    index.append(tuple(s // 2 for s in sizes))
    index.append(tuple(s - 1 for s in sizes))
    return sorted({int(np.ravel_multi_index(i, sizes)) for i in index})


def npz_bytes(arrays: Mapping[str, NDArray[Any]], data: dict[str, Any]) -> bytes:
    """An ``.npz`` of ``arrays`` (in order) and ``config``: ``data`` as sorted-key JSON."""
    buffer = io.BytesIO()
    members: dict[str, Any] = {**arrays, "config": np.array(json.dumps(data, sort_keys=True))}
    np.savez(buffer, **members)
    return buffer.getvalue()


def csv_bytes(
    rows: NDArray[np.int64],
    positions: NDArray[Any],
    values: NDArray[Any],
    prefix: str,
    coordinate: Callable[[Any], str] = repr,
) -> bytes:
    """One line per row: the row, its k coordinates (``coordinate`` of each), then its values
    (repr); header ``row,axis0..,PREFIX0..``."""
    axes, width = positions.shape[1], values.shape[1]
    header = ["row"] + [f"axis{a}" for a in range(axes)] + [f"{prefix}{j}" for j in range(width)]
    lines = (
        [row, *(coordinate(v) for v in positions[r].tolist()), *values[r].tolist()]
        for r, row in enumerate(rows.tolist())
    )
    return csv_table(header, lines)
