"""Multi-axis rotary golden fixtures (SPEC R9.14): certified rotated rows of every preset.

One JSON file ``multiaxis-rope-<preset>.json`` per preset of
:data:`pespec.multiaxis.rope.presets.PRESETS`, in ``pespec/golden/`` with the other families' sets
and
listed in the same ``MANIFEST`` (format ``pespec-multiaxis-rope-golden/1``, registered in
:mod:`pespec.conformance.fixtures` when this module is imported). A set holds a few rows of
the preset's position ids (:func:`golden_rows`: text tokens before and after the vision
block, and the block's origin, one step and the last coordinate along each axis, its centre
and its last row), the input x of each row from :data:`X_FORMULA` (exact dyadic rationals,
indexed by the row's place in the ids, so a saved file's rows carry the same x) and the
oracle's output: every value the correctly rounded float64 of the exact rotation (SPEC
Annex B per section), as its shortest round-trip decimal and its exact ``float.hex``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.fixture_json import grid_sample
from pespec.conformance.fixtures import FixtureError
from pespec.conformance.preset_sets import (
    PresetRows,
    PresetSetFormat,
    computed,
    constant,
    floats,
    grid_csv,
    ints,
)
from pespec.multiaxis.rope.presets import PRESETS, Preset, resolve_config
from pespec.multiaxis.rope.reference import oracle_apply
from pespec.rope.inputs import rotary_x

__all__ = [
    "FIXTURE_FORMAT",
    "FORMAT",
    "GOLDEN",
    "X_FORMULA",
    "MRopeFixture",
    "compute_fixture",
    "fixture_for",
    "golden_rows",
]

FORMAT = "pespec-multiaxis-rope-golden/1"
"""Identifier of the multi-axis rotary fixture format (SPEC R9.14)."""

X_FORMULA = (
    "x[r][k] = ((37*(k+1) + 101*r) mod 257 - 128) / 64 for row r of the ids (0-based), "
    "k = 0..head_dim-1"
)
"""The input of row r of the ids: a multiple of 1/64 in [−2, 1.984375] (exact in float64;
the formula of the rotary sets, :func:`pespec.rope.inputs.rotary_x`, at the row's index)."""


@dataclass(frozen=True)
class MRopeFixture(PresetRows):
    """One set: rows (n,) of the ids, positions (n, k), x and y (n, head_dim)."""

    positions: NDArray[np.int64]
    x: NDArray[np.float64]
    y: NDArray[np.float64]

    @property
    def grid(self) -> Preset:
        """The preset (configuration and ids) the set was computed for."""
        return resolve_config(dict(self.data))


def _slug(preset: str) -> str:
    """Runs of characters other than a-z0-9 of the lower-cased name → '-'."""
    return re.sub(r"[^a-z0-9]+", "-", preset.lower()).strip("-")


def golden_rows(chosen: Preset) -> NDArray[np.int64]:
    """The ids rows of a set, sorted: the first and last text token before the vision block
    and after it; in the block its origin, one step along each axis, each axis at its last
    index (the others 0), its centre and its last row."""
    sizes, before = chosen.grid, chosen.text_before
    block = int(np.prod(sizes))
    total = chosen.positions().shape[0]
    found = {before + i for i in grid_sample(tuple(sizes))}
    if before:
        found |= {0, before - 1}
    if total > before + block:
        found |= {before + block, total - 1}
    return np.array(sorted(found), dtype=np.int64)


def compute_fixture(name: str) -> MRopeFixture:
    """Evaluate preset ``name``'s set with the certified oracle."""
    chosen = PRESETS[name]
    rows = golden_rows(chosen)
    positions = np.asarray(chosen.positions()[rows], dtype=np.int64)
    x = rotary_x(rows, chosen.config.head_dim)
    data = computed(chosen.to_dict())
    y = oracle_apply(x, positions, chosen.config)
    return MRopeFixture(GOLDEN.set_name(name), name, data, rows, positions, x, y)


def _built(file: str, parsed: dict[str, Any]) -> MRopeFixture:
    """The set of the parsed fields (x from :data:`X_FORMULA` at its rows), once its shapes
    fit its configuration and its positions are the stated ids' rows."""
    x = rotary_x(parsed["rows"], int(parsed["data"]["config"]["head_dim"]))
    fixture = MRopeFixture(**parsed, x=x)
    ids = fixture.grid.positions()
    width, axes = fixture.grid.config.head_dim, fixture.grid.config.axes
    n = fixture.rows.shape[0]
    if fixture.y.shape != (n, width) or fixture.positions.shape != (n, axes):
        raise FixtureError(
            f"{file}: y {fixture.y.shape} and positions {fixture.positions.shape} do not fit "
            f"{n} rows of head_dim {width} over {axes} axes"
        )
    if n and (fixture.rows.min() < 0 or fixture.rows.max() >= ids.shape[0]):
        raise FixtureError(f"{file}: rows must be ids rows 0..{ids.shape[0] - 1}")
    if not np.array_equal(ids[fixture.rows], fixture.positions):
        raise FixtureError(f"{file}: positions are not the ids' rows {fixture.rows.tolist()}")
    return fixture


GOLDEN: PresetSetFormat[MRopeFixture] = PresetSetFormat(
    tag=FORMAT,
    description="multi-axis rotary sets (SPEC R9.14)",
    noun="multi-axis rotary fixture",
    generator={
        "name": "pespec.rope.oracle",
        "method": "section by section: the 1-D rotary oracle (schedule in outward-rounded "
        "interval arithmetic, angles and rotation in MPFR with rigorous error bounds; Ziv loop "
        "until the error interval rounds to one float64, round to nearest, ties to even)",
    },
    definition=(
        "SPEC 9.7: y[r] is x[r] (x_formula at ids row rows[r]) with each slot's pair replaced by "
        "its section's 1-D rotation (SPEC 8.1) at that section's axis coordinate of positions[r]; "
        "every value correctly rounded (round half to even) from the exact real value"
    ),
    fields=(*PresetRows.FIELDS, ints("positions"), constant("x_formula", X_FORMULA), floats("y")),
    presets=PRESETS,
    prefix="multiaxis-rope-",
    slug=_slug,
    compute=compute_fixture,
    build=_built,
    npz={"rows": "rows", "positions": "positions", "x": "x", "y": "y"},
    csv=grid_csv("rows", "positions", "y", "y", lambda v: str(int(v))),
    certify=lambda fixture: oracle_apply(fixture.x, fixture.positions, fixture.grid.config),
    compared="y",
    row_word="ids",
)
"""The format's declaration: one JSON file per preset, a few ids rows, every value certified."""

FIXTURE_FORMAT = GOLDEN.register()
"""The handler of ``pespec-multiaxis-rope-golden/1`` files (:mod:`pespec.conformance.fixtures`)."""


def fixture_for(chosen: Preset, directory: Path | None = None) -> MRopeFixture | None:
    """The verified set whose configuration and ids are ``chosen``'s (its provenance and its
    configuration's name aside: neither is computed), or None."""
    return GOLDEN.matching(chosen.to_dict(), directory, _computed)


def _computed(data: Mapping[str, Any]) -> dict[str, Any]:
    kept = computed(data)
    kept["config"] = {k: v for k, v in kept["config"].items() if k != "name"}
    return kept
