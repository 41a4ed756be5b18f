"""The floating-point formats pespec knows (SPEC §4): their names and NumPy dtypes, significand
bits, unit roundoff, exponent ranges, largest finite values, the spacing of a format (ulp), the
rounding term ½·ulp, Higham's γ(n), and c_f, the accuracy assumed of library functions.

Everything is float64 NumPy; arrays keep the shape of their argument.
"""

from __future__ import annotations

from typing import Any, Final

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DTYPES",
    "FUNCTION_ULPS",
    "LIBRARY_ULPS",
    "MAX_FINITE",
    "MIN_EXPONENT",
    "SIGNIFICAND_BITS",
    "dtype_name",
    "gamma",
    "rounding_term",
    "ulp",
    "ulp_below_one",
    "unit_roundoff",
]

DTYPES: dict[str, np.dtype[Any]] = {
    "float64": np.dtype(np.float64),
    "float32": np.dtype(np.float32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
}
"""The floating-point formats pespec knows, by name."""

SIGNIFICAND_BITS: dict[str, int] = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}
"""p, the significand precision including the hidden bit (IEEE 754-2008 Table 3.5; bfloat16: 8)."""


def unit_roundoff(name: str) -> float:
    """u = 2^-p for a format with p significand bits (including the hidden bit)."""
    return 2.0 ** -SIGNIFICAND_BITS[name]


def dtype_name(dtype: Any) -> str | None:
    """The pespec name of a NumPy/ml_dtypes dtype (a key of DTYPES), or None when pespec
    does not know it. The one dtype-to-name rule of the package."""
    for name, known in DTYPES.items():
        if dtype == known:
            return name
    return None


LIBRARY_ULPS: Final = 4.0
"""c_f, the accuracy assumed of library sin, cos, exp, log and pow in every working format and
in every family: within this many ulps of the result (SPEC §4.1 A2; the published figures,
the weakest 4 ulp, in Annex A.4)."""

FUNCTION_ULPS: dict[str, float] = dict.fromkeys(
    ("float64", "float32", "float16", "bfloat16"), LIBRARY_ULPS
)
"""c_f per working format T_work: :data:`LIBRARY_ULPS` for each (SPEC §4.1 A2)."""

MIN_EXPONENT: dict[str, int] = {"float64": -1022, "float32": -126, "float16": -14, "bfloat16": -126}
"""e_min of each format (IEEE 754-2008 Table 3.5; bfloat16 shares float32's exponent range)."""

MAX_FINITE: dict[str, float] = {
    name: float(np.finfo(dtype).max) for name, dtype in DTYPES.items() if name != "bfloat16"
}
MAX_FINITE["bfloat16"] = float(np.finfo(np.float32).max) * (1.0 - 2.0**-8)
"""Largest finite value of each format (bfloat16's, float32's times 1 − 2^-8, lies a hair below
its true (2 − 2^-7)·2^127: a larger |q| counts as overflow, a sound choice)."""


def gamma(n: NDArray[np.float64] | float, u: float) -> NDArray[np.float64]:
    """γ(n) = n·u/(1 − n·u): bound on |Π(1 + δ_j) − 1| for n factors with |δ_j| ≤ u (Higham,
    *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Lemma 3.1); inf when n·u ≥ 1."""
    nu = np.asarray(n, dtype=np.float64) * u
    with np.errstate(divide="ignore"):
        return np.where(nu < 1.0, nu / np.maximum(1.0 - nu, 0.0), np.inf)


def ulp_below_one(magnitude: NDArray[np.float64], dtype_name: str) -> NDArray[np.float64]:
    """Spacing of ``dtype_name`` at |v| for 0 ≤ |v| ≤ 1, using the binade [1/2, 1) at |v| = 1.

    A value |v| ≤ 1 rounds to nearest with error ≤ half this spacing (1 is representable).
    Subnormals: the spacing never drops below 2^(e_min − p + 1). Shape as ``magnitude``.
    """
    p = SIGNIFICAND_BITS[dtype_name]
    a = np.asarray(np.abs(np.asarray(magnitude, dtype=np.float64)))  # new: changed in place
    np.minimum(a, 1.0, out=a)
    # 2^floor(log2 a): a's exponent bits with a zero significand (0 for a subnormal float64,
    # inf for NaN); clipped to the binades [2^e_min, 1/2]. frexp(0) has exponent 0, so a = 0
    # takes the binade [1/2, 1) like a = 1. Bit for bit 2^clip(frexp(a)[1] − 1, e_min, −1),
    # without frexp/ldexp (the conformance suite's hottest loop).
    power = np.asarray((a.view(np.int64) & 0x7FF0000000000000).view(np.float64))
    np.clip(power, 2.0 ** MIN_EXPONENT[dtype_name], 0.5, out=power)
    np.copyto(power, 0.5, where=a == 0.0)
    spacing: NDArray[np.float64] = power * 2.0 ** (1 - p)
    return spacing


def ulp(magnitude: NDArray[np.float64], dtype_name: str) -> NDArray[np.float64]:
    """Spacing of ``dtype_name`` at |v| for any finite |v| (subnormals included)."""
    p = SIGNIFICAND_BITS[dtype_name]
    _, exponent = np.frexp(np.abs(magnitude))
    binade = np.maximum(exponent.astype(np.int64) - 1, MIN_EXPONENT[dtype_name])
    spacing: NDArray[np.float64] = np.ldexp(1.0, binade - p + 1)
    return spacing


def rounding_term(magnitude: NDArray[np.float64], dtype_name: str) -> NDArray[np.float64]:
    """½·ulp*(min(|v|, 1)): the largest error of rounding a value of size ≤ |v| ≤ 1 to nearest."""
    half: NDArray[np.float64] = 0.5 * ulp_below_one(magnitude, dtype_name)
    return half
