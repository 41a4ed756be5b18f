"""The pieces of the preset-set JSON fixture formats (SPEC §7): text, exact floats, export.

A preset set is a JSON file of a few rows of one preset's inputs and the certified values
there; :mod:`pespec.conformance.preset_sets` reads a family's declaration of its format and
writes, reads and exports the files with these pieces: fixed key order, one matrix row per
line, every float value also as its exact ``float.hex`` (read back and checked equal to the
decimals bit for bit), rows picked from a grid the same way (:func:`grid_sample`), ``.npz``
and ``.csv`` exports. It names no family.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.csvexport import csv_table
from pespec.conformance.fixtures import FixtureError

__all__ = [
    "csv_bytes",
    "dump",
    "exact_floats",
    "from_hex",
    "grid_sample",
    "hex_rows",
    "json_object",
    "malformed",
    "matrix",
    "npz_bytes",
]


def dump(value: Any) -> str:
    """``value`` as one line of ASCII JSON (no NaN)."""
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": "), allow_nan=False)


def matrix(rows: list[list[Any]]) -> str:
    """A JSON list of lists, one inner list per line."""
    lines = ["  " + json.dumps(row, separators=(",", ":"), allow_nan=False) for row in rows]
    return "[\n" + ",\n".join(lines) + "\n ]"


def json_object(fields: list[tuple[str, str]]) -> bytes:
    """The ASCII JSON object of ``fields`` (key, rendered JSON text), one key a line, in order."""
    body = ",\n".join(f" {json.dumps(key)}: {text}" for key, text in fields)
    return ("{\n" + body + "\n}\n").encode("ascii")


def hex_rows(array: NDArray[np.float64]) -> list[list[str]]:
    """Each value of the 2-D ``array`` as its exact ``float.hex``."""
    return [[float(v).hex() for v in row] for row in array.tolist()]


def from_hex(hexes: Any) -> Any:
    """``hexes`` (a hex string or nested lists of them) as floats, the same nesting."""
    if isinstance(hexes, list):
        return [from_hex(h) for h in hexes]
    return float.fromhex(hexes)


def exact_floats(
    name: str, decimals: Any, hexes: Any, what: str, error: type[FixtureError] = FixtureError
) -> NDArray[np.float64]:
    """The hex values (any nesting) as float64, checked equal to the decimals bit for bit (an
    ``error`` naming file ``name`` and field ``what`` otherwise)."""
    exact = np.array(from_hex(hexes), dtype=np.float64)
    if np.array(decimals, dtype=np.float64).tobytes() != exact.tobytes():
        raise error(f"{name}: {what} decimals differ from {what}_hex")
    return exact


@contextlib.contextmanager
def malformed(name: str, what: str, error: type[FixtureError] = FixtureError) -> Iterator[None]:
    """Turn a missing key, a wrong type or value, or non-ASCII bytes met while reading file
    ``name`` into an ``error`` ``NAME: malformed WHAT (Error: message)``."""
    try:
        yield
    except FixtureError:
        raise
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise error(f"{name}: malformed {what} ({type(exc).__name__}: {exc})") from None


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
