"""Rotary golden fixtures (SPEC §8.6): certified ω', A, cos/sin and rotated vectors per preset.

One JSON file ``rope-<preset>.json`` per preset of SPEC Annex F.1, in ``pespec/golden/`` next to
the absolute sets and listed in the same ``MANIFEST`` (:mod:`pespec.conformance.fixtures`
writes them with the other formats' sets, atomically). Every value is the rotary oracle's
certified correctly rounded float64, given as its shortest round-trip decimal and its exact
``float.hex``. The input vectors are rebuilt from :func:`~pespec.rope.inputs.rotary_x`
(small dyadic rationals, stated formula).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.csvexport import Cell, csv_table
from pespec.conformance.fixtures import FixtureCheck, FixtureError
from pespec.conformance.preset_sets import PresetSetFormat, constant, floats, hexes, value
from pespec.rope import oracle
from pespec.rope.config import RopeConfig
from pespec.rope.inputs import rotary_x
from pespec.rope.presets import PRESET_ALIASES, PRESETS

__all__ = [
    "CONTEXT_LENGTHS",
    "FIXTURE_FORMAT",
    "FORMAT",
    "GOLDEN",
    "PREFIX",
    "X_FORMULA",
    "RopeFixture",
    "RopeFixtureError",
    "compute_rope_fixture",
    "fixture_config_dict",
    "fixture_for",
    "fixture_label",
    "fixture_positions",
    "positions_for_length",
    "relaid",
    "verify_rope_fixture",
]

FORMAT = "pespec-rope-golden/1"
"""Identifier of the rotary fixture format (SPEC §8.6)."""

PREFIX = "rope-"
"""File names of rotary sets start with this (readers select files by their ``format``)."""

X_FORMULA = (
    "x[r][k] = ((37*(k+1) + 101*r) mod 257 - 128) / 64 for row r = 0..n-1, k = 0..head_dim-1"
)
"""The input vectors, one per position row: multiples of 1/64 in [-2, 1.984375] (exact)."""

GENERATOR = {
    "name": "pespec.rope.oracle",
    "method": "schedule in outward-rounded interval arithmetic (mpmath iv), angles and "
    "rotation in MPFR (gmpy2) with rigorous error bounds; Ziv loop until the error interval "
    "rounds to one float64 (round to nearest, ties to even)",
}

DEFINITION = (
    "SPEC 12.1/12.3: omega'_j and A of the schedule for j = 0..d_r/2-1; phi_j(p) = p*omega'_j; "
    "cos[r][j] = cos phi_j(p_r), sin[r][j] = sin phi_j(p_r); y[r] = x[r] with each pair "
    "(a_j, b_j) read by the pairing replaced by A*(a_j cos - b_j sin, a_j sin + b_j cos) "
    "written by the pairing; components k >= d_r copied; every value correctly rounded "
    "(round half to even) from the exact real value"
)

CONTEXT_LENGTHS = {
    name: config.context_length
    for name, config in PRESETS.items()
    if config.context_length is not None
}
"""Each preset's max_position_embeddings from its config.json (GPT-J: n_positions; Gemma 3:
Gemma3TextConfig's default, the file has none); checked against the copies in the tests."""


@dataclass(frozen=True)
class RopeFixture:
    """One rotary fixture set: arrays of shapes (d_r/2,), (n,), (n, d_r/2), (n, head_dim)."""

    name: str
    preset: str
    config: RopeConfig
    omega: NDArray[np.float64]
    omega_lo: NDArray[np.float64]
    attention: float
    positions: NDArray[np.float64]
    cos: NDArray[np.float64]
    sin: NDArray[np.float64]
    x: NDArray[np.float64]
    y: NDArray[np.float64]


_FIXTURE_LABELS = {new: old for old, new in PRESET_ALIASES.items()}
"""A renamed preset's fixture keeps the name it was written under (file name and ``preset``
field): the shipped bytes are checksummed and must not change with a rename."""


def fixture_label(preset: str) -> str:
    """The name a preset's fixture carries: its former name if it was renamed, else its own."""
    return _FIXTURE_LABELS.get(preset, preset)


def _slug(preset: str) -> str:
    """The fixture label in lower case, runs of characters other than a-z0-9 → '-'."""
    label = fixture_label(PRESET_ALIASES.get(preset, preset))
    return re.sub(r"[^a-z0-9]+", "-", label.lower().replace("ℓ", "l")).strip("-")


def fixture_positions(preset: str) -> list[float]:
    """Positions of a preset's set: small, powers of two, the context length L and 1M."""
    return positions_for_length(CONTEXT_LENGTHS[preset])


def positions_for_length(length: int) -> list[float]:
    """§8.6's positions for context length L = ``length`` (also the inputs of a rotary
    file whose configuration is no preset's, SPEC R8.16)."""
    ints = sorted(
        {
            0,
            1,
            2,
            3,
            7,
            100,
            1000,
            4095,
            4096,
            length // 2 + 1,
            length - 1,
            length,
            2 * length,
            1_000_000,
            2**20,
        }
    )
    return [float(p) for p in ints] + [0.5, 1234.75]


def compute_rope_fixture(preset: str) -> RopeFixture:
    """Evaluate a preset's set with the certified oracle."""
    config = PRESETS[preset]
    omega, omega_lo = oracle.frequencies_dd(config)
    positions = np.array(fixture_positions(preset), dtype=np.float64)
    cos, sin = oracle.cos_sin(positions.tolist(), config)
    x = rotary_x(positions.shape[0], config.head_dim)
    y = oracle.rotate(x, positions.tolist(), config)
    return RopeFixture(
        GOLDEN.set_name(preset),
        fixture_label(preset),
        config,
        omega,
        omega_lo,
        oracle.attention_factor(config),
        positions,
        cos,
        sin,
        x,
        y,
    )


def fixture_config_dict(config: RopeConfig) -> dict[str, Any]:
    """The configuration as a fixture stores it: without ``context_length``, which sets the
    suite's default positions but not the rotation (the fixtures predate it; SPEC §8.6)."""
    data = config.to_dict()
    data.pop("context_length", None)
    return data


class RopeFixtureError(FixtureError):
    """A rotary fixture file is malformed (the message names the file)."""


def _built(file: str, parsed: dict[str, Any]) -> RopeFixture:
    """The set of the parsed fields (x from :data:`X_FORMULA`), once every array's shape fits
    its configuration and positions."""
    config, positions = parsed["config"], parsed["positions"]
    x = rotary_x(positions.shape[0], config.head_dim)
    fixture = RopeFixture(**parsed, x=x)
    half, n = config.d_r // 2, positions.shape[0]
    shapes = {
        "omega": (fixture.omega.shape, (half,)),
        "cos": (fixture.cos.shape, (n, half)),
        "sin": (fixture.sin.shape, (n, half)),
        "y": (fixture.y.shape, x.shape),
    }
    for what, (got, want) in shapes.items():
        if got != want:
            raise RopeFixtureError(f"{file}: {what} has shape {got}, expected {want}")
    return fixture


def fixture_for(config: RopeConfig, directory: Path | None = None) -> RopeFixture | None:
    """The verified rotary set whose configuration is ``config`` (a preset's), or None.

    A preset's configuration with another ``output_layout`` declared (SPEC R8.1) gets the
    preset's set with its y values moved to the declared layout: the same values."""
    plain = dataclasses.replace(config, output_layout=None)
    found = GOLDEN.find(lambda fixture: fixture.config == plain, directory)
    if found is None or found.config == config:
        return found
    return dataclasses.replace(found, config=config, y=relaid(found.y, found.config, config))


def relaid(y: NDArray[np.float64], written: RopeConfig, wanted: RopeConfig) -> NDArray[np.float64]:
    """``y`` (..., head_dim) written in ``written``'s output layout, moved to ``wanted``'s."""
    from pespec.rope.reference import pair_views

    out: NDArray[np.float64] = np.array(y, dtype=np.float64)
    source, target = pair_views(y, written, output=True), pair_views(out, wanted, output=True)
    target[0][...], target[1][...] = source
    return out


def verify_rope_fixture(fixture: RopeFixture) -> list[str]:
    """Recompute every stored value with the oracle; a message per differing value (the first
    five of a quantity, then one line with its count)."""
    return _differences(fixture)[0]


def _differences(fixture: RopeFixture) -> tuple[list[str], int]:
    """The messages of :func:`verify_rope_fixture` and the number of differing values."""
    config, positions = fixture.config, fixture.positions.tolist()
    omega, omega_lo = oracle.frequencies_dd(config)
    cos, sin = oracle.cos_sin(positions, config)
    expected = {
        "omega": omega,
        "omega_lo": omega_lo,
        "attention": np.array([oracle.attention_factor(config)]),
        "cos": cos,
        "sin": sin,
        "y": oracle.rotate(fixture.x, positions, config),
    }
    stored = {
        "omega": fixture.omega,
        "omega_lo": fixture.omega_lo,
        "attention": np.array([fixture.attention]),
        "cos": fixture.cos,
        "sin": fixture.sin,
        "y": fixture.y,
    }
    problems, wrong = [], 0
    for what, want in expected.items():
        bad = np.argwhere(want.view(np.int64) != stored[what].view(np.int64))
        wrong += len(bad)
        for index in bad.tolist()[:5]:
            where = tuple(index)
            problems.append(
                f"{fixture.name}: {what}{list(where)}: stored "
                f"{float(stored[what][where]).hex()}, certified "
                f"{float(want[where]).hex()}"
            )
        if len(bad) > 5:
            problems.append(f"{fixture.name}: {what}: {len(bad)} wrong values in all")
    return problems, wrong


def _csv_bytes(fixture: RopeFixture) -> bytes:
    """Long format: quantity, row (position index or empty), column, value (repr)."""
    rows: list[list[Cell]] = [["omega", "", j, v] for j, v in enumerate(fixture.omega.tolist())]
    rows.append(["attention", "", "", fixture.attention])
    rows.extend(["position", r, "", p] for r, p in enumerate(fixture.positions.tolist()))
    for what in ("cos", "sin", "x", "y"):
        for r, row in enumerate(getattr(fixture, what).tolist()):
            rows.extend([what, r, j, v] for j, v in enumerate(row))
    return csv_table(["quantity", "row", "column", "value"], rows)


def _verify(fixture: RopeFixture, limit: int) -> FixtureCheck:
    """Every stored value against the rotary oracle; ``limit`` problems itemised."""
    problems, wrong = _differences(fixture)
    checked = 2 * fixture.omega.size + 1 + fixture.cos.size + fixture.sin.size + fixture.y.size
    return FixtureCheck(checked, wrong, tuple(problems[:limit]))


GOLDEN: PresetSetFormat[RopeFixture] = PresetSetFormat(
    tag=FORMAT,
    description="rotary sets (SPEC §8.6)",
    noun="rotary fixture",
    generator=GENERATOR,
    definition=DEFINITION,
    fields=(
        value("config", write=fixture_config_dict, read=RopeConfig.from_dict),
        floats("omega"),
        hexes("omega_lo_hex", "omega_lo"),
        floats("attention", scalar=True),
        floats("positions"),
        floats("cos"),
        floats("sin"),
        constant("x_formula", X_FORMULA),
        floats("y"),
    ),
    presets=PRESETS,
    prefix=PREFIX,
    slug=_slug,
    compute=compute_rope_fixture,
    build=_built,
    npz={k: k for k in ("omega", "omega_lo", "attention", "positions", "cos", "sin", "x", "y")},
    csv=_csv_bytes,
    config_key="config",
    verify=_verify,
    error=RopeFixtureError,
)
"""The format's declaration: one JSON file per preset (SPEC Annex F.1), every value certified."""

FIXTURE_FORMAT = GOLDEN.register()
"""The handler of ``pespec-rope-golden/1`` files (:mod:`pespec.conformance.fixtures`)."""
