"""Fourier golden fixtures (SPEC §10.8): certified values of every preset at fixed inputs.

One JSON file ``fourier-<preset>.json`` per preset of :data:`pespec.fourier.presets.PRESETS`,
in ``pespec/golden/`` with the other families' sets and listed in the same ``MANIFEST``
(format ``pespec-fourier-golden/1``, registered in :mod:`pespec.conformance.fixtures` when
this module is imported). A set holds :data:`GOLDEN_ROWS` rows of the suite's inputs
(:func:`pespec.fourier.inputs.suite_inputs`: the domain's ends, 0 and a golden-ratio
sequence) and the oracle's output there, every value the correctly rounded float64 of the
exact encoding, as its shortest round-trip decimal and its exact ``float.hex``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.fixture_json import (
    csv_bytes,
    exact_floats,
    hex_rows,
    load_format,
    malformed,
    matrix,
    npz_bytes,
    render_each,
    render_set,
)
from pespec.conformance.fixtures import (
    FixtureCheck,
    FixtureError,
    FixtureFormat,
    FixtureProgress,
    bit_differences,
    register_fixture_format,
)
from pespec.fourier.convention import FourierConvention
from pespec.fourier.inputs import suite_inputs
from pespec.fourier.oracle import oracle_encode
from pespec.fourier.presets import PRESETS, convention_from

__all__ = [
    "FIXTURE_FORMAT",
    "FORMAT",
    "GOLDEN_ROWS",
    "FourierFixture",
    "compute_fixture",
    "file_name",
    "fixture_for",
    "load_fixtures",
    "parse_fixture",
    "render_files",
    "verify_fixture",
]

FORMAT = "pespec-fourier-golden/1"
GOLDEN_ROWS = 8

GENERATOR = {
    "name": "pespec.fourier.oracle",
    "method": "angles in MPFR (gmpy2) from the exact inputs, Ziv loop until each value's error "
    "interval rounds to one float64 (round to nearest, ties to even); exact zeros decided in "
    "rational arithmetic",
}

DEFINITION = (
    "SPEC 10.1: values[r][c] is column c of the Fourier-feature encoding of x = positions[r] "
    "under preset_config: sin or cos of a_j = c*s*sum_i W_ji*x_i, or a raw coordinate x_i; "
    "every value correctly rounded (round half to even) from the exact real value"
)


@dataclass(frozen=True)
class FourierFixture:
    """One set: rows (n,) of the suite's inputs, x (n, k), values (n, D)."""

    name: str
    preset: str
    data: dict[str, Any]
    rows: NDArray[np.int64]
    x: NDArray[np.float64]
    values: NDArray[np.float64]

    @property
    def conv(self) -> FourierConvention:
        """The convention the set was computed for."""
        return convention_from(dict(self.data))


def file_name(preset: str) -> str:
    """``fourier-<preset>.json``."""
    return f"fourier-{preset}.json"


def _data(conv: FourierConvention) -> dict[str, Any]:
    data = conv.to_dict()
    data.pop("source")  # provenance lives in the preset table; the set holds what is computed
    return data


def compute_fixture(name: str) -> FourierFixture:
    """Evaluate preset ``name``'s set with the certified oracle."""
    conv = PRESETS[name]
    x = suite_inputs(conv, GOLDEN_ROWS)
    rows = np.arange(GOLDEN_ROWS, dtype=np.int64)
    return FourierFixture(file_name(name)[:-5], name, _data(conv), rows, x, oracle_encode(x, conv))


def render_fixture(fixture: FourierFixture) -> bytes:
    """The set's JSON file, byte-deterministic (fixed key order, one row per line)."""
    fields = [
        ("positions", matrix(fixture.x.tolist())),
        ("positions_hex", matrix(hex_rows(fixture.x))),
        ("values", matrix(fixture.values.tolist())),
        ("values_hex", matrix(hex_rows(fixture.values))),
    ]
    return render_set(FORMAT, GENERATOR, DEFINITION, fixture, fields)


def render_files(on_progress: FixtureProgress | None = None) -> dict[str, bytes]:
    """Every preset's set, in memory: {file name: bytes}; ``on_progress(name)`` after each."""
    return render_each(
        PRESETS, file_name, lambda n: render_fixture(compute_fixture(n)), on_progress
    )


def parse_fixture(name: str, data: bytes) -> FourierFixture:
    """Read one Fourier fixture file (``json`` only, never pickle); checks decimals = hex, the
    shapes, and that the inputs are the suite's first rows for the stated convention."""
    with malformed(name, "fourier fixture"):
        doc = json.loads(data.decode("ascii"))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise FixtureError(f"{name}: format must be {FORMAT!r}")
        fixture = FourierFixture(
            str(doc["name"]),
            str(doc["preset"]),
            dict(doc["preset_config"]),
            np.array(doc["rows"], dtype=np.int64),
            exact_floats(name, doc["positions"], doc["positions_hex"], "positions"),
            exact_floats(name, doc["values"], doc["values_hex"], "values"),
        )
        conv = fixture.conv
    n = fixture.rows.shape[0]
    if fixture.values.shape != (n, conv.width) or fixture.x.shape != (n, conv.in_dims):
        raise FixtureError(
            f"{name}: values {fixture.values.shape} and positions {fixture.x.shape} do not fit "
            f"{n} rows of width {conv.width} over {conv.in_dims} inputs"
        )
    if suite_inputs(conv, n).tobytes() != fixture.x.tobytes():
        raise FixtureError(f"{name}: positions are not the suite's first {n} inputs")
    return fixture


def load_fixtures(directory: Path | None = None) -> list[FourierFixture]:
    """Every Fourier set in ``directory`` (default: the shipped ones), sorted by file name;
    the folder's MANIFEST is verified first (a changed file raises FixtureError naming it)."""
    return load_format(directory, FORMAT, parse_fixture)


def fixture_for(conv: FourierConvention, directory: Path | None = None) -> FourierFixture | None:
    """The verified set whose convention is ``conv`` (source aside), or None."""
    for fixture in load_fixtures(directory):
        if fixture.conv == conv:
            return fixture
    return None


def verify_fixture(fixture: FourierFixture) -> tuple[int, list[str]]:
    """Recompute every stored value with the oracle: (how many differ, messages)."""
    want = oracle_encode(fixture.x, fixture.conv)
    return bit_differences(fixture.name, ("values", fixture.values), want, ("input", fixture.rows))


def _npz_bytes(fixture: FourierFixture) -> bytes:
    arrays = {"rows": fixture.rows, "positions": fixture.x, "values": fixture.values}
    return npz_bytes(arrays, fixture.data)


def _csv_bytes(fixture: FourierFixture) -> bytes:
    """One line per input row: row, the k coordinates, then the D values (repr)."""
    return csv_bytes(fixture.rows, fixture.x, fixture.values, "c")


def _verify(fixture: FourierFixture, file: str, limit: int) -> FixtureCheck:
    wrong, problems = verify_fixture(fixture)
    return FixtureCheck(int(fixture.values.size), wrong, tuple(problems[:limit]))


FIXTURE_FORMAT = register_fixture_format(
    FixtureFormat(
        format=FORMAT,
        description="Fourier-feature sets (SPEC §10.8)",
        parse=parse_fixture,
        verify=_verify,
        writers={"npz": _npz_bytes, "csv": _csv_bytes},
        render=render_files,
        planned=lambda: len(PRESETS),
    )
)
"""The handler of ``pespec-fourier-golden/1`` files (:mod:`pespec.conformance.fixtures`)."""
