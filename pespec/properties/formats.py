"""Facade: the floating-point format facts live in :mod:`pespec.numerics.formats` (issue 25).

Kept so that old imports (``from pespec.properties.formats import LIBRARY_ULPS``) keep working;
new code imports from :mod:`pespec.numerics.formats`.
"""

from __future__ import annotations

from pespec.numerics.formats import (
    FUNCTION_ULPS,
    LIBRARY_ULPS,
    MAX_FINITE,
    MIN_EXPONENT,
    gamma,
    rounding_term,
    ulp,
    ulp_below_one,
)

__all__ = [
    "FUNCTION_ULPS",
    "LIBRARY_ULPS",
    "MAX_FINITE",
    "MIN_EXPONENT",
    "gamma",
    "rounding_term",
    "ulp",
    "ulp_below_one",
]
