"""Verifying golden fixtures: the stored values against the oracle, and a fixture directory
against a fresh regeneration (SPEC §7). :func:`differing_files` is the engine's
(:mod:`pespec.conformance.fixtures`), imported from there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pespec.conformance.fixtures import differing_files
from pespec.sinusoidal.golden import FixtureSet
from pespec.sinusoidal.golden_catalog import CATALOG, FixtureSpec
from pespec.sinusoidal.golden_write import render_catalog
from pespec.sinusoidal.reference import oracle

__all__ = ["ValueMismatch", "verify_directory", "verify_values"]


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


def verify_values(fixture: FixtureSet, file: str) -> list[ValueMismatch]:
    """Recompute every stored value with the oracle; the values that differ."""
    full = oracle.encode(
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


def verify_directory(
    directory: Path | None = None,
    catalog: Sequence[FixtureSpec] = CATALOG,
    on_progress: Callable[[FixtureSpec], None] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> list[str]:
    """Regenerate in memory (``extra`` as :func:`render_catalog`); the names of files that
    differ byte for byte, are missing or are not part of the catalog (MANIFEST.provenance
    excepted)."""
    return differing_files(directory, render_catalog(catalog, on_progress, extra))
