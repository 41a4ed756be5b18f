"""Generated blocks of SPEC Annex B: the oracle's working precision and decimal rounding."""

from __future__ import annotations

import decimal
import math

from pespec.conformance.fixtures import fixture_directory
from pespec.sinusoidal.golden import parse_fixture
from pespec.sinusoidal.reference.oracle import GUARD_BITS, encode_decimal, row_precision

__all__ = ["decimal_rounding_text", "oracle_precision_table"]


def oracle_precision_table(d_model: int = 512, base: float = 10000.0) -> str:
    """First working precision P of the oracle for a few magnitudes of c·(p + o)."""
    t_max = math.log(base) * (d_model // 2 - 1) / (d_model // 2)
    lines = ["| \\|c·(p + o)\\| below | first working precision P (bits) |", "|---|---|"]
    for bits in (1, 11, 13, 20, 31, 40, 53, 64):
        lines.append(f"| 2^{bits} | {row_precision(bits, t_max)} |")
    return (
        f"For d = {d_model}, base = {base:g} (t_max = {t_max:.4g}, guard bits = "
        f"{GUARD_BITS}):\n\n" + "\n".join(lines) + "\n"
    )


def decimal_rounding_text() -> str:
    """How often rounding through a 17-significant-digit decimal gives the wrong float64,
    measured on the shipped d64-L128 fixture (exact values from :func:`encode_decimal`)."""
    path = fixture_directory() / "d64-L128.json"
    fixture = parse_fixture(path.name, path.read_bytes())
    rows = encode_decimal(fixture.positions, fixture.d_model, digits=40)
    context = decimal.Context(prec=17, rounding=decimal.ROUND_HALF_EVEN)
    wrong = total = 0
    for row, certified in zip(rows, fixture.values.tolist(), strict=True):
        for text, value in zip(row, certified, strict=True):
            if value == 0.0 or abs(value) == 1.0:
                continue  # exact cases
            total += 1
            via_17_digits = float(context.create_decimal(text))
            wrong += via_17_digits != value
    share = wrong / total
    return (
        f"On the {total} inexact values of `d64-L128.json`, rounding the exact value to 17 "
        f"significant digits first and then to float64 gives the wrong float64 for {wrong} "
        f"values ({100 * share:.1f}%).\n"
    )
