"""Rotary backends that break the calling contract (SPEC §8.8), one way each.

Each is a rotary backend ``fn(x, positions, rope)`` built on a correct float32 stack; the
suite must give each a failed verdict naming the broken contract check, never crash. Used by
the rotary verdict snapshot (tools/snapshot_verdicts.py). NumPy only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pespec.rope import RopeConfig
from pespec.rope.diagnosis.examples import numpy_backend

_correct = numpy_backend(np.float32)


def raises(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
    """Raises on every call: every check fails, the run goes on."""
    raise RuntimeError("rotary kernel not compiled for this device")


def wrong_shape(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
    """Returns half the columns, (n, head_dim/2) instead of (n, head_dim)."""
    return _correct(x, positions, rope)[:, : rope.head_dim // 2]


def nan_at_zero(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
    """Returns NaN in the rows of position 0 (a 0/0 in a normalisation)."""
    out = _correct(x, positions, rope)
    out[np.asarray(positions) == 0] = np.nan
    return out


def mutates_input(x: np.ndarray, positions: np.ndarray, rope: RopeConfig) -> Any:
    """Rotates in place: correct values, but the caller's x is overwritten."""
    out = _correct(x, positions, rope)
    x[...] = out
    return out
