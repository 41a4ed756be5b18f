"""Generated blocks of SPEC Annex H, the front matter, README and FAQ: the certified constant
tables (computed in :mod:`pespec.constants`); ``pespec constants`` prints the same functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import mpmath
import numpy as np

from pespec._version import SPEC_VERSION, __version__
from pespec.constants import (
    DIGITS,
    DIMENSIONS,
    HALF_DTYPES,
    QUOTED,
    SOURCES,
    QuotedValue,
    certified,
    exact_encoding,
    exact_frequency,
    exact_wavelength,
    float64_of,
    half_precision_rows,
    quoted_number,
    quoted_verdict,
)

__all__ = [
    "HIGHLIGHTS",
    "frequency_table",
    "front_matter_text",
    "half_precision_table",
    "quoted_highlights_table",
    "quoted_values_table",
    "tiny_table",
]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def front_matter_text() -> str:
    """SPEC front matter: spec version, status and the package version that implements it."""
    status = "draft" if "dev" in __version__ else "final"
    return (
        f"**Specification version {SPEC_VERSION}** ({status}) · implemented by pespec "
        f"{__version__} · MIT license\n"
    )


def frequency_table() -> str:
    """SPEC Annex H.1: ω_i and λ_i for the first, middle and last pairs of each d in DIMENSIONS."""
    rows = []
    for d in DIMENSIONS:
        for label, i in (("first", 0), ("middle", d // 4), ("last", d // 2 - 1)):
            rows.append(
                [
                    str(d),
                    f"{i} ({label})",
                    f"{2 * i}, {2 * i + 1}",
                    certified(lambda: exact_frequency(i, d)),  # noqa: B023 (called at once)
                    certified(lambda: exact_wavelength(i, d)),  # noqa: B023
                    repr(float64_of(lambda: exact_frequency(i, d))),  # noqa: B023
                ]
            )
    header = [
        "d",
        "pair i",
        "columns",
        f"ω_i = 10000^(−2i/d) ({DIGITS} s.d.)",
        f"λ_i = 2π/ω_i, positions ({DIGITS} s.d.)",
        "ω_i as float64 (correctly rounded)",
    ]
    return _table(header, rows)


def tiny_table() -> str:
    """SPEC Annex H.2: the tiny configuration d = 4, L = 3 (positions 0, 1, 2) in full."""
    d, length = 4, 3
    rows = []
    for p in range(length):
        for column in range(d):
            i = column // 2
            rows.append(
                [
                    str(p),
                    str(column),
                    f"{'sin' if column % 2 == 0 else 'cos'}({p}·ω_{i})",
                    certified(lambda: exact_encoding(p, column, d)),  # noqa: B023
                    repr(float64_of(lambda: exact_encoding(p, column, d))),  # noqa: B023
                ]
            )
    header = [
        "position p",
        "column",
        "value",
        f"exact ({DIGITS} s.d.)",
        "float64 (correctly rounded, shortest repr)",
    ]
    return (
        "ω_0 = 1 and ω_1 = 10000^(−2/4) = 1/100 exactly, so the angles are p and p/100.\n\n"
        + _table(header, rows)
    )


HIGHLIGHTS: tuple[str, ...] = (
    "ω_1, d = 512 (second pair)",
    "ω_255, d = 512 (lowest frequency)",
    "λ_255, d = 512 (longest wavelength)",
    "PE(10, 0) = sin 10 (any d)",
    "PE(2, 3) = cos 0.02, d = 4",
)
"""The rows of :func:`quoted_highlights_table` (README)."""


def quoted_highlights_table() -> str:
    """README excerpt of SPEC Annex H.3: five commonly quoted values that are wrong."""
    return quoted_values_table(HIGHLIGHTS, legend=False)


def quoted_values_table(quantities: Sequence[str] | None = None, *, legend: bool = True) -> str:
    """SPEC Annex H.3: commonly quoted values beside their exact values, with a verdict.

    ``quantities`` selects rows by :attr:`QuotedValue.quantity` (default: all, in order).
    """
    chosen = QUOTED if quantities is None else [_quoted(q) for q in quantities]
    rows = []
    for item in chosen:
        with mpmath.workdps(DIGITS + 25):
            exact = item.exact()
            correct = quoted_verdict(item.quoted, exact, item.claim)
            quoted_value = mpmath.mpf(str(quoted_number(item.quoted)))
            relative = abs(quoted_value - exact) / abs(exact)
        rows.append(
            [
                item.quantity,
                f"{item.claim} {item.quoted}",
                item.source,
                certified(item.exact, 15),
                "—" if relative == 0 else f"{float(relative):.1e}",
                "correct as rounded" if correct else "**wrong**",
            ]
        )
    header = ["quantity", "quoted", "source", "exact (15 s.d.)", "relative error", "verdict"]
    if not legend:  # without the legend the source keys mean nothing: drop that column
        return _table(header[:2] + header[3:], [row[:2] + row[3:] for row in rows])
    sources = "\n".join(f"- {key}: {text}" for key, text in SOURCES.items())
    return (
        _table(header, rows)
        + "\nA quote marked ≈ is correct when the exact value rounds to it at the decimals "
        "shown; one marked = claims equality.\nSources (kinds of widely copied teaching text; the "
        "§ names the passage):\n\n" + sources + "\n"
    )


def _quoted(quantity: str) -> QuotedValue:
    for item in QUOTED:
        if item.quantity == quantity:
            return item
    raise ValueError(f"quantity must be one of the QUOTED quantities; got {quantity!r}")


def _half_facts(name: str) -> str:
    """One line of format facts, from the format's own parameters (numpy / ml_dtypes finfo)."""
    info: Any = ml_dtypes.finfo(HALF_DTYPES[name])  # type: ignore[no-untyped-call]
    bits = int(info.nmant) + 1  # significand bits including the hidden bit
    half_ulp = 2.0 ** -(bits + 1)  # half the spacing of the format in [0.5, 1)
    return (
        f"- {name}: {bits} significant bits; storing a value in [−1, 1] errs by at most "
        f"2^−{bits + 1} = {half_ulp:.1e}; every integer up to 2^{bits} = {2**bits} is exact; "
        f"the largest finite value is {float(info.max):g}"
    )


def half_precision_table() -> str:
    """FAQ table: half-precision storage error vs half-precision computation error, d = 512."""
    facts = "\n".join(_half_facts(name) for name in HALF_DTYPES) + "\n\n"
    rows = []
    for p, name, stored, computed in half_precision_rows():
        represented = float(np.asarray(p, dtype=HALF_DTYPES[name]))
        note = "" if represented == p else f" (p rounds to {represented:g})"
        rows.append([f"{p}{note}", name, f"{stored:.1e}", f"{computed:.1e}"])
    header = [
        "position p",
        "format",
        "max abs. error, stored (exact → format)",
        "max abs. error, computed in the format",
    ]
    return facts + _table(header, rows)
