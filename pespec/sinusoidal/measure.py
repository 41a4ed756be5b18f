"""Measure what a sinusoidal backend computes (issue 27 item 1; SPEC Annex D.6).

From the backend's rows at integer positions 0 … 15 then 32, 64, … (up to 2^16 or the
declared limit), at one d_model and base: for every column layout of §3 the pairs' amplitude
√(s² + c²) is read, and the layout whose amplitudes are constant (and whose angles rise with
the position) is the measured one; then per pair k the angle atan2(s, c), unwrapped across
positions (each new position's angle is predicted from the fit so far, the 2π multiple chosen
nearest), gives ω̂_k and the intercept φ_k by least squares; the position offset ô = Σω̂φ/Σω̂²;
the output scale Â the median amplitude; the base b̂ from the slope of ln ω̂_k against k over the
declared convention's denominator (d/2 − s). Each value comes with its precision: the largest
residual of its fit divided by what it scales (ω̂_k: max angle residual / largest position;
b̂: the slope's residual propagated; Â: the amplitudes' spread).

The diagnosis uses it to name a base that differs from the requested one with the measured
value, when its own sentence does not already name the base (:func:`base_clause`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.conventions import LAYOUTS, Convention

__all__ = ["POSITIONS", "Measurement", "base_clause", "measure", "probe_positions"]

F64 = NDArray[np.float64]
Call = Callable[[NDArray[Any], int, float], Any]

POSITIONS: Final = (*range(16), *(2**k for k in range(5, 17)))
"""The probe positions: 0 … 15 (every pair's angle changes by ω ≤ 1 < π per step), then powers
of two to 2^16 (the unwrapping's prediction error stays below π)."""


@dataclass(frozen=True)
class Measurement:
    """What the rows show: ``layout``; per pair ``omega`` (ω̂_k, unwrapped) with
    ``omega_precision``; ``offset`` ô and ``scale`` Â with their precisions; ``base`` b̂ (None
    when the ω̂ are not log-linear in k) with ``base_precision`` (relative); at ``d_model``,
    ``requested_base``."""

    d_model: int
    requested_base: float
    layout: str
    omega: tuple[float, ...]
    omega_precision: tuple[float, ...]
    offset: float
    offset_precision: float
    scale: float
    scale_precision: float
    base: float | None
    base_precision: float | None

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def probe_positions(max_position: float | None) -> NDArray[np.int64]:
    """:data:`POSITIONS` up to ``max_position`` (all when None)."""
    kept = [p for p in POSITIONS if max_position is None or p <= max_position]
    return np.array(kept, dtype=np.int64)


def _unwrap(angles: F64, positions: F64) -> F64:
    """Angles (n, pairs) unwrapped across ``positions`` by predicting each from the fit so far."""
    out: F64 = np.array(angles, dtype=np.float64)
    for i in range(2, positions.shape[0]):
        p = positions[:i]
        slope, intercept = np.polyfit(p, out[:i], 1) if i > 2 else _two_point(p, out[:i])
        predicted = slope * positions[i] + intercept
        turns = np.round((predicted - angles[i]) / (2 * np.pi))
        out[i] = angles[i] + 2 * np.pi * turns
    return out


def _two_point(p: F64, y: F64) -> tuple[F64, F64]:
    slope = (y[1] - y[0]) / (p[1] - p[0])
    return slope, y[0] - slope * p[0]


_MIRROR: Final = {"sin_cos_halves": "cos_sin_halves", "cos_sin_halves": "sin_cos_halves"}
"""The layout with the sine and cosine halves exchanged (same amplitudes, angles π/2 − φ)."""


def _fit(s: F64, c: F64, p: F64) -> tuple[F64, F64, F64, F64]:
    """ω̂, φ per pair by least squares on the unwrapped angles; the angles and the design."""
    angles = _unwrap(np.arctan2(s, c), p)
    design = np.stack([p, np.ones_like(p)], axis=1)
    (omega, phi), *_ = np.linalg.lstsq(design, angles, rcond=None)
    return omega, phi, angles, design


def _best_layout(rows: F64, d_model: int) -> tuple[str, F64, F64]:
    """The layout whose pairs have the steadiest amplitude, with its (sin, cos) columns (the
    two halves layouts tie: :func:`measure` picks the one whose angles rise)."""
    best: tuple[float, str, F64, F64] | None = None
    for layout in LAYOUTS:
        convention = Convention(layout=layout)
        s = rows[:, convention.sin_columns(d_model)]
        c = rows[:, convention.cos_columns(d_model)]
        amplitude = np.hypot(s, c)
        spread = float(np.nanmax(np.abs(amplitude - np.nanmedian(amplitude))))
        if best is None or spread < best[0]:
            best = (spread, layout, s, c)
    assert best is not None
    return best[1], best[2], best[3]


def measure(
    call: Call,
    d_model: int,
    base: float,
    convention: Convention,
    max_position: float | None = None,
) -> Measurement | None:
    """Measure the backend at ``d_model`` and ``base`` (one call); None when it fails or
    returns no finite (n, d_model) rows."""
    positions = probe_positions(max_position)
    if positions.shape[0] < 4:
        return None
    try:
        raw = np.asarray(call(positions.copy(), d_model, base))
    except Exception:  # advice only
        return None
    if raw.dtype.kind not in "fiub":  # complex or other: the contract's dtype check says so
        return None
    rows = raw.astype(np.float64)
    if rows.shape != (positions.shape[0], d_model) or not np.all(np.isfinite(rows)):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):  # integer rows: no frequency
        return _measured(rows, positions, d_model, base, convention)


def _measured(
    rows: NDArray[np.float64],
    positions: NDArray[Any],
    d_model: int,
    base: float,
    convention: Convention,
) -> Measurement | None:
    """:func:`measure` on the backend's rows (n, d_model); None when they hold no rotation."""
    layout, s, c = _best_layout(rows, d_model)
    p = positions.astype(np.float64)
    omega, phi, angles, design = _fit(s, c, p)
    if np.median(omega) < 0 and layout in _MIRROR:  # sin and cos swapped: the other halves
        layout, s, c = _MIRROR[layout], c, s
        omega, phi, angles, design = _fit(s, c, p)
    residual = np.max(np.abs(design @ np.stack([omega, phi]) - angles), axis=0)
    omega_precision = residual / p[-1]
    if not np.any(omega):  # constant columns (integer output): nothing rotates
        return None
    offset = float(np.sum(omega * phi) / np.sum(omega * omega))
    offset_precision = float(np.max(residual) / np.max(np.abs(omega)))
    amplitude = np.hypot(s, c)
    scale = float(np.median(amplitude))
    base_hat, base_precision = _base(omega, omega_precision, convention, d_model)
    return Measurement(
        d_model,
        float(base),
        layout,
        tuple(omega.tolist()),
        tuple(omega_precision.tolist()),
        offset,
        offset_precision,
        scale,
        float(np.max(np.abs(amplitude - scale))),
        base_hat,
        base_precision,
    )


def _base(
    omega: F64, precision: F64, convention: Convention, d_model: int
) -> tuple[float | None, float | None]:
    """b̂ from the slope of ln ω̂_k against k (None when ω̂ is not positive and log-linear)."""
    if omega.shape[0] < 2 or not np.all(omega > precision):
        return None, None
    k = np.arange(omega.shape[0], dtype=np.float64)
    logs = np.log(omega)
    slope, intercept = np.polyfit(k, logs, 1)
    misfit = float(np.max(np.abs(slope * k + intercept - logs)))
    log_error = float(np.max(precision / omega))
    if misfit > 8 * log_error + 1e-9:
        return None, None  # not a geometric progression: no single base
    den = float(convention.denominator(d_model))
    base_hat = float(np.exp(-slope * den))
    return base_hat, (misfit + log_error) * den / max(1.0, k[-1]) * 2


def base_clause(measured: Measurement | None, sentence: str | None) -> str | None:
    """ "the base measured 1.000e+05 (±…), not the requested 10000" when the measured base
    differs from the requested one beyond its precision and ``sentence`` names no base."""
    if measured is None or measured.base is None or measured.base_precision is None:
        return None
    if sentence and "base" in sentence:
        return None
    requested = measured.requested_base
    relative = abs(np.log(measured.base / requested))
    if relative <= max(3 * measured.base_precision, 1e-6):
        return None
    return (
        f"the base measured from the frequencies is {measured.base:.6g} "
        f"(relative precision {measured.base_precision:.1g}), not the requested {requested:g} "
        f"(ω̂_k per pair unwrapped across positions, at d_model={measured.d_model}, "
        f"{measured.layout} layout)"
    )
