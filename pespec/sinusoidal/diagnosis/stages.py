"""Which stage of a sinusoidal table is in a 16-bit format (SPEC Annex D.3; issue 39 item 3).

A table whose angles are coarse may owe it to one stage: the inverse frequencies alone
rounded to float16 (ω̂_k = fl(ω_k), positions and p·ω̂ in float32), the denominator
base^(2k/d) computed in float16 (a float16 ``torch.pow``: ω̂_k = 1/fl(base^(2k/d))), or
every stage in float16 (the phase p·ω itself rounded). The first two are frequency errors:
the backend's rows equal the float64 encoding at those ω̂_k within a float32 pipeline's
bound |arg·ω|·16u + 4u (u = 2^−24; the bound of :mod:`.rounding`) plus the output format's
unit roundoff (|y| ≤ 1 rounded once to a 16-bit output). :func:`stage_format`
asks the backend once at a few integer positions and names the first hypothesis every row
matches; a 16-bit working precision that neither frequency hypothesis explains is "every
stage in that format" (the phase itself rounded).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.guard import BACKEND_ERRORS
from pespec.numerics.formats import DTYPES, SIGNIFICAND_BITS
from pespec.sinusoidal.properties.base import Encoder
from pespec.sinusoidal.reference.conventions import Convention

__all__ = ["stage_format", "stage_of_rows"]

F64 = NDArray[np.float64]
_POSITIONS = np.array([1.0, 7.0, 100.0, 1001.0, 2047.0])


def _rows(omegas: F64, positions: F64, convention: Convention, d_model: int) -> F64:
    """The encoding (n, d) with the frequencies ``omegas`` (d/2,), in float64."""
    arg = (positions + convention.position_offset) * convention.argument_scale
    phase = arg[:, None] * omegas[None, :]
    out = np.empty((positions.size, d_model))
    amplitude = convention.amplitude(d_model)
    out[:, convention.sin_columns(d_model)] = amplitude * np.sin(phase)
    out[:, convention.cos_columns(d_model)] = amplitude * np.cos(phase)
    return out


def _hypotheses(convention: Convention, d_model: int, base: float, name: str) -> dict[str, F64]:
    dtype = DTYPES[name]
    k = np.arange(d_model // 2, dtype=np.float64)
    power = base ** (k / convention.denominator(d_model))
    return {
        "inv_freq": (1.0 / power).astype(dtype).astype(np.float64),
        "pow": 1.0 / power.astype(np.float32).astype(dtype).astype(np.float64),
    }


TEXT = {
    "inv_freq": "only the inverse frequencies rounded to {f} (positions and p·ω in float32)",
    "pow": "the denominator base^(2k/d) computed in {f} (a {f} pow; ω = 1/{f}(base^(2k/d)))",
    "output": "only the output values rounded to {f} (every value returned is a {f} number "
    "and within one {f} rounding of exact: the angles and sines are computed wider)",
    "all": "angles computed in {f} at every stage (the phase p·ω itself rounded: neither "
    "the {f} inverse frequencies nor a {f} pow explain the rows)",
}


def stage_format(
    encoder: Encoder,
    convention: Convention,
    *,
    d_model: int,
    base: float,
    name: str,
    max_position: float | None,
) -> dict[str, Any] | None:
    """The stage in ``name`` (float16 or bfloat16) the rows show: {'stage', 'format',
    'text'}, stage 'inv_freq', 'pow' or 'all'; None when the backend misbehaves."""
    if name not in ("float16", "bfloat16"):
        return None
    top = float("inf") if max_position is None else max_position
    positions = _POSITIONS[_POSITIONS <= top]
    if positions.size < 2:
        return None
    try:
        result = encoder(positions.copy(), d_model, base)
        raw = np.asarray(result, dtype=np.float64)
    except BACKEND_ERRORS:
        return None
    out = str(getattr(result, "dtype", "float64")).replace("torch.", "")
    u_out = 2.0 ** -SIGNIFICAND_BITS.get(out, 53)  # the output's own rounding of |y| ≤ 1
    if raw.shape != (positions.size, d_model) or not np.all(np.isfinite(raw)):
        return None
    found = stage_of_rows(raw, positions, convention, (d_model, base), name, u_out)
    return found or {"stage": "all", "format": name, "text": TEXT["all"].format(f=name)}


def stage_of_rows(
    raw: F64,
    positions: F64,
    convention: Convention,
    request: tuple[int, float],
    name: str,
    u_out: float,
) -> dict[str, Any] | None:
    """The one stage in ``name`` that explains the rows ``raw`` (n, d) at ``positions`` for
    ``request`` (d_model, base): the output alone rounded, the inverse frequencies alone,
    or a ``name`` pow; None when none does (a saved table uses this directly)."""
    d_model, base = request
    u = 2.0**-24
    arg = np.abs((positions + convention.position_offset) * convention.argument_scale)
    k = np.arange(d_model // 2, dtype=np.float64)
    plain = 1.0 / base ** (k / convention.denominator(d_model))
    exact = _rows(plain, positions, convention, d_model)
    if _output_rounded(raw, exact, name, arg[:, None] * np.max(plain) * 16 * u + 4 * u):
        return {"stage": "output", "format": name, "text": TEXT["output"].format(f=name)}
    with np.errstate(over="ignore"):  # a pow beyond the 16-bit range is inf, ω = 0
        hypotheses = _hypotheses(convention, d_model, base, name)
    for stage, omegas in hypotheses.items():
        bound = arg[:, None] * np.max(omegas) * 16 * u + 4 * u + u_out
        if np.all(np.abs(raw - _rows(omegas, positions, convention, d_model)) <= bound):
            return {"stage": stage, "format": name, "text": TEXT[stage].format(f=name)}
    return None


def _output_rounded(raw: F64, exact: F64, name: str, bound: Any) -> bool:
    """Whether every value is a ``name`` number within one ``name`` rounding (|y| ≤ 1:
    2^−p absolute) plus a float32 pipeline's ``bound`` of the exact encoding: the output
    alone rounded (a phase rounded to ``name`` gives sines that are no ``name`` numbers)."""
    representable = raw.astype(DTYPES[name]).astype(np.float64) == raw
    u_name = 2.0 ** -SIGNIFICAND_BITS[name]
    return bool(np.all(representable) and np.all(np.abs(raw - exact) <= bound + u_name))
