"""One rule for an error against its bound, shared by every comparison (issue 13).

The properties (:mod:`pespec.properties`), the comparison engine
(:mod:`pespec.conformance.compare`), the report (:attr:`CheckResult.ratio`) and the rotary
suite all judge |error| against a tolerance with these two rules, written once:

* non-finite rule: an error that is not finite (the output held NaN or ±Inf) is infinite;
* ratio rule: error / bound where the bound is positive; where it is 0 (or not positive), 0
  for an exact value and infinite otherwise. A ratio ≤ 1 passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["error_ratio", "finite_error", "reported_ratio", "scalar_ratio"]


def finite_error(error: ArrayLike) -> NDArray[np.float64]:
    """``error`` as float64 with every non-finite element (NaN, ±Inf) made +inf."""
    values = np.asarray(error, dtype=np.float64)
    result: NDArray[np.float64] = np.where(np.isfinite(values), values, np.inf)
    return result


def error_ratio(error: ArrayLike, bound: ArrayLike) -> NDArray[np.float64]:
    """Element-wise error / bound under the ratio rule (same broadcast shape as the inputs)."""
    errors = finite_error(error)
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
