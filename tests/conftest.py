"""Shared test configuration.

Activates the derandomized ``ci`` Hypothesis profile unless PESPEC_PROFILE names another,
and restores the global precision of mpmath, gmpy2 and decimal after every test, so a test
that sets one cannot change the outcome of a later test.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterator

import gmpy2
import mpmath
import pytest

from pespec.conformance.profiles import load_profile

load_profile()


@pytest.fixture(autouse=True)
def _restore_global_precision() -> Iterator[None]:
    mpmath_prec = mpmath.mp.prec
    gmpy2_context = gmpy2.get_context().copy()
    decimal_context = decimal.getcontext().copy()
    try:
        yield
    finally:
        mpmath.mp.prec = mpmath_prec
        gmpy2.set_context(gmpy2_context)
        decimal.setcontext(decimal_context)
