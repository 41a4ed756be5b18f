"""The numerical ground floor: facts and kernels that name no encoding family.

* :mod:`~pespec.numerics.formats`: the floating-point formats (dtypes, significand bits,
  ulp, unit roundoff, Higham's γ) and the one accuracy assumed of library functions;
* :mod:`~pespec.numerics.validation`: the generic argument validators (positions, ints,
  probabilities, finite arrays, random generators);
* :mod:`~pespec.numerics.angle`: the exact angle kernel (turn pieces, error-free
  transformations, double-double sin/cos, block rotation), its circle table
  (:mod:`~pespec.numerics.circle`) and compiled kernels (:mod:`~pespec.numerics.kernels`);
* :mod:`~pespec.numerics.rounding`: certified rounding of MPFR values (Ziv's strategy);
* :mod:`~pespec.numerics.ratio`: an error against its bound, and the one worst-ratio
  accumulator;
* :mod:`~pespec.numerics.growth`: the growth law of a phase error (constant, ∝√p, ∝p, …,
  a step), shared by the families' diagnoses;
* :mod:`~pespec.numerics.problems`: what is wrong with an output array (OutputProblem,
  first_non_finite).

Every module here imports nothing of pespec but this package, ``pespec._version``,
``pespec._atomic`` and ``pespec._exports`` (``tests/project/test_numerics_floor.py``).
"""

from __future__ import annotations

from pespec._exports import lazy_exports as _lazy_exports

__all__ = [
    "circle",
    "formats",
    "kernels",
    "problems",
    "ratio",
    "rotation",
    "rounding",
    "turns",
    "validation",
]

__getattr__, __dir__ = _lazy_exports(__name__, {name: f"{__name__}.{name}" for name in __all__})
