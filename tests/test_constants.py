"""Tests of pespec.constants and the tables it feeds (pespec.specblocks.tables, SPEC Annex H):
every tabulated number against an independent source.

Independent sources: MPFR through gmpy2 (a different arbitrary-precision library from the
mpmath that pespec.constants uses, correctly rounded per operation), published digits of π,
and exact identities (ω_0 = 1, ω_(d/4) = 10000^(−1/2) = 1/100).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Iterator
from decimal import Decimal

import gmpy2
import mpmath
import numpy as np
import pytest

import pespec
from pespec import constants
from pespec.cli import main
from pespec.sinusoidal.properties.base import LEVELS
from pespec.specblocks import tables as blocks

# 2π to 40 significant digits (π = 3.14159265358979323846264338327950288419716939937510...,
# OEIS A000796; doubled by hand).
TWO_PI_40 = Decimal("6.283185307179586476925286766559005768394")


@pytest.fixture(autouse=True)
def _high_precision() -> Iterator[None]:
    """300-bit MPFR and 80-digit decimal for each test, restored afterwards."""
    with gmpy2.context(precision=300), decimal.localcontext() as local:
        local.prec = 80
        yield


def _mpfr_frequency(i: int, d: int) -> gmpy2.mpfr:
    """ω_i = exp(−(2i/d)·ln 10000) in MPFR at 300 bits."""
    return gmpy2.exp(-gmpy2.log(gmpy2.mpfr(10000)) * gmpy2.mpq(2 * i, d))


def _mpfr_encoding(p: int, column: int, d: int) -> gmpy2.mpfr:
    angle = p * _mpfr_frequency(column // 2, d)
    return gmpy2.sin(angle) if column % 2 == 0 else gmpy2.cos(angle)


def _assert_rounds_to(text: str, value: gmpy2.mpfr) -> None:
    """``text`` (n significant digits) is within half a unit in its last digit of ``value``."""
    shown = Decimal(text)
    if shown == 0:
        assert value == 0
        return
    digits = len(shown.as_tuple().digits)
    half_unit = Decimal(1).scaleb(shown.adjusted() - digits + 1) / 2
    assert abs(Decimal(format(value, ".60e")) - shown) <= half_unit, (text, value)


def _rows(markdown: str) -> list[list[str]]:
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def test_significant_keeps_trailing_zeros_and_rounds() -> None:
    with mpmath.workdps(60):
        # 2π = 6.28318530717958647692528676655|9... rounds up in the 30th digit.
        assert constants.significant(2 * mpmath.pi) == "6.28318530717958647692528676656"
        assert constants.significant(mpmath.mpf(1)) == "1." + "0" * 29
        assert constants.significant(mpmath.mpf(0)) == "0"


def test_certified_detects_disagreeing_precisions() -> None:
    # A value whose 20-digit rounding depends on the working precision (45 vs 70 digits)
    # cannot be certified.
    def unstable() -> mpmath.mpf:
        return 1 + mpmath.mpf("4e-20" if mpmath.mp.dps < 60 else "6e-20")

    with pytest.raises(RuntimeError, match="not certified"):
        constants.certified(unstable, digits=20)
    assert constants.certified(lambda: 1 + mpmath.mpf("4e-20"), digits=20) == "1." + "0" * 19


def test_frequency_table_matches_mpfr_and_identities() -> None:
    rows = _rows(blocks.frequency_table())
    assert len(rows) == 3 * len(constants.DIMENSIONS)
    for d_text, pair, _, omega, wavelength, omega64 in rows:
        d, i = int(d_text), int(pair.split()[0])
        expected = _mpfr_frequency(i, d)
        _assert_rounds_to(omega, expected)
        _assert_rounds_to(wavelength, 2 * gmpy2.const_pi() / expected)
        assert float(omega64) == float(expected)  # MPFR's float() rounds to nearest
        if i == 0:
            assert Decimal(wavelength) == round(TWO_PI_40, 29)
        if i == d // 4:  # 10000^(−1/2) = 1/100 exactly, λ = 200π
            assert Decimal(omega) == Decimal("0.01")
            assert Decimal(wavelength) == round(100 * TWO_PI_40, 27)
    last = {int(row[0]): Decimal(row[3]) for row in rows if "last" in row[1]}
    # The lowest frequency is 10000^(−(d−2)/d) > 1/10000, approaching it as d grows.
    assert all(value > Decimal("0.0001") for value in last.values())
    assert list(last.values()) == sorted(last.values(), reverse=True)


def test_tiny_table_is_the_full_d4_l3_encoding() -> None:
    rows = _rows(blocks.tiny_table())
    assert [(int(r[0]), int(r[1])) for r in rows] == [(p, c) for p in range(3) for c in range(4)]
    for p_text, column, _, exact, value64 in rows:
        expected = _mpfr_encoding(int(p_text), int(column), 4)
        _assert_rounds_to(exact, expected)
        assert float(value64) == float(expected)


def test_tiny_table_float64_matches_the_public_reference_closely() -> None:
    # The float64 reference is within a few ulps of the correctly rounded values (SPEC §4).
    rows = _rows(blocks.tiny_table())
    table = np.array([float(r[4]) for r in rows]).reshape(3, 4)
    reference = pespec.sinusoidal_positional_encoding(3, 4)
    assert np.all(np.abs(reference - table) <= 4 * np.spacing(np.abs(table)))


def test_quoted_verdict_rule() -> None:
    assert constants.quoted_verdict("0.5", mpmath.mpf("0.5499"))
    # 2.5 is exactly half a unit from "2" (a tie representable in binary) and counts as correct.
    assert constants.quoted_verdict("2", mpmath.mpf("2.5"))
    assert not constants.quoted_verdict("2", mpmath.mpf("2.5000001"))
    assert not constants.quoted_verdict("0.5", mpmath.mpf("0.5501"))
    assert constants.quoted_verdict("62,832", mpmath.mpf("62831.7"))
    assert constants.quoted_verdict("1/4", mpmath.mpf("0.25"), "=")
    assert not constants.quoted_verdict("1/10000", mpmath.mpf("0.000100000001"), "=")


# Independent recomputation (MPFR) of a selection of quoted quantities, and the verdict a
# hand check gives. ω_1 for d = 512 is 10000^(−1/256) = e^(−9.2103/256) ≈ 0.9647, not 0.681.
INDEPENDENT = {
    "ω_1, d = 512 (second pair)": (lambda: _mpfr_frequency(1, 512), False),
    "λ_255, d = 512 (longest wavelength)": (
        lambda: 2 * gmpy2.const_pi() / _mpfr_frequency(255, 512),
        False,
    ),
    "λ_0 (shortest wavelength, any d)": (lambda: 2 * gmpy2.const_pi(), True),
    "PE(9, 252), d = 256": (lambda: _mpfr_encoding(9, 252, 256), False),
    "PE(10, 0) = sin 10 (any d)": (lambda: gmpy2.sin(gmpy2.mpfr(10)), False),
    "choose_base(4096) = 40960/(2π)": (lambda: 40960 / (2 * gmpy2.const_pi()), False),
}


def test_quoted_values_against_mpfr() -> None:
    by_quantity = {item.quantity: item for item in constants.QUOTED}
    for quantity, (independent, verdict) in INDEPENDENT.items():
        item = by_quantity[quantity]
        with mpmath.workdps(60):
            exact = item.exact()
        _assert_rounds_to(mpmath.nstr(exact, 40, strip_zeros=False), independent())
        assert constants.quoted_verdict(item.quoted, exact, item.claim) is verdict, quantity


def test_quoted_table_rows_and_choose_base_cross_check() -> None:
    rows = _rows(blocks.quoted_values_table())
    assert len(rows) == len(constants.QUOTED)
    assert sum(row[-1] == "**wrong**" for row in rows) >= 15
    by_quantity = {row[0]: row for row in rows}
    # pespec.choose_base is written independently (pespec.teaching.extension).
    rule_base = by_quantity["choose_base(512) = 5120/(2π)"][3]
    assert abs(Decimal(rule_base) - Decimal(repr(pespec.choose_base(512)))) < Decimal("1e-9")
    exact_base = by_quantity[
        "base whose longest wavelength is 5120 at d = 512: (5120/(2π))^(512/510)"
    ][3]
    solved = pespec.choose_base(512, d_model=512)
    assert abs(Decimal(exact_base) - Decimal(repr(solved))) < Decimal("1e-9")


def test_half_precision_storage_is_safe_and_computation_is_not() -> None:
    rows = constants.half_precision_rows(positions=(10, 1000, 2049), d_model=64)
    for position, name, stored, computed in rows:
        assert stored <= LEVELS[name].u_out  # one rounding of a value in [−1, 1]
        if position >= 1000:
            assert computed > 100 * stored
    markdown = blocks.half_precision_table()
    assert "2049 (p rounds to 2048)" in markdown


def test_front_matter_names_both_versions() -> None:
    text = blocks.front_matter_text()
    assert f"Specification version {pespec.SPEC_VERSION}" in text
    assert pespec.__version__ in text


def test_pespec_tables_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["constants", "tiny"]) == 0
    assert capsys.readouterr().out == blocks.tiny_table()
    assert main(["constants", "nope"]) == 2
    assert re.search(r"table NAME must be one of .*got 'nope'", capsys.readouterr().err)


def test_quoted_highlights_are_rows_of_the_full_table() -> None:
    quantities = [item.quantity for item in constants.QUOTED]
    assert len(set(quantities)) == len(quantities)  # rows are selected by quantity
    full = {row[0]: row for row in _rows(blocks.quoted_values_table())}
    highlights = _rows(blocks.quoted_highlights_table())
    assert [row[0] for row in highlights] == list(blocks.HIGHLIGHTS)
    for row in highlights:  # the same numbers, without the source column
        assert row == full[row[0]][:2] + full[row[0]][3:]
    with pytest.raises(ValueError, match="quantity must be one of the QUOTED quantities"):
        blocks.quoted_values_table(["no such quantity"])


def test_the_old_command_name_exits_2_naming_the_new_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``pespec tables`` became ``pespec constants`` (issue 38; pre-1.0, no alias)."""
    from pespec.cli import main

    assert main(["tables", "tiny"]) == 2
    err = capsys.readouterr().err
    assert "'tables'" in err and "pespec constants" in err and "Traceback" not in err
