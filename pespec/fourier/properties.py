"""The properties of the Fourier family (SPEC §10.6), written once for the suite and the tests.

Each property takes an output (n, D) of a convention at inputs x (n, k) and returns its
residuals and their bounds, both (n, M), derived from the error model (SPEC §10.4); a
property holds when every residual is within its bound. E = (2c_f + 1)·u below is the part
of an element's error that is not the angle's (F3).

* ``bounded``: |sin a|, |cos a| ≤ 1: residual max(|y| − 1, 0), bound E (F3: the library's
  value lies within c_f ulps of one in [−1, 1], then is rounded; the angle's error moves the
  value along [−1, 1] and never beyond it).
* ``pythagoras``: sin²a + cos²a = 1 per angle. Both elements are of the same computed angle
  â, so the angle's error cancels: with s = sin â + η, c = cos â + ζ, |η|, |ζ| ≤ E,
  |s² + c² − 1| ≤ 2(|η| + |ζ|) + η² + ζ² ≤ 4E + 2E², plus 4·2^-53 for evaluating it in float64,
  plus the one rounding by which a cosine written as sin(â + π/2) (F1's phase addition,
  nerfstudio's form) has another angle: u_w·(|â| + π).
* ``doubling`` (base2 law only): sin(2^(e+1)x) = 2 sin(2^e x) cos(2^e x) for consecutive
  bands of one coordinate. With errors δ_{j+1}, δ_j ≤ the element bounds b_{j+1}, b_j,
  |s_{j+1} − 2 s_j c_j| ≤ b_{j+1} + 4b_j + 2b_j², plus 4·2^-53 for the float64 evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from pespec.fourier.convention import FourierConvention
from pespec.fourier.errormodel import CAST_LEVELS, element_bounds
from pespec.fourier.oracle import angle_terms
from pespec.numerics.formats import LIBRARY_ULPS, unit_roundoff

__all__ = ["PROPERTIES", "Property", "applicable", "evaluate"]

F64 = NDArray[np.float64]
EVAL = 4 * 2.0**-53


@dataclass(frozen=True)
class Property:
    """One property: its name, SPEC section, statement and residual/bound function."""

    name: str
    section: str
    statement: str
    residuals: Callable[[F64, F64, FourierConvention, str], tuple[F64, F64]]


def _columns(conv: FourierConvention, kind: str) -> list[int]:
    """The output column of ``kind`` (sin/cos) for each angle, in angle order."""
    where = {j: c for c, (k, j) in enumerate(conv.columns()) if k == kind}
    return [where[j] for j in range(conv.angles)]


def _bounded(out: F64, x: F64, conv: FourierConvention, level: str) -> tuple[F64, F64]:
    trig = _columns(conv, "sin") + _columns(conv, "cos")
    excess = np.maximum(np.abs(out[:, trig]) - 1.0, 0.0)
    return excess, np.full_like(excess, (2 * LIBRARY_ULPS + 1) * unit_roundoff(level))


def _pythagoras(out: F64, x: F64, conv: FourierConvention, level: str) -> tuple[F64, F64]:
    sin, cos = _columns(conv, "sin"), _columns(conv, "cos")
    s, c = out[:, sin], out[:, cos]
    e = (2 * LIBRARY_ULPS + 1) * unit_roundoff(level)
    residual = np.abs(s * s + c * c - 1.0)
    return residual, 4 * e + 2 * e * e + EVAL + _phase_shift(x, conv, level, sin)


def _phase_shift(x: F64, conv: FourierConvention, level: str, sin: list[int]) -> F64:
    """What the cosine's angle may differ from the sine's by (n, m): F1 allows cos a as
    sin(fl(â + fl(π/2))) (nerfstudio), whose sum rounds once more in the working format:
    ≤ u_w·(|â| + π/2) + u_w·π/2, |â| ≤ A_j + b_j (b_j the element bound). cos² moves by at
    most that much (|d cos²θ/dθ| = |sin 2θ| ≤ 1)."""
    work = "float32" if level in CAST_LEVELS else level
    u = unit_roundoff(work)
    angle = angle_terms(x, conv) + element_bounds(x, conv, work)[:, sin]
    shift: F64 = u * (angle + np.pi) * (1 + 2.0**-40)
    return shift


def _pairs(conv: FourierConvention) -> list[tuple[int, int]]:
    """(angle of band j, angle of band j + 1) on each coordinate (base2 law)."""
    index = {pair: a for a, pair in enumerate(conv.angle_index())}
    return [
        (index[(j, i)], index[(j + 1, i)])
        for i in range(conv.in_dims)
        for j in range(conv.bands - 1)
    ]


def _doubling(out: F64, x: F64, conv: FourierConvention, level: str) -> tuple[F64, F64]:
    pairs = _pairs(conv)
    if not pairs:
        empty = np.zeros((out.shape[0], 0))
        return empty, empty
    low, high = [p for p, _ in pairs], [q for _, q in pairs]
    sin, cos = _columns(conv, "sin"), _columns(conv, "cos")
    bounds = element_bounds(x, conv, level)
    b_low = np.maximum(bounds[:, [sin[a] for a in low]], bounds[:, [cos[a] for a in low]])
    b_high = bounds[:, [sin[a] for a in high]]
    s_low, c_low = out[:, [sin[a] for a in low]], out[:, [cos[a] for a in low]]
    residual = np.abs(out[:, [sin[a] for a in high]] - 2.0 * s_low * c_low)
    return residual, b_high + 4 * b_low + 2 * b_low * b_low + EVAL


PROPERTIES: dict[str, Property] = {
    p.name: p
    for p in (
        Property("bounded", "§10.6", "every sine and cosine lies in [-1, 1]", _bounded),
        Property("pythagoras", "§10.6", "sin²a + cos²a = 1 for every angle", _pythagoras),
        Property(
            "doubling",
            "§10.6",
            "sin(2^(e+1)x) = 2 sin(2^e x) cos(2^e x) for consecutive base-2 bands",
            _doubling,
        ),
    )
}


def applicable(conv: FourierConvention) -> list[str]:
    """The properties that hold for ``conv`` (doubling: base2 law with two bands or more)."""
    names = ["bounded", "pythagoras"]
    if conv.law == "base2" and conv.bands > 1:
        names.append("doubling")
    return names


def evaluate(
    name: str, out: F64, x: F64, conv: FourierConvention, level: str
) -> tuple[bool, float, float, tuple[int, int] | None]:
    """(holds, worst residual, its bound, where: (row, index) of the worst ratio or None)."""
    residual, bound = PROPERTIES[name].residuals(out, x, conv, level)
    if residual.size == 0:
        return True, 0.0, 0.0, None
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(residual == 0, 0.0, residual / bound)
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    holds = bool(np.all(residual <= bound))
    return holds, float(residual[r, c]), float(bound[r, c]), (int(r), int(c))
