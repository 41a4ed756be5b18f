"""Diagnosis probe: are positions (timesteps) rounded to a coarse format before the embedding?

Pipelines cast diffusion timesteps to the model dtype before embedding them (937 → 936 and
998.39 → 1000 in bfloat16). Such a backend returns, at position p, exactly its row at
fmt(p): :func:`position_rounding` asks for both and compares the rows bit for bit. A correct
backend's rows differ, since p ≠ fmt(p) moves every angle (SPEC Annex D.3).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.guard import BACKEND_ERRORS
from pespec.numerics.formats import DTYPES
from pespec.sinusoidal.properties.base import Encoder
from pespec.sinusoidal.reference.conventions import Convention
from pespec.sinusoidal.reference.exact import exact_encode

__all__ = ["ROUNDING_FORMATS", "position_rounding", "scaled_rounding"]

ROUNDING_FORMATS: tuple[str, ...] = ("bfloat16", "float16")
"""Formats checked, coarsest first."""

_FRACTIONS = np.array([0.937, 0.99839, 0.70711, 0.33371, 0.51234, 0.27183])
"""Fractions of the position range probed (none is a short binary fraction)."""

_DEFAULT_RANGE = 1000.0
"""Range probed when the backend declares no max_position: diffusion timesteps 0 … 1000."""


def _pairs(top: float, integer: bool, name: str) -> tuple[NDArray[Any], NDArray[Any]] | None:
    """Positions p in (0, top] with fmt(p) ≠ p and fmt(p) ≤ top, and their fmt(p)."""
    values = top * _FRACTIONS
    if integer:
        values = np.unique(np.floor(values)).astype(np.int64)
    rounded = values.astype(DTYPES[name]).astype(np.float64)
    keep = (rounded != values) & (rounded <= top) & (rounded >= 0)
    if np.count_nonzero(keep) < 2:
        return None
    p, q = values[keep], rounded[keep]
    return (p, q.astype(np.int64)) if integer else (p, q)


def position_rounding(
    encoder: Encoder,
    *,
    d_model: int,
    base: float,
    max_position: float | None,
    integer_positions_only: bool,
) -> str | None:
    """The coarsest format of :data:`ROUNDING_FORMATS` whose rounding of the positions the
    output shows (rows at p and fmt(p) bit-identical for every probed p), or None. At most
    one call per format; a backend that raises or misbehaves, or gives one row for two
    different probed positions (a constant), gives None."""
    top = _DEFAULT_RANGE if max_position is None else float(max_position)
    for name in ROUNDING_FORMATS:
        pairs = _pairs(top, integer_positions_only, name)
        if pairs is None:
            continue
        p, q = pairs
        # A table looked up by integer index gives p and fmt(p) one row when both truncate
        # (or round) to the same integer, which is no rounding to fmt: use pairs whose floor
        # and rint differ; in a range too small for two of those (t in [0, 1]), ask for
        # floor(p) and rint(p) as well and rule out rows equal to theirs.
        separated = (np.floor(p) != np.floor(q)) & (np.rint(p) != np.rint(q))
        neighbours: list[NDArray[Any]] = []
        if not integer_positions_only and np.count_nonzero(separated) >= 2:
            p, q = p[separated], q[separated]
        elif not integer_positions_only:
            neighbours = [np.floor(p), np.rint(p)]
        asked = np.concatenate([p, q, *neighbours])
        try:
            raw = np.asarray(encoder(asked, d_model, base))
        except BACKEND_ERRORS:  # a misbehaving backend (sys.exit too): no finding, no crash
            return None
        if raw.shape != (len(asked), d_model):
            return None
        n = len(p)
        rows = np.ascontiguousarray(raw).view(np.uint8).reshape(len(asked), -1)
        distinct = np.unique(rows[:n], axis=0).shape[0] == n  # not a constant
        table = any(
            np.array_equal(rows[:n], rows[k * n : (k + 1) * n]) for k in (2, 3)[: len(neighbours)]
        )
        if distinct and not table and np.array_equal(rows[:n], rows[n : 2 * n]):
            return name
    return None


_SCALED_PROBES = np.array([0.375, 0.1234567, 0.70711, 0.93701])
"""Timesteps t in [0, 1] probed for the scaled rounding (0.375: 1000·t = 375 → 376)."""

_HYPOTHESES: dict[str, str] = {
    "scaled": "the scaled timestep {s:g}·t rounded to {f}",
    "timestep": "the timestep t rounded to {f} before the scaling by {s:g}",
    "both": "t rounded to {f}, then the scaled timestep {s:g}·t rounded to {f} again",
}


def _arguments(t: NDArray[Any], scale: float, name: str, how: str) -> NDArray[Any]:
    dtype = DTYPES[name]

    def fmt(v: NDArray[Any]) -> NDArray[Any]:
        return np.asarray(v, dtype=np.float32).astype(dtype).astype(np.float64)

    if how == "scaled":
        return fmt(scale * t)
    if how == "timestep":
        return scale * fmt(t)
    return fmt(fmt(t) * scale)


def scaled_rounding(
    encoder: Encoder, convention: Convention, *, d_model: int, base: float, name: str
) -> dict[str, Any] | None:
    """Which rounding of the timestep the output shows when the convention scales its
    argument (s = argument_scale ≠ 1): the scaled timestep s·t rounded to ``name``, t
    rounded before the scaling, or both; each hypothesis gives the row exact(arg) that a
    float32 pipeline reproduces within its bound |arg|·16u + 4u (u = 2^−24: ω_k through
    exp of |a_k| ≤ ln 10^4 < 9.22 carries (|a_k| + 2)u, the product one more u, cos/sin
    2 ulps; 16 > 12.3 + 3). Returns the hypothesis, the timestep with the largest error
    (t, s·t, the rounded argument) and that error against the exact row at s·t; None when
    no hypothesis explains every probed row or the backend misbehaves."""
    scale = float(convention.argument_scale)
    if scale == 1.0:
        return None
    try:
        raw = np.asarray(encoder(_SCALED_PROBES.copy(), d_model, base), dtype=np.float64)
    except BACKEND_ERRORS:
        return None
    if raw.shape != (_SCALED_PROBES.size, d_model) or not np.all(np.isfinite(raw)):
        return None
    plain = replace(convention, argument_scale=1.0)
    exact = exact_encode(scale * _SCALED_PROBES, d_model, base=base, convention=plain)
    u = 2.0**-24
    for how in ("scaled", "both", "timestep"):
        args = _arguments(_SCALED_PROBES, scale, name, how)
        if np.all(args == scale * _SCALED_PROBES):
            continue
        rows = exact_encode(args, d_model, base=base, convention=plain)
        bound = np.abs(args)[:, None] * 16 * u + 4 * u
        if np.all(np.abs(raw - rows) <= bound):
            errors = np.max(np.abs(raw - exact), axis=1)
            k = int(np.argmax(errors))
            return {
                "rounding": how,
                "format": name,
                "scale": scale,
                "t": float(_SCALED_PROBES[k]),
                "scaled": float(scale * _SCALED_PROBES[k]),
                "used": float(args[k]),
                "error": float(errors[k]),
                "text": _HYPOTHESES[how].format(s=scale, f=name),
            }
    return None
