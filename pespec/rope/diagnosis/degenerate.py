"""Outputs that carry no rotation to fit, measured before the pairing (SPEC Annex D.8).

Before a pairing is fitted, the probes are checked for outputs no rotation model explains
but whose shape is measurable at once: no finite value, all zeros, the input returned
unchanged, one output row whatever the input, or one rotation at every position (the
position ids not passed). Each is named with what was measured; :func:`degenerate`
returns the cause, or None when the probes carry a position-dependent rotation.
The rotated width (how many leading columns the backend changes) is measured here too.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.layout import layout_name, pair_values
from pespec.rope.schedules import frequencies

__all__ = ["changed_width", "degenerate", "rotated_width", "single_position"]

F64 = NDArray[np.float64]
SAME = 1e-6
"""Two probe outputs closer than this (max abs) are the same output."""


def _identity_columns(matrices: F64) -> NDArray[np.bool_]:
    """Per input column k (head_dim,): M(p)[:, k] = e_k at every probed position."""
    eye = np.eye(matrices.shape[1])
    with np.errstate(invalid="ignore"):
        close = np.abs(matrices - eye[None, :, :]) <= SAME
    return np.asarray(np.all(close, axis=(0, 1)), dtype=bool)


def changed_width(matrices: F64) -> int:
    """head_dim minus the trailing run of columns returned exactly unchanged (within
    :data:`SAME`) at every position: the rotated width however little its last pair moves."""
    unchanged = _identity_columns(matrices)
    width = unchanged.size
    while width > 0 and unchanged[width - 1]:
        width -= 1
    return width


def rotated_width(matrices: F64) -> int | None:
    """The number of leading columns the backend changes: head_dim minus the trailing run
    of columns returned unchanged at every position (``matrices`` (m, out, in), finite);
    None when the last changed column moves by less than 1e-2 (a pair too slow to tell
    from a pass-through column at the probed positions)."""
    unchanged = _identity_columns(matrices)
    width = unchanged.size
    while width > 0 and unchanged[width - 1]:
        width -= 1
    if width == 0:
        return 0
    eye = np.eye(matrices.shape[1])[:, width - 1]
    moved = float(np.max(np.abs(matrices[:, :, width - 1] - eye[None, :])))
    return width if moved > 1e-2 else None


def single_position(matrices: F64, config: RopeConfig) -> float | None:
    """The one position P at which every probed row is rotated, when the matrices do not
    change with the position; P read from the slowest pair's angle (ω_j·P < π) and
    checked against every pair (mod 2π). None when they change or no P fits."""
    if matrices.shape[0] < 2 or np.max(np.abs(matrices - matrices[:1])) > SAME:
        return None
    omegas, _ = frequencies(config)
    cos, sin = pair_values(matrices[:1], config, layout_name(config))
    angles = np.arctan2(sin[0], cos[0])
    best = None
    for j in np.argsort(omegas):
        w = float(omegas[j])
        if w <= 0:
            continue
        p = float(angles[j]) % (2 * math.pi) / w
        err = np.remainder(omegas * p - angles + math.pi, 2 * math.pi) - math.pi
        if np.all(np.abs(err) < 1e-2):
            best = p
            break
    return None if best is None else round(best, 3)


def degenerate(matrices: F64, mixed: F64, config: RopeConfig) -> str | None:
    """The cause when the probes show no position-dependent rotation, else None.

    ``matrices`` (m, out, in) and ``mixed`` (m, head_dim) as the probes returned them.
    """
    finite = np.isfinite(matrices)
    if not finite.any():
        return "every output value is NaN or infinite (no finite value to measure)"
    good = np.all(finite, axis=(1, 2))
    if not good.any():
        bad = int(np.sum(~finite))
        return f"{bad} of {finite.size} output values are NaN or infinite at every position"
    m = matrices[good]
    if np.max(np.abs(m)) <= SAME:
        return "the output is zero for every input (no rotation, no amplitude)"
    rows = np.transpose(m, (0, 2, 1)).reshape(-1, m.shape[1])
    if np.max(np.abs(rows - rows[:1])) <= SAME:
        return (
            "the output does not depend on the input: every row is the same vector "
            f"(first values {', '.join(f'{v:.4g}' for v in rows[0, :3])})"
        )
    if _identity_columns(m).all():
        return (
            "the backend returns x unchanged at every position: no rotation (what a rotation "
            "at position 0 gives: the position ids not passed, or the rotation not applied)"
        )
    where = single_position(m, config)
    if m.shape[0] >= 2 and np.max(np.abs(m - m[:1])) <= SAME:
        at = "an unidentified position" if where is None else f"position {where:g}"
        return (
            f"every row is rotated at {at}, whatever its position (the position ids not "
            "passed: the matrix does not change with the position)"
        )
    return None
