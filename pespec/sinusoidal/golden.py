"""Golden fixtures: certified encodings shipped as JSON, loadable from any language (SPEC §7).

Each fixture set is one JSON file in ``pespec/golden/``; ``MANIFEST`` lists the SHA-256 of
every file in ``sha256sum`` format (``sha256sum -c MANIFEST`` works); ``MANIFEST.provenance``
records the library versions and run time of the last regeneration and is the only file
that may differ between machines. Every stored value is the oracle's certified correctly
rounded float64 (:mod:`pespec.sinusoidal.reference.oracle`), given both as its shortest round-trip
decimal and as its exact ``float.hex`` form.

Public API (the conformance suite uses it): :class:`FixtureSet`, :func:`load_fixture_sets`.
This module holds the format and its reading; the shipped
catalog is :mod:`pespec.sinusoidal.golden_catalog`, rendering and regeneration
:mod:`pespec.sinusoidal.golden_write`, verification against the oracle
:mod:`pespec.sinusoidal.golden_verify`. What every format shares (MANIFEST, its verification,
the folder) is the engine's :mod:`pespec.conformance.fixtures` (imported from there, not
from here: issue 38). The ``pespec golden`` command is :mod:`pespec.cli.golden`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.fixtures import (
    FixtureError,
    files_of_format,
    verified_directory,
)
from pespec.sinusoidal.reference.conventions import Convention

__all__ = [
    "DEFINITION",
    "FORMAT",
    "GENERATOR",
    "ORACLE_PROVENANCE",
    "FixtureSet",
    "fixture_files",
    "is_canonical_fixture",
    "load_fixture_sets",
    "parse_fixture",
]

FORMAT = "pespec-golden/1"
"""Identifier of the file format described in SPEC §7 (bumped on any incompatible change)."""

ORACLE_PROVENANCE = "pespec.reference.oracle"
"""The generator name every fixture file and MANIFEST.provenance record: the oracle's module
path when the sets were certified (since issue 38 :mod:`pespec.sinusoidal.reference.oracle`),
kept as written so that no golden byte changes."""

GENERATOR = {
    "name": ORACLE_PROVENANCE,
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


def is_canonical_fixture(fixture: FixtureSet) -> bool:
    """Whether a golden fixture set holds values of the canonical convention."""
    return fixture.convention.is_canonical


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


def fixture_files(directory: Path) -> list[Path]:
    """The files of this format (:data:`FORMAT`) in ``directory``, sorted by name; files of
    other formats share the folder and MANIFEST (:mod:`pespec.conformance.fixtures`)."""
    return files_of_format(directory, FORMAT)


def load_fixture_sets(directory: Path | None = None) -> list[FixtureSet]:
    """Every fixture set in ``directory`` (default: the shipped ones), sorted by file name.

    The MANIFEST checksums are verified first; a mismatch raises :class:`FixtureError`
    naming the file.
    """
    target = verified_directory(directory)
    return [parse_fixture(path.name, path.read_bytes()) for path in fixture_files(target)]
