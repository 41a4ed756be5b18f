"""The shipped golden fixture sets: what each one holds, and computing one (SPEC §7).

:data:`CATALOG` lists every set shipped in ``pespec/golden/``; :func:`compute_fixture`
evaluates one entry with the certified oracle (:mod:`pespec.sinusoidal.reference.oracle`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.golden import FixtureSet
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.conventions import PRESETS, Convention, diffusers_convention

__all__ = ["CATALOG", "FixtureSpec", "compute_fixture"]


@dataclass(frozen=True)
class FixtureSpec:
    """A catalog entry: what to compute (``columns=None`` means every column)."""

    name: str
    description: str
    d_model: int
    positions: tuple[int | float, ...]
    base: float = 10000.0
    convention: Convention = PRESETS["canonical"]
    columns: tuple[int, ...] | None = None


def _sampled_pair_columns(d_model: int, edge: int, stride: int) -> tuple[int, ...]:
    """Both columns (interleaved) of the first and last ``edge`` pairs and every stride-th."""
    half = d_model // 2
    pairs = sorted({*range(edge), *range(half - edge, half), *range(0, half, stride)})
    return tuple(c for k in pairs for c in (2 * k, 2 * k + 1))


_LONG = (
    0,
    1,
    *(2**k for k in range(10, 32)),
    2**31 - 1,
    10**6,
    10**7,
    10**8,
    10**9,
    123456789,
    1999999999,
)
_BASE_POSITIONS = (0, 1, 2, 3, 10, 100, 1000, 4096, 10000, 65535, 100000, 1000000)
_LARGE_D_POSITIONS = (0, 1, 2, 100, 1000, 4095, 8191, 100000, 2**20, 2**31 - 1)
_CONVENTION_POSITIONS = (*range(16), 100, 1000, 4999, 65536)
_FRACTIONAL = (
    0.5,
    0.25,
    0.1,
    1 / 3,
    2 / 3,
    1.5,
    2.5,
    1e-3,
    1e-8,
    3.141592653589793,
    999.999,
    1234.5678,
    65535.5,
    123456.789,
    1000000.5,
    2**31 - 0.5,
    -0.5,
    -1.25,
    -1000.125,
    -123456.789,
)
_NEGATIVE = (-1, -2, -3, -10, -100, -1000, -4999, -65536, -(2**20), -(2**31))


def _catalog() -> tuple[FixtureSpec, ...]:
    specs = [
        FixtureSpec("tiny-d4-L3", "hand-check configuration: d=4, positions 0..2", 4, (0, 1, 2)),
        FixtureSpec("d64-L128", "d=64, every position 0..127, every column", 64, tuple(range(128))),
        FixtureSpec(
            "gpt2-d768-L1024",
            "GPT-2 size (d=768, context 1024): sampled rows, every column",
            768,
            (0, 1, 2, 3, 7, 8, 63, 64, 127, 255, 256, 511, 512, 767, 1022, 1023),
        ),
        FixtureSpec(
            "transformer-d512-L5000",
            "original Transformer (d=512, positions < 5000): sampled rows, every column",
            512,
            (0, 1, 2, 3, 10, 100, 255, 256, 511, 1000, 1023, 2047, 2500, 4095, 4998, 4999),
        ),
        FixtureSpec(
            "long-context-d128",
            "long context: positions up to 2^31 (powers of two, 2^31-1, powers of ten)",
            128,
            _LONG,
        ),
        FixtureSpec(
            "fractional-d64",
            "fractional positions (each float64 taken at its exact binary value), "
            "including negative ones",
            64,
            _FRACTIONAL,
        ),
        FixtureSpec("negative-d64", "negative integer positions", 64, _NEGATIVE),
    ]
    for label, base in (("100", 100.0), ("1e4", 1e4), ("1e5", 1e5), ("5e5", 5e5), ("1e6", 1e6)):
        specs.append(
            FixtureSpec(
                f"base-{label}-d128",
                f"base {label} (d=128)",
                128,
                _BASE_POSITIONS,
                base=base,
            )
        )
    for d_model, stride in ((2048, 32), (8192, 32)):
        specs.append(
            FixtureSpec(
                f"large-d{d_model}",
                f"d={d_model}: both columns of the first 16 and last 16 pairs and of every "
                f"{stride}th pair",
                d_model,
                _LARGE_D_POSITIONS,
                columns=_sampled_pair_columns(d_model, 16, stride),
            )
        )
    # A fixture holds exact values: the frequency formula only shapes the error model (A8).
    conventions = [
        *((name, dataclasses.replace(c, frequency_formula="power")) for name, c in PRESETS.items()),
        ("diffusers-flip-shift0-scale1000", diffusers_convention(True, 0.0, 1000.0)),
    ]
    for name, convention in conventions:
        specs.append(
            FixtureSpec(
                f"convention-{name}",
                f"convention {convention.name!r} (d=32)",
                32,
                _CONVENTION_POSITIONS,
                convention=convention,
            )
        )
    return tuple(specs)


CATALOG: tuple[FixtureSpec, ...] = _catalog()
"""Every shipped fixture set, in file-name order of generation."""


def _positions_array(positions: Sequence[int | float]) -> NDArray[Any]:
    if all(isinstance(p, int) for p in positions):
        return np.array(positions, dtype=np.int64)
    return np.array([float(p) for p in positions], dtype=np.float64)


def compute_fixture(spec: FixtureSpec) -> FixtureSet:
    """Evaluate a catalog entry with the certified oracle."""
    positions = _positions_array(spec.positions)
    columns = np.arange(spec.d_model, dtype=np.intp)
    if spec.columns is not None:
        columns = np.array(spec.columns, dtype=np.intp)
    full = oracle.encode(positions, spec.d_model, base=spec.base, convention=spec.convention)
    return FixtureSet(
        name=spec.name,
        description=spec.description,
        d_model=spec.d_model,
        base=spec.base,
        convention=spec.convention,
        positions=positions,
        columns=columns,
        values=np.ascontiguousarray(full[:, columns]),
    )
