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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.fixtures import FixtureError
from pespec.conformance.preset_sets import PresetRows, PresetSetFormat, computed, floats, grid_csv
from pespec.fourier.convention import FourierConvention
from pespec.fourier.inputs import suite_inputs
from pespec.fourier.oracle import oracle_encode
from pespec.fourier.presets import PRESETS, convention_from

__all__ = [
    "FIXTURE_FORMAT",
    "FORMAT",
    "GOLDEN",
    "GOLDEN_ROWS",
    "FourierFixture",
    "compute_fixture",
    "fixture_for",
]

FORMAT = "pespec-fourier-golden/1"
GOLDEN_ROWS = 8


@dataclass(frozen=True)
class FourierFixture(PresetRows):
    """One set: rows (n,) of the suite's inputs, x (n, k), values (n, D)."""

    x: NDArray[np.float64]
    values: NDArray[np.float64]

    @property
    def conv(self) -> FourierConvention:
        """The convention the set was computed for."""
        return convention_from(dict(self.data))


def compute_fixture(name: str) -> FourierFixture:
    """Evaluate preset ``name``'s set with the certified oracle."""
    conv = PRESETS[name]
    x = suite_inputs(conv, GOLDEN_ROWS)
    rows = np.arange(GOLDEN_ROWS, dtype=np.int64)
    return FourierFixture(
        GOLDEN.set_name(name), name, computed(conv.to_dict()), rows, x, oracle_encode(x, conv)
    )


def _built(file: str, parsed: dict[str, Any]) -> FourierFixture:
    """The set of the parsed fields, once its shapes fit its convention and its inputs are
    the suite's first rows for it."""
    fixture = FourierFixture(**parsed)
    conv = fixture.conv
    n = fixture.rows.shape[0]
    if fixture.values.shape != (n, conv.width) or fixture.x.shape != (n, conv.in_dims):
        raise FixtureError(
            f"{file}: values {fixture.values.shape} and positions {fixture.x.shape} do not fit "
            f"{n} rows of width {conv.width} over {conv.in_dims} inputs"
        )
    if suite_inputs(conv, n).tobytes() != fixture.x.tobytes():
        raise FixtureError(f"{file}: positions are not the suite's first {n} inputs")
    return fixture


GOLDEN: PresetSetFormat[FourierFixture] = PresetSetFormat(
    tag=FORMAT,
    description="Fourier-feature sets (SPEC §10.8)",
    noun="fourier fixture",
    generator={
        "name": "pespec.fourier.oracle",
        "method": "angles in MPFR (gmpy2) from the exact inputs, Ziv loop until each value's error "
        "interval rounds to one float64 (round to nearest, ties to even); exact zeros decided in "
        "rational arithmetic",
    },
    definition=(
        "SPEC 10.1: values[r][c] is column c of the Fourier-feature encoding of x = positions[r] "
        "under preset_config: sin or cos of a_j = c*s*sum_i W_ji*x_i, or a raw coordinate x_i; "
        "every value correctly rounded (round half to even) from the exact real value"
    ),
    fields=(*PresetRows.FIELDS, floats("positions", "x"), floats("values")),
    presets=PRESETS,
    prefix="fourier-",
    compute=compute_fixture,
    build=_built,
    npz={"rows": "rows", "positions": "x", "values": "values"},
    csv=grid_csv("rows", "x", "values", "c"),
    certify=lambda fixture: oracle_encode(fixture.x, fixture.conv),
    row_word="input",
)
"""The format's declaration: one JSON file per preset, every value certified."""

FIXTURE_FORMAT = GOLDEN.register()
"""The handler of ``pespec-fourier-golden/1`` files (:mod:`pespec.conformance.fixtures`)."""


def fixture_for(conv: FourierConvention, directory: Path | None = None) -> FourierFixture | None:
    """The verified set whose convention is ``conv`` (source aside), or None."""
    return GOLDEN.find(lambda fixture: fixture.conv == conv, directory)
