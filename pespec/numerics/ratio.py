"""One rule for an error against its bound, and the one worst-ratio accumulator (issue 13, 25).

Every comparison of pespec (the properties, the comparison engine, the report's ratio, the
checks of saved outputs, every family) judges |error| against a tolerance with these rules,
written once:

* non-finite rule: an error that is not finite (the output held NaN or ±Inf) is infinite;
* ratio rule: error / bound where the bound is positive; where it is 0 (or not positive), 0
  for an exact value and infinite otherwise. A ratio ≤ 1 passes.
* worst rule (:func:`worst_index`, :func:`is_worse`, :class:`WorstRatio`): the worst element
  of an array is the first (C order) of largest ratio, a NaN ratio counting as +inf; across
  blocks or candidates a later one replaces the worst so far only when its ratio is strictly
  larger (the first of equal ratios stays; a NaN never replaces). The accumulator starts at
  ratio −1, so the first element of a non-empty block is always taken, even at ratio 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "WorstRatio",
    "error_ratio",
    "finite_error",
    "is_worse",
    "reported_ratio",
    "scalar_ratio",
    "worst_index",
]


def finite_error(error: ArrayLike) -> NDArray[np.float64]:
    """``error`` as float64 with every non-finite element (NaN, ±Inf) made +inf."""
    values = np.asarray(error, dtype=np.float64)
    result: NDArray[np.float64] = np.where(np.isfinite(values), values, np.inf)
    return result


def error_ratio(error: ArrayLike, bound: ArrayLike) -> NDArray[np.float64]:
    """Element-wise error / bound under the ratio rule (same broadcast shape as the inputs)."""
    return _finite_ratio(finite_error(error), bound)


def _finite_ratio(errors: NDArray[np.float64], bound: ArrayLike) -> NDArray[np.float64]:
    """:func:`error_ratio` of errors already through :func:`finite_error` (no NaN in the
    result): the comparison loop's errors, which need not pass through it again."""
    bounds = np.asarray(bound, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(bounds > 0, errors / bounds, np.where(errors > 0, np.inf, 0.0))
    result: NDArray[np.float64] = np.where(np.isnan(ratio), np.inf, ratio)
    return result


def scalar_ratio(error: float, bound: float) -> float:
    """The ratio rule for one error and its bound."""
    return float(error_ratio(error, bound))


def reported_ratio(
    details: Mapping[str, Any], max_error: float | None, bound: float | None
) -> float | None:
    """A check's worst ratio: ``details["max_ratio"]`` when it reports one, else the ratio
    rule on its worst element; None when it reports no numbers (no output)."""
    reported = details.get("max_ratio")
    if isinstance(reported, (int, float)) and not isinstance(reported, bool):
        return float(reported)
    if max_error is None or bound is None:
        return None
    return scalar_ratio(float(max_error), float(bound))


def _worst_flat(ratio: NDArray[np.float64]) -> int:
    """Flat (C order) index of the first largest ratio, NaN counting as +inf."""
    return int(np.argmax(np.where(np.isnan(ratio), np.inf, ratio)))


def worst_index(ratio: NDArray[np.float64]) -> tuple[int, ...]:
    """Index of the largest ratio, the first in C order (NaN counts as worst)."""
    return tuple(int(i) for i in np.unravel_index(_worst_flat(ratio), np.shape(ratio)))


def is_worse(candidate: float, current: float | None) -> bool:
    """True when a candidate of ratio ``candidate`` replaces the worst so far (ratio
    ``current``, None when there is none yet): strictly larger only, so ties keep the first."""
    return current is None or candidate > current


@dataclass
class WorstRatio:
    """The worst error/bound ratio over blocks of elements (the worst rule of this module).

    ``ratio`` is −1 until an element is folded; ``error`` and ``bound`` belong to the worst
    element; ``compared`` counts the elements folded. Where the worst element is (its
    position, its column) is the caller's to record: :meth:`fold` returns its flat index in
    the block when the block holds a new worst.
    """

    ratio: float = -1.0
    error: float | None = None
    bound: float | None = None
    compared: int = 0

    def fold(self, error: ArrayLike, bound: ArrayLike) -> int | None:
        """Fold one block of |error| against ``bound`` (broadcast to one shape).

        Returns the flat (C order) index of the block's worst element when it replaces the
        worst so far, else None (an empty block, or no strictly larger ratio).
        """
        return self.fold_finite(finite_error(error), bound)

    def fold_finite(self, errors: NDArray[np.float64], bound: ArrayLike) -> int | None:
        """:meth:`fold` of errors already through :func:`finite_error` (the comparison
        loop's: one pass over the block fewer)."""
        self.compared += int(errors.size)
        if errors.size == 0:
            return None
        ratio = _finite_ratio(errors, bound)
        flat = int(np.argmax(ratio))  # no NaN in ratio: _worst_flat's first largest
        value = float(ratio.reshape(-1)[flat])
        if not is_worse(value, self.ratio):
            return None
        bounds = np.broadcast_to(np.asarray(bound, dtype=np.float64), ratio.shape)
        self.ratio = value
        self.error = float(np.broadcast_to(errors, ratio.shape).reshape(-1)[flat])
        self.bound = float(bounds.reshape(-1)[flat])
        return flat
