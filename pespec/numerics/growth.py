"""The growth law of a phase error (issue 39): one fit shared by every family's diagnosis.

:func:`growth_law`: the phase error e_j(p) of the pair where it is largest, fitted as
c (constant), c·√p, c·p, c·p^1.5, c·p² (up to the first position where it exceeds 1 rad:
beyond, the wrapped error hides its law) or a step (zero below a position, a constant
above; chosen only when it fits four times better). The law whose fitted residual is
smallest names the shape, with its coefficient. Family-neutral (every family's diagnosis
that fits a phase error calls it), so it lives with the numerics.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["growth_law"]

F64 = NDArray[np.float64]


def growth_law(errors: F64, positions: F64, noise: float) -> str | None:
    """The shape of the phase error of the pair where it is largest, named with its
    fitted coefficient: 'constant c rad', 'c·p', 'c·√p' or 'a step of c rad from
    position P'; None when the error stays within the noise.
    ``errors`` (m, pairs) wrapped phase errors at ``positions`` (m,)."""
    ok = np.isfinite(errors)
    if not ok.any():
        return None
    size = np.where(ok, np.abs(errors), 0.0)
    j = int(np.argmax(np.max(size, axis=0)))
    keep = ok[:, j] & (positions > 0)
    p, e = positions[keep], errors[keep, j]
    if p.size < 3 or float(np.max(np.abs(e))) <= 8 * noise:
        return None
    unwrapped = np.cumsum(np.abs(e) < 1.0) == np.arange(1, p.size + 1)
    if unwrapped.sum() >= 3:  # beyond 1 rad the wrapped error no longer shows its law
        p, e = p[unwrapped], e[unwrapped]
    laws: list[tuple[float, str]] = []
    bases = (("constant", p**0), ("p", p), ("√p", np.sqrt(p)), ("p^1.5", p**1.5), ("p²", p**2))
    for name, basis in bases:
        c = float(np.dot(basis, e) / np.dot(basis, basis))
        rms = float(np.sqrt(np.mean((e - c * basis) ** 2)))
        text = f"a constant {c:.4g} rad" if name == "constant" else f"{c:.4g}·{name} rad (∝{name})"
        laws.append((rms, text))
    best = min(laws, key=lambda t: t[0])
    steps: list[tuple[float, str]] = []
    for k in range(1, p.size):
        c = float(np.mean(e[k:]))
        step = np.where(np.arange(p.size) >= k, c, 0.0)
        rms = float(np.sqrt(np.mean((e - step) ** 2)))
        steps.append((rms, f"a step of {c:.4g} rad from position {int(p[k])}"))
    if steps:  # a step has a free position: it must fit far better than a power law
        step_best = min(steps, key=lambda t: t[0])
        if step_best[0] < 0.25 * best[0]:
            best = step_best
    rms, text = best
    return f"the phase error of pair {j} is {text} (fit rms {rms:.2g} rad)"
