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

from pespec.rope.config import RopeConfig, pair_layouts
from pespec.rope.oracle import pair_indices

__all__ = [
    "LAYOUTS",
    "OFF_SUPPORT_LIMIT",
    "detect_pairing",
    "layout_name",
    "layout_of",
    "layout_slip",
    "pair_values",
    "pass_through_changed",
]

F64 = NDArray[np.float64]

OFF_SUPPORT_LIMIT: Final = 1e-3
"""A pairing explains the matrices when less than this fraction of their energy is outside
its support (a wrong pairing leaves the sines of the fast pairs outside: about half)."""


LAYOUTS: Final = {
    "halves": ("halves", None),
    "interleaved": ("interleaved", None),
    "interleaved_in_halves_out": ("interleaved_in_halves_out", None),
    "halves_in_interleaved_out": ("halves", "interleaved"),
}
"""Every (input, output) layout a backend can show, by name: (pairing, output_layout)."""


def layout_of(config: RopeConfig, name: str) -> RopeConfig:
    """``config`` with the pairing and output layout of the layout ``name``."""
    pairing, output_layout = LAYOUTS[name]
    return dataclasses.replace(config, pairing=pairing, output_layout=output_layout)


def layout_name(config: RopeConfig) -> str:
    """The name in :data:`LAYOUTS` of the configuration's (input, output) layout."""
    want = (config.input_pairing, config.output_pairing)
    return next(n for n, (p, o) in LAYOUTS.items() if pair_layouts(p, o) == want)


def _support(config: RopeConfig, name: str) -> NDArray[np.bool_]:
    ra, rb, wa, wb = pair_indices(layout_of(config, name))
    support = np.zeros((config.head_dim, config.head_dim), dtype=bool)
    for read in (ra, rb):
        support[wa, read] = True
        support[wb, read] = True
    rest = np.arange(config.d_r, config.head_dim)
    support[rest, rest] = True
    return support


def detect_pairing(matrices: F64, config: RopeConfig) -> tuple[str, dict[str, float]]:
    """The layout (a name in :data:`LAYOUTS`, or 'undetermined') and each layout's
    off-support energy fraction; the configuration's own layout wins where it fits.

    ``matrices`` (m, head_dim, head_dim) at positions where every value is finite.
    """
    squares = matrices**2
    total = float(squares.sum())
    off = {}
    for name in LAYOUTS:
        outside = float(squares[:, ~_support(config, name)].sum())
        off[name] = outside / total if total > 0 else 1.0
    fits = [name for name in LAYOUTS if off[name] < OFF_SUPPORT_LIMIT]
    own = layout_name(config)
    if own in fits:
        return own, off
    if len(fits) == 1:
        return fits[0], off
    return "undetermined", off


def layout_slip(config: RopeConfig, name: str) -> str | None:
    """The cause when the backend's layout ``name`` is not the configuration's, else None:
    pairs read otherwise, or (same pairs) the outputs written in the other layout."""
    found = layout_of(config, name)
    if found.input_pairing != config.input_pairing:
        return f"pairs formed as {name} where the config says {config.pairing}"
    if found.output_pairing != config.output_pairing:
        return (
            f"output written as {found.output_pairing} pairs where the configuration says "
            f"{config.output_pairing} (declare output_layout={found.output_pairing!r})"
        )
    return None


def pair_values(matrices: F64, config: RopeConfig, pairing: str) -> tuple[F64, F64]:
    """(A·cos, A·sin) the backend applied, each (m, d_r/2), read from the a_j columns of
    the layout ``pairing`` (a name in :data:`LAYOUTS`)."""
    ra, _, wa, wb = pair_indices(layout_of(config, pairing))
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
