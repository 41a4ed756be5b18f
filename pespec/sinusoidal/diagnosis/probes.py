"""The diagnosis probes (SPEC Annex D.1): what is asked of the backend, and calling it safely.

A :class:`Probe` is one request (d_model, base, positions) and, once called, the backend's
output as float64 or a note saying why there is none. Calls never raise because of the
backend (:data:`~pespec.conformance.guard.BACKEND_ERRORS`); probes are immutable, each
call returns a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.guard import BACKEND_ERRORS
from pespec.numerics.formats import dtype_name
from pespec.sinusoidal.properties.base import Encoder

__all__ = [
    "FIT_DIMS",
    "PRIMARY_BASE",
    "SECONDARY_BASE",
    "Probe",
    "call",
    "call_rowwise",
    "fit_dims",
    "fit_positions",
    "large_positions",
    "repeat_differs",
    "trim_non_finite",
]

PRIMARY_BASE = 10000.0
"""Base of the main probes (the canonical base)."""

SECONDARY_BASE = 500.0
"""A second requested base: tells a backend that honours ``base`` from one that fixes it."""

FIT_DIMS = (64, 32)
"""Model dimensions of the fit probes; two are needed to separate the base from the shift s.

A backend declaring a smaller ``max_d_model`` is probed within it (:func:`fit_dims`)."""


def fit_dims(max_d_model: int | None) -> tuple[int, ...]:
    """The fit-probe model dimensions within ``max_d_model`` (None: no limit), largest first.

    (64, 32) when allowed; otherwise M = max_d_model and the even M/2 rounded down, at least
    4 (the smallest d with two frequency pairs, ω_0 = 1 and ω_1): M = 16 gives (16, 8),
    M = 6 gives (6, 4). M = 4 and M = 2 give a single dimension: at d = 2 the only frequency
    is ω_0 = 1 whatever the base and shift, so a d = 2 probe cannot help separate them.
    """
    if max_d_model is None or max_d_model >= FIT_DIMS[0]:
        return FIT_DIMS
    low = max(4, 2 * (max_d_model // 4))
    return (max_d_model, low) if low < max_d_model else (max_d_model,)


def fit_positions(integer_positions_only: bool) -> NDArray[Any]:
    """The uniform grid of the fit probes: 0..48 (integers) or 0..32 in steps of 1/4."""
    if integer_positions_only:
        return np.arange(49, dtype=np.int64)
    return np.arange(129, dtype=np.float64) / 4.0


def large_positions() -> NDArray[np.int64]:
    """2^j − 1, 2^j, 2^j + 1, 2^j + 2 and 3·2^(j−1) + 1 for j = 6..30, sorted."""
    values: set[int] = set()
    for j in range(6, 31):
        values.update({2**j - 1, 2**j, 2**j + 1, 2**j + 2, 3 * 2 ** (j - 1) + 1})
    return np.array(sorted(values), dtype=np.int64)


@dataclass(frozen=True)
class Probe:
    """One call of the backend: the request and, when usable, its output as float64 (n, d)."""

    d_model: int
    base: float
    positions: NDArray[Any]
    values: NDArray[np.float64] | None = None
    dtype: str | None = None
    note: str = ""

    @property
    def label(self) -> str:
        return f"d_model={self.d_model}, base={self.base:g}, {len(self.positions)} positions"


def _short(note: str, limit: int = 200) -> str:
    """``note`` cut to ``limit`` characters at its last whole clause ("; "), so a long
    message never ends in a cut word or number."""
    if len(note) <= limit:
        return note
    head = note[:limit]
    cut = head.rfind("; ")
    return (head[:cut] if cut > 0 else head.rstrip()) + " …"


def call(encoder: Encoder, probe: Probe) -> Probe:
    """``probe`` answered: float64 values and their format, or a note saying what went wrong."""
    try:
        raw = np.asarray(encoder(probe.positions.copy(), probe.d_model, probe.base))
        with np.errstate(all="ignore"):
            values = raw.astype(np.float64)
    except BACKEND_ERRORS as exc:  # a misbehaving backend must not crash the diagnosis
        return replace(probe, note=_short(f"raised {type(exc).__name__}: {exc}"))
    expected = (len(probe.positions), probe.d_model)
    if values.shape != expected:
        return replace(probe, note=f"returned shape {values.shape}, expected {expected}")
    return replace(probe, values=values, dtype=dtype_name(raw.dtype))


def repeat_differs(encoder: Encoder, probe: Probe) -> dict[str, Any] | None:
    """Call ``probe`` again; where the two outputs differ (largest difference), or None."""
    again = call(encoder, Probe(probe.d_model, probe.base, probe.positions))
    if probe.values is None or again.values is None:
        return None
    if np.array_equal(probe.values, again.values, equal_nan=True):
        return None
    with np.errstate(invalid="ignore"):
        difference = np.abs(probe.values - again.values)
    difference[~np.isfinite(difference)] = np.inf
    row, column = np.unravel_index(int(np.argmax(difference)), difference.shape)
    return {
        "probe": probe.label,
        "max_difference": float(difference[row, column]),
        "position": float(probe.positions[row]),
        "column": int(column),
        "elements_differing": int(np.count_nonzero(difference > 0)),
    }


def call_rowwise(encoder: Encoder, probe: Probe) -> Probe:
    """Like :func:`call`, falling back to one call per position (failed rows become NaN)."""
    if len(probe.positions) == 0:
        return replace(probe, note="no position inside the declared max_position")
    whole = call(encoder, probe)
    if whole.values is not None:
        return whole
    rows = np.full((len(probe.positions), probe.d_model), np.nan)
    dtype = None
    for i in range(len(probe.positions)):
        single = call(encoder, Probe(probe.d_model, probe.base, probe.positions[i : i + 1]))
        if single.values is not None:
            rows[i] = single.values[0]
            dtype = dtype or single.dtype
    if np.isfinite(rows).any():
        note = f"whole call {whole.note}; evaluated position by position"
        return replace(probe, values=rows, dtype=dtype, note=note)
    return replace(probe, dtype=dtype, note=whole.note)


def trim_non_finite(probe: Probe) -> tuple[Probe, list[float]]:
    """(``probe`` without the non-finite rows at the ends of its grid, their positions).

    NaN at position 0 leaves a usable probe; non-finite rows inside the grid, or more than a
    fifth of the rows, make it unusable (no values, a note)."""
    if probe.values is None:
        return probe, []
    finite = np.isfinite(probe.values).all(axis=1)
    if finite.all():
        return probe, []
    kept = np.flatnonzero(finite)
    dropped = [float(p) for p in probe.positions[~finite]]
    if kept.size < 0.8 * finite.size or kept[-1] - kept[0] + 1 != kept.size:
        return replace(probe, values=None, note="returned non-finite values"), dropped
    trimmed = replace(
        probe,
        positions=probe.positions[kept],
        values=probe.values[kept],
        note=f"non-finite rows at positions {dropped[:4]} left out",
    )
    return trimmed, dropped
