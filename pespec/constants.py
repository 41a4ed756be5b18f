"""The constants of SPEC Annex H and the user guide, computed with mpmath (SPEC Annex H).

The values of the tables that :mod:`pespec.specblocks.tables` renders (SPEC's generated blocks,
``pespec constants``). Nothing here uses pespec's floating-point code: exact values come
from mpmath, and each printed digit string is *certified* by computing it at two
working precisions (:data:`DIGITS` + 25 and + 50 decimal digits) and requiring the two
strings to agree (:func:`certified`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

import ml_dtypes
import mpmath
import numpy as np

__all__ = [
    "BASE",
    "DIGITS",
    "DIMENSIONS",
    "HALF_DTYPES",
    "QUOTED",
    "SOURCES",
    "QuotedValue",
    "certified",
    "exact_encoding",
    "exact_frequency",
    "exact_wavelength",
    "float64_of",
    "half_precision_rows",
    "quoted_number",
    "quoted_verdict",
    "significant",
]

BASE = 10000
"""The frequency base of Vaswani et al. (2017) §3.5, an exact integer."""

DIGITS = 30
"""Significant digits printed in the constant tables."""

DIMENSIONS: tuple[int, ...] = (64, 128, 256, 512, 768, 1024, 4096)
"""The model dimensions tabulated in SPEC Annex H.1."""

_GUARD_DIGITS = (25, 50)

Exact = Callable[[], Any]
"""A zero-argument function returning an mpmath number at the current working precision."""


def significant(value: Any, digits: int = DIGITS) -> str:
    """``value`` (an mpmath number) rounded to ``digits`` significant digits, zeros kept.

    Fixed notation from 1e-3 up to 1e12, scientific outside; exact zero is ``0``.
    """
    if value == 0:
        return "0"
    text: str = mpmath.nstr(value, digits, strip_zeros=False, min_fixed=-4, max_fixed=12)
    return text


def certified(exact: Exact, digits: int = DIGITS) -> str:
    """``exact()`` to ``digits`` significant digits, certified by two working precisions.

    Raises RuntimeError when the two evaluations round differently (the value sits too
    close to a rounding boundary for the guard digits; never happens for these tables).
    """
    texts = set()
    for guard in _GUARD_DIGITS:
        with mpmath.workdps(digits + guard):
            texts.add(significant(exact(), digits))
    if len(texts) != 1:
        raise RuntimeError(f"rounding to {digits} digits is not certified: {sorted(texts)}")
    return texts.pop()


def float64_of(exact: Exact) -> float:
    """The float64 nearest to ``exact()`` (round to nearest even), certified like
    :func:`certified`: evaluated with 120 and 200 bits, the two roundings must agree."""
    results = set()
    for bits in (120, 200):
        with mpmath.workprec(bits):
            results.add(float(exact()))
    if len(results) != 1:
        raise RuntimeError(f"float64 rounding is not certified: {sorted(results)}")
    return results.pop()


def exact_frequency(i: int, d_model: int, base: int = BASE) -> Any:
    """ω_i = base^(−2i/d) at the current mpmath precision (canonical convention)."""
    return mpmath.power(base, mpmath.mpf(-2 * i) / d_model)


def exact_wavelength(i: int, d_model: int, base: int = BASE) -> Any:
    """λ_i = 2π/ω_i = 2π·base^(2i/d), in positions, at the current mpmath precision."""
    return 2 * mpmath.pi * mpmath.power(base, mpmath.mpf(2 * i) / d_model)


def exact_encoding(position: int, column: int, d_model: int, base: int = BASE) -> Any:
    """PE(position, column) of the canonical interleaved encoding, at the current precision."""
    angle = position * exact_frequency(column // 2, d_model, base)
    return mpmath.sin(angle) if column % 2 == 0 else mpmath.cos(angle)


# --- commonly quoted values ---------------------------------------------------------------

SOURCES: dict[str, str] = {
    "tutorial": "theory, a PyTorch module, `choose_base`, pitfalls",
    "course": '"what to implement", "test cases to cover"',
    "walkthrough": "the common PyTorch `PositionalEncoding` module (d_model = 256)",
    "summary": "bounded values, wavelength progression",
}
"""The kinds of text the quoted values come from, with what each covers. Each circulates in
many copies, so none is cited by address: the source column names the kind and the passage."""


@dataclass(frozen=True)
class QuotedValue:
    """A number as a tutorial prints it, and how to compute the true value.

    ``claim`` is ``"≈"`` when the quote is a rounding (correct when the exact value rounds
    to it at the decimals shown) and ``"="`` when it is stated as exact.
    """

    quantity: str
    quoted: str
    source: str
    exact: Exact
    claim: Literal["≈", "="] = "≈"


def _choose_base(typical_seq_len: int) -> Any:
    """The overview's ``choose_base``: 10·L/(2π), from its premise λ_max = 2π·base."""
    return 10 * typical_seq_len / (2 * mpmath.pi)


QUOTED: tuple[QuotedValue, ...] = (
    QuotedValue("ω_1, d = 512 (second pair)", "0.681", "tutorial §Dimension Indices",
                lambda: exact_frequency(1, 512)),
    QuotedValue("ω_2, d = 512", "0.464", "tutorial §Dimension Indices",
                lambda: exact_frequency(2, 512)),
    QuotedValue("ω_255, d = 512 (lowest frequency)", "0.00010000",
                "tutorial §Frequency Calculation (printed output)",
                lambda: exact_frequency(255, 512)),
    QuotedValue("ω_(d/2−1), lowest frequency, d = 512", "1/10000", "course §Frequency structure",
                lambda: exact_frequency(255, 512), "="),
    QuotedValue("λ_255, d = 512 (longest wavelength)", "62,832",
                "tutorial §Wavelengths, course, summary",
                lambda: exact_wavelength(255, 512)),
    QuotedValue("λ_31, d = 64 (last column's wavelength)", "62,832",
                "course test cases (reference config d = 64)", lambda: exact_wavelength(31, 64)),
    QuotedValue("λ_0 (shortest wavelength, any d)", "6.28", "tutorial §Wavelengths",
                lambda: exact_wavelength(0, 512)),
    QuotedValue("ω for columns (d/4, d/4+1), i.e. pair d/8, d = 512", "0.01",
                "course frequency table", lambda: exact_frequency(64, 512)),
    QuotedValue("ω_1, d = 256", "0.97", "walkthrough §Frequency Analysis",
                lambda: exact_frequency(1, 256)),
    QuotedValue("ω_2, d = 256", "0.95", "walkthrough §Frequency Analysis",
                lambda: exact_frequency(2, 256)),
    QuotedValue("ω_127, d = 256 (columns 254, 255)", "0.001", "walkthrough §Frequency Analysis",
                lambda: exact_frequency(127, 256)),
    QuotedValue("PE(9, 252), d = 256", "0.009", "walkthrough §Low-Frequency Dimensions",
                lambda: exact_encoding(9, 252, 256)),
    QuotedValue("PE(10, 0) = sin 10 (any d)", "0.0", "tutorial §Why Multiple Frequencies?",
                lambda: exact_encoding(10, 0, 4)),
    QuotedValue("PE(10, 1) = cos 10 (any d)", "1.0", "tutorial §Why Multiple Frequencies?",
                lambda: exact_encoding(10, 1, 4)),
    QuotedValue("PE(10, 2), d = 4", "0.67", "tutorial §Why Multiple Frequencies?",
                lambda: exact_encoding(10, 2, 4)),
    QuotedValue("PE(10, 3), d = 4", "0.74", "tutorial §Why Multiple Frequencies?",
                lambda: exact_encoding(10, 3, 4)),
    QuotedValue("PE(10, 2), d = 512", "0.67", "tutorial §Why Multiple Frequencies?",
                lambda: exact_encoding(10, 2, 512)),
    QuotedValue("PE(1, 3) = cos 0.01, d = 4", "1.0000", "tutorial §Code Walkthrough",
                lambda: exact_encoding(1, 3, 4)),
    QuotedValue("PE(2, 3) = cos 0.02, d = 4", "1.0000", "tutorial §Code Walkthrough",
                lambda: exact_encoding(2, 3, 4)),
    QuotedValue("PE(1, 3) = cos 0.01, d = 4 (to 5 decimals)", "0.99995", "course small example",
                lambda: exact_encoding(1, 3, 4)),
    QuotedValue("PE(2, 3) = cos 0.02, d = 4 (to 4 decimals)", "0.9998", "course small example",
                lambda: exact_encoding(2, 3, 4)),
    QuotedValue("PE(2, 1) = cos 2, d = 4", "-0.4161", "tutorial §Code Walkthrough, course",
                lambda: exact_encoding(2, 1, 4)),
    QuotedValue("choose_base(512) = 5120/(2π)", "814", "tutorial §Base Adjustment",
                lambda: _choose_base(512)),
    QuotedValue("choose_base(4096) = 40960/(2π)", "6511", "tutorial §Base Adjustment",
                lambda: _choose_base(4096)),
    QuotedValue("longest wavelength, d = 512, base = choose_base(512) (its target)", "5120",
                "tutorial §Base Adjustment (λ_max = 2π·base)",
                lambda: 2 * mpmath.pi * mpmath.power(_choose_base(512), mpmath.mpf(510) / 512)),
    QuotedValue("base whose longest wavelength is 5120 at d = 512: (5120/(2π))^(512/510)",
                "814", "tutorial §Base Adjustment",
                lambda: mpmath.power(_choose_base(512), mpmath.mpf(512) / 510)),
)  # fmt: skip
"""Numbers that widely copied teaching texts print, each with the computation of its true value."""


def quoted_number(text: str) -> Decimal:
    """A quoted number as printed (``"62,832"``, ``"1/10000"``) as an exact Decimal."""
    if "/" in text:
        numerator, denominator = text.split("/")
        return Decimal(numerator.replace(",", "")) / Decimal(denominator.replace(",", ""))
    return Decimal(text.replace(",", ""))


def quoted_verdict(quoted: str, exact: Any, claim: str = "≈") -> bool:
    """True when ``quoted`` is right: for ``≈``, ``exact`` rounds to it at the decimals shown
    (|exact − quoted| ≤ half a unit in the last place); for ``=``, it equals ``exact``
    to the working precision."""
    value = quoted_number(quoted)
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):
        raise ValueError(f"quoted must be a finite decimal number; got {quoted!r}")
    with mpmath.workdps(DIGITS + 25):  # independent of the caller's mpmath precision
        difference = abs(mpmath.mpf(exact) - mpmath.mpf(str(value)))
        if claim == "=":
            return bool(difference <= abs(mpmath.mpf(exact)) * mpmath.eps * 16)
        half_unit = mpmath.mpf(10) ** exponent / 2
        return bool(difference <= half_unit)


# --- half precision: safe to store, not safe to compute in ---------------------------------

HALF_DTYPES: dict[str, Any] = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
"""The half-precision formats of the FAQ's table, by name."""


def half_precision_rows(
    positions: Sequence[int] = (10, 100, 1000, 2049, 10000), d_model: int = 512
) -> list[tuple[int, str, float, float]]:
    """(position, dtype, max |error| when stored, max |error| when computed) per row.

    *Stored*: the exact value rounded once to the format. *Computed*: every step in the
    format (position, ω_i, the product and the sine/cosine each rounded to it), as a
    kernel that computes in that dtype does. Errors are absolute, over all d_model columns,
    against the exact values (mpmath, 30 digits).
    """
    i = np.arange(d_model // 2)
    with mpmath.workdps(30):
        omega = [exact_frequency(int(k), d_model) for k in i]
        exact = np.array(
            [[float(f(p * w)) for w in omega for f in (mpmath.sin, mpmath.cos)] for p in positions]
        )
        omega64 = np.array([float(w) for w in omega])
    rows = []
    for row, p in enumerate(positions):
        for name, dtype in HALF_DTYPES.items():
            stored = exact[row].astype(dtype).astype(np.float64)
            angle = np.asarray(p, dtype=dtype) * omega64.astype(dtype)
            computed = np.empty(d_model)
            computed[0::2] = np.sin(angle).astype(np.float64)
            computed[1::2] = np.cos(angle).astype(np.float64)
            rows.append(
                (
                    int(p),
                    name,
                    float(np.max(np.abs(stored - exact[row]))),
                    float(np.max(np.abs(computed - exact[row]))),
                )
            )
    return rows
