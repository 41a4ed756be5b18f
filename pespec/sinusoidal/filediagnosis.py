"""A diagnosis line for a saved sinusoidal table (``--from-file``; issue 39 item 3).

No backend to call: the saved rows at their positions are compared with the exact encoding
of each convention within reach of a file alone: the three layouts × frequency shift 0 or
1 (base^(−k/(d/2)) or base^(−k/(d/2−1))) × positions offset by 0, +1 or −1, at the given
base. The closest member is named with its largest error; it explains the rows when that
error is within 1e-2 (the diagnosis's "within 1e-2 of exact" reach), else the sentence
says no member was within it.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.sinusoidal.reference.conventions import LAYOUTS, Convention
from pespec.sinusoidal.reference.exact import exact_encode

__all__ = ["file_diagnosis"]

REACH = 1e-2


def _name(c: Convention) -> str:
    shift = "base^(−k/(d/2−1))" if c.frequency_shift else "base^(−k/(d/2))"
    offset = f", positions shifted by {c.position_offset:+d}" if c.position_offset else ""
    return f"{c.layout.replace('_', ' ')} layout, ω_k = {shift}{offset}"


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
    best: tuple[float, Convention] | None = None
    for layout, shift, offset in itertools.product(LAYOUTS, (0.0, 1.0), (0, 1, -1)):
        c = Convention(layout=layout, frequency_shift=shift, position_offset=offset)
        try:
            exact = exact_encode(p, d_model, base=base, convention=c)
        except (ValueError, OverflowError):
            continue
        error = float(np.max(np.abs(y - exact)))
        if best is None or error < best[0]:
            best = (error, c)
    if best is None:
        return None
    error, c = best
    if error <= REACH:
        canonical = c == Convention()
        what = "the canonical convention" if canonical else _name(c)
        return f"the saved rows are {what} within {error:.3g} (the closest member tried)"
    return (
        f"no convention within reach of a file (layouts × frequency shift 0/1 × positions "
        f"offset 0/±1) is within {REACH:g} of the saved rows; the closest, {_name(c)}, is "
        f"off by {error:.3g}"
    )
