"""Pairing, output layout and per-pair angles from the basis probes (SPEC Annex D.8).

The basis rows of a probe give the matrix M(p) the backend applies at position p (output
index × input index). A pairing predicts where each column of M may be nonzero (its pair's
two output slots; the identity for pass-through columns); the pairing whose prediction
leaves the least energy outside is the backend's. Its pairs then give, per position and
pair j, the cosine and sine the backend used (times A): M[y_a, a] and M[y_b, a].
"""

from __future__ import annotations

import dataclasses
from typing import Final

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import PAIRINGS, RopeConfig
from pespec.rope.oracle import pair_indices

__all__ = ["OFF_SUPPORT_LIMIT", "detect_pairing", "pair_values", "pass_through_changed"]

F64 = NDArray[np.float64]

OFF_SUPPORT_LIMIT: Final = 1e-3
"""A pairing explains the matrices when less than this fraction of their energy is outside
its support (a wrong pairing leaves the sines of the fast pairs outside: about half)."""


def _support(config: RopeConfig, pairing: str) -> NDArray[np.bool_]:
    ra, rb, wa, wb = pair_indices(dataclasses.replace(config, pairing=pairing))
    support = np.zeros((config.head_dim, config.head_dim), dtype=bool)
    for read in (ra, rb):
        support[wa, read] = True
        support[wb, read] = True
    rest = np.arange(config.d_r, config.head_dim)
    support[rest, rest] = True
    return support


def detect_pairing(matrices: F64, config: RopeConfig) -> tuple[str, dict[str, float]]:
    """The pairing (or 'undetermined') and each pairing's off-support energy fraction.

    ``matrices`` (m, head_dim, head_dim) at positions where every value is finite.
    """
    squares = matrices**2
    total = float(squares.sum())
    off = {}
    for pairing in PAIRINGS:
        outside = float(squares[:, ~_support(config, pairing)].sum())
        off[pairing] = outside / total if total > 0 else 1.0
    fits = [p for p in PAIRINGS if off[p] < OFF_SUPPORT_LIMIT]
    if config.pairing in fits:
        return config.pairing, off
    if len(fits) == 1:
        return fits[0], off
    return "undetermined", off


def pair_values(matrices: F64, config: RopeConfig, pairing: str) -> tuple[F64, F64]:
    """(A·cos, A·sin) the backend applied, each (m, d_r/2), read from the a_j columns."""
    ra, _, wa, wb = pair_indices(dataclasses.replace(config, pairing=pairing))
    return matrices[:, wa, ra], matrices[:, wb, ra]


def pass_through_changed(matrices: F64, config: RopeConfig) -> bool:
    """Whether some pass-through component k ≥ d_r does not come back unchanged."""
    rest = np.arange(config.d_r, config.head_dim)
    if rest.size == 0:
        return False
    columns = matrices[:, :, rest]
    expected = np.zeros_like(columns)
    expected[:, rest, np.arange(rest.size)] = 1.0
    finite = np.isfinite(columns)
    return bool(np.any(finite & (np.abs(columns - expected) > 1e-6)))
