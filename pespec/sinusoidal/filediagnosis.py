"""A diagnosis line for a saved sinusoidal table (``--from-file``; issue 39 item 3).

No backend to call: the saved rows at their positions are compared with the exact encoding
of each convention within reach of a file alone: the three layouts × frequency shift 0 or
1 (base^(−k/(d/2)) or base^(−k/(d/2−1))) × positions offset by 0, +1 or −1 × the angle's
sign, at the given base; rows coarser than a float32 table are tested for the one 16-bit
stage (output, inverse frequencies, pow) that explains them, as a callable's rows are.
The closest member is named with its largest error; it explains the rows when that
error is within 1e-2 (the diagnosis's "within 1e-2 of exact" reach), else the sentence
says no member was within it.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import DTYPES, SIGNIFICAND_BITS
from pespec.sinusoidal.diagnosis.growth import phase_error_growth
from pespec.sinusoidal.diagnosis.stages import stage_of_rows
from pespec.sinusoidal.filemeasure import frequency_law, measured_omegas
from pespec.sinusoidal.reference.conventions import LAYOUTS, Convention, Layout
from pespec.sinusoidal.reference.exact import exact_encode

__all__ = ["file_diagnosis"]

REACH = 1e-2


def _name(c: Convention) -> str:
    shift = "base^(−k/(d/2−1))" if c.frequency_shift else "base^(−k/(d/2))"
    offset = f", positions shifted by {c.position_offset:+d}" if c.position_offset else ""
    sign = ", angles negated (sin with the wrong sign)" if c.argument_scale < 0 else ""
    return f"{c.layout.replace('_', ' ')} layout, ω_k = {shift}{offset}{sign}"


def _float32_table(y: NDArray[Any], p: NDArray[Any], c: Convention, request: Any) -> bool:
    """Whether every value is within a float32 table's bound |arg|·16u + 4u of exact."""
    d_model, base = request
    u = 2.0**-24
    arg = np.abs((p + c.position_offset) * c.argument_scale)
    plain = exact_encode(p, d_model, base=base, convention=c)
    return bool(np.all(np.abs(y - plain) <= arg[:, None] * 16 * u + 4 * u))


def _coarse_stage(y: NDArray[Any], p: NDArray[Any], c: Convention, request: Any) -> str:
    """'; <the 16-bit stage>' when the rows are coarser than a float32 table (beyond the
    float32 bound |arg|·ω_max·16u + 4u somewhere) and one 16-bit stage explains them
    exactly as :func:`stage_of_rows` tests a callable's rows; else ''."""
    if _float32_table(y, p, c, request):
        return ""
    for name in ("float16", "bfloat16"):
        found = stage_of_rows(y, p, c, request, name, 2.0**-24)
        if found is not None:
            return f"; {found['text']}"
    return ""


def file_diagnosis(
    output: NDArray[Any], positions: NDArray[Any], d_model: int, base: float
) -> str | None:
    """The sentence for saved ``output`` (n, d_model) at ``positions`` (n,); None when the
    file holds no finite row to compare."""
    y = np.asarray(output, dtype=np.float64)
    p = np.asarray(positions, dtype=np.float64)
    finite = np.all(np.isfinite(y), axis=1)
    if not finite.any() or d_model < 4:
        return None
    y, p = y[finite], p[finite]
    found = _measured_member(y, p, d_model, base) or _closest(y, p, d_model, base)
    if found is None:
        return None
    error, c, swapped = found
    if swapped and error <= REACH:
        return (
            f"the saved rows are the {_name(c)} table with sin and cos swapped within each "
            f"pair (cos in the even columns, sin in the odd ones) within {error:.3g}"
        )
    what = "the canonical convention" if c == Convention() else _name(c)
    if error <= REACH:
        found_text = f"the saved rows are {what} within {error:.3g} (the closest member tried)"
        stage = _coarse_stage(y, p, c, (d_model, base))
        if stage == "" and not _float32_table(y, p, c, (d_model, base)):
            shim = SimpleNamespace(convention=c, base_for=lambda b: b, scale_for=lambda d: 1.0)
            growth = phase_error_growth(shim, p, y, base)
            stage = f", but coarser than a float32 table ({growth})" if growth else ""
        return found_text + stage
    unit = 2.0 ** -SIGNIFICAND_BITS.get(str(np.asarray(output).dtype), 53)
    measured = _measured(y, p, c, (d_model, base, unit)) if _unit_pairs(y, c, swapped) else ""
    if measured:
        return f"the saved rows follow {what} at their first positions, but{measured}"
    return (
        f"no convention within reach of a file (layouts × frequency shift 0/1 × positions "
        f"offset 0/±1 × sign) is within {REACH:g} of the saved rows; the closest, "
        f"{_name(c)}, is off by {error:.3g}"
    )


def _closest(
    y: NDArray[Any], p: NDArray[Any], d_model: int, base: float
) -> tuple[float, Convention, bool] | None:
    """(max error over every row, member, sin/cos swapped) of the member closest on the
    first 16 rows (where a coarse stage or a growing error is smallest)."""
    head = slice(0, min(16, len(p)))
    best: tuple[float, float, Convention, bool] | None = None
    members = itertools.product(LAYOUTS, (0.0, 1.0), (0, 1, -1), (1.0, -1.0))
    for layout, shift, offset, sign in members:
        c = Convention(
            layout=layout, frequency_shift=shift, position_offset=offset, argument_scale=sign
        )
        try:
            exact = exact_encode(p, d_model, base=base, convention=c)
        except (ValueError, OverflowError):
            continue
        for swap in (False, True) if layout == "interleaved" else (False,):
            rows = exact.reshape(len(p), -1, 2)[:, :, ::-1].reshape(exact.shape) if swap else exact
            first = float(np.max(np.abs(y[head] - rows[head])))
            if best is None or first < best[0]:
                best = (first, float(np.max(np.abs(y - rows))), c, swap)
    return None if best is None else best[1:]


def _measured_member(
    y: NDArray[Any], p: NDArray[Any], d_model: int, base: float
) -> tuple[float, Convention, bool] | None:
    """The member read from measurements (consecutive integer positions only): the layout
    from the slowest quarter of pairs (whose angles stay near 0), the angle's sign from the
    measured rates, the offset from each line's value at p = 0 (φ̂_k(0) = ω̂_k·o), the
    frequency shift (0 or 1) by the smaller error; None when the rates are not measurable."""
    head = np.abs(p) <= 16
    if head.sum() < 4:
        return None
    slow = slice(3 * d_model // 4 // 2 * 2, d_model)
    best: tuple[float, Layout, bool] | None = None
    layouts: tuple[Layout, ...] = ("interleaved", "sin_cos_halves", "cos_sin_halves")
    for layout in layouts:
        exact = exact_encode(p[head], d_model, base=base, convention=Convention(layout=layout))
        for swap in (False, True) if layout == "interleaved" else (False,):
            rows = _swapped(exact) if swap else exact
            cols = np.arange(d_model)[slow] if layout == "interleaved" else _slow_cols(d_model)
            error = float(np.max(np.abs(y[head][:, cols] - rows[:, cols])))
            if best is None or error < best[0]:
                best = (error, layout, swap)
    assert best is not None
    _, layout, swap = best
    rows_y = _swapped(y) if swap else y
    found = measured_omegas(rows_y, p, Convention(layout=layout), d_model)
    if found is None:
        return None
    omegas, _, intercept = found
    sign = -1.0 if float(np.median(omegas)) < 0 else 1.0
    usable = (np.abs(omegas) > 1e-3) & (np.abs(omegas) < 0.5)
    offset = 0
    if usable.any():
        o = float(np.median(intercept[usable] / omegas[usable]))
        offset = round(o) if abs(o - round(o)) < 0.1 and abs(round(o)) <= 1 else 0
    scored = []
    for shift in (0.0, 1.0):
        c = Convention(
            layout=layout, frequency_shift=shift, position_offset=offset, argument_scale=sign
        )
        exact = exact_encode(p, d_model, base=base, convention=c)
        scored.append((float(np.max(np.abs(rows_y - exact))), shift, c))
    error, _, c = min(scored, key=lambda t: (t[0], t[1]))
    if error > REACH:  # neither law: the frequencies are measured against the canonical one
        error, _, c = scored[0]
    return error, c, swap


def _unit_pairs(y: NDArray[Any], c: Convention, swapped: bool) -> bool:
    """Whether every row's (sin, cos) pairs in ``c``'s layout lie on the unit circle within
    1e-2 (rows of a rotation; noise or a wrong layout does not)."""
    d_model = y.shape[1]
    rows = _swapped(y) if swapped else y
    radius = np.hypot(rows[:, c.sin_columns(d_model)], rows[:, c.cos_columns(d_model)])
    return bool(np.all(np.abs(radius - 1) <= 1e-2))


def _swapped(rows: NDArray[Any]) -> NDArray[Any]:
    """sin and cos exchanged within each interleaved pair."""
    return rows.reshape(rows.shape[0], -1, 2)[:, :, ::-1].reshape(rows.shape)


def _slow_cols(d_model: int) -> NDArray[np.intp]:
    """The columns of the slowest quarter of pairs in a halves layout."""
    half = d_model // 2
    start = 3 * half // 4
    return np.concatenate([np.arange(start, half), np.arange(half + start, d_model)])


def _rounded_rows(y: NDArray[Any], p: NDArray[Any], c: Convention, request: Any) -> str | None:
    """The positions or the angle rounded to a 16-bit format, when the rows are exactly
    that (within a float32 table's bound; one 16-bit rounding step allowed where the
    float32 product sits on a rounding boundary)."""
    d_model, base = request
    u = 2.0**-24
    k = np.arange(d_model // 2, dtype=np.float64)
    omegas = base ** (-k / c.denominator(d_model))
    arg = (p + c.position_offset) * c.argument_scale
    bound = np.abs(arg)[:, None] * 16 * u + 4 * u
    for name, dtype in (("float16", np.float16), ("bfloat16", DTYPES["bfloat16"])):
        rounded_p = (p + c.position_offset).astype(dtype).astype(np.float64)
        if not np.array_equal(rounded_p, p + c.position_offset):
            rows = exact_encode(rounded_p - c.position_offset, d_model, base=base, convention=c)
            if np.all(np.abs(y - rows) <= bound):
                return (
                    f" the positions are rounded to {name} before the angle (the row of p is "
                    f"the exact row of {name}(p))"
                )
        phase = arg[:, None] * omegas[None, :]
        coarse = phase.astype(dtype).astype(np.float64)
        rows = np.empty_like(y)
        rows[:, c.sin_columns(d_model)] = np.sin(coarse)
        rows[:, c.cos_columns(d_model)] = np.cos(coarse)
        step = np.empty_like(y)  # one rounding step of the angle, per column
        step[:, c.sin_columns(d_model)] = np.abs(coarse) * 2.0 ** (1 - SIGNIFICAND_BITS[name])
        step[:, c.cos_columns(d_model)] = step[:, c.sin_columns(d_model)]
        close = np.abs(y - rows) <= bound
        near = np.abs(y - rows) <= bound + step
        if np.all(near) and close.mean() >= 0.99 and not np.array_equal(coarse, phase):
            return f" the angle p·ω is rounded to {name} (sin and cos of {name}(p·ω))"
    return None


def _measured(y: NDArray[Any], p: NDArray[Any], c: Convention, request: Any) -> str:
    """What the rows show against member ``c`` when it is not within reach: one 16-bit
    stage, the frequency law measured per pair, or the growth law of the phase error;
    '' when none is measurable."""
    d_model, base = request[:2]
    stage = _coarse_stage(y, p, c, request[:2])
    if stage:
        return f" {stage[2:]}"
    rounded = _rounded_rows(y, p, c, request[:2])
    if rounded:
        return rounded
    found = measured_omegas(y, p, c, d_model, request[2] if len(request) > 2 else 2.0**-24)
    law = None if found is None else frequency_law(found[0], found[1], d_model, base, c)
    if law is not None:
        return f" {law}"
    shim = SimpleNamespace(convention=c, base_for=lambda b: b, scale_for=lambda d: 1.0)
    growth = phase_error_growth(shim, p, y, base)
    if growth is not None:
        return f" the output departs from it as the positions grow ({growth})"
    return ""
