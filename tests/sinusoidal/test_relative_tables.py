"""Relative sinusoids as declared position ranges (SPEC §10.10; issue 43 item 2).

Expected values come from an independent mpmath transcription of the sources' formulas
(Transformer-XL/XLNet: pos_seq descending, cat([sin, cos]); ESPnet: rows P−1 … −(P−1),
sin at even and cos at odd columns), never from pespec's reference. The NumPy tables below
are written as the libraries write them, in float32.
"""

from __future__ import annotations

from pathlib import Path

import mpmath
import numpy as np
import pytest
from clirun import run_cli

from pespec.sinusoidal.reference.conventions import CANONICAL, MARIAN
from pespec.sinusoidal.relative import (
    RelativeTable,
    check_relative,
    check_table,
    declared_positions,
)


def xl_table(positions: np.ndarray, d: int) -> np.ndarray:
    """Transformer-XL's PositionalEmbedding in NumPy float32: inv_freq = 1/10000^(arange(0,
    d, 2)/d), sinusoid = pos ⊗ inv_freq, cat([sin, cos])."""
    inv = (1.0 / np.power(np.float32(10000), np.arange(0, d, 2, dtype=np.float32) / d)).astype(
        np.float32
    )
    angle = positions.astype(np.float32)[:, None] * inv
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=-1).astype(np.float32)


def mp_two_sided(length: int, d: int) -> np.ndarray:
    """ESPnet RelPositionalEncoding at 200 bits: rows p = P−1 … −(P−1), columns 2i = sin,
    2i+1 = cos of p·10000^(−2i/d), rounded to float64."""
    rows = []
    with mpmath.workprec(200):
        for p in range(length - 1, -length, -1):
            row = []
            for i in range(d // 2):
                angle = p * mpmath.power(10000, mpmath.mpf(-2 * i) / d)
                row += [float(mpmath.sin(angle)), float(mpmath.cos(angle))]
            rows.append(row)
    return np.array(rows)


def test_declared_positions_are_the_sources_ranges() -> None:
    assert declared_positions("descending", 3).tolist() == [2, 1, 0]  # pos_seq klen-1 … 0
    assert declared_positions("two-sided", 3).tolist() == [2, 1, 0, -1, -2]  # 2P − 1 rows
    assert declared_positions("ascending", 2).tolist() == [0, 1]
    assert declared_positions("3..-2").tolist() == [3, 2, 1, 0, -1, -2]  # XLNet klen … −qlen+1
    assert declared_positions("-1..1").tolist() == [-1, 0, 1]


@pytest.mark.parametrize(
    ("position_range", "length", "match"),
    [("sideways", 4, "position_range must be one of"), ("descending", 0, "length must be"),
     ("1..x", None, "two integers"), ("two-sided", None, "length must be")],
)  # fmt: skip
def test_bad_declarations_are_named(position_range: str, length: int | None, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        RelativeTable(position_range, length, 64)
    with pytest.raises(ValueError, match="xscale must be one of"):
        RelativeTable("descending", 4, 64, xscale="sqrt(2)")


def test_descending_sin_cos_table_is_conformant_and_wrong_ones_are_named() -> None:
    d, length = 64, 200
    decl = RelativeTable("descending", length, d, convention=MARIAN)
    good = xl_table(declared_positions("descending", length), d)
    report = check_table(good, decl, again=good.copy())
    assert report.conformant and report.level == "float32"
    assert [c.status for c in report.checks if c.stage == "reference"] == ["passed"]

    ascending = xl_table(declared_positions("ascending", length), d)  # rows 0 … P−1
    report = check_table(ascending, decl)
    assert not report.conformant
    assert "opposite order" in str(report.diagnosis_sentence)

    folded = good * np.float32(np.sqrt(d))  # xscale √d folded into the table
    report = check_table(folded, decl)
    assert not report.conformant
    assert "xscale folded into the table" in str(report.diagnosis_sentence)


def test_two_sided_table_against_mpmath_and_a_shifted_one() -> None:
    d, length = 8, 6
    want = mp_two_sided(length, d)
    decl = RelativeTable("two-sided", length, d, convention=CANONICAL, xscale="sqrt(d)")
    report = check_table(want, decl, level="float64")
    assert report.conformant, report.checks
    assert report.family_head["convention"]["xscale"] == "sqrt(d)"
    assert report.family_head["convention"]["first"] == length - 1
    shifted = mp_two_sided(length + 1, d)[:-2]  # rows P … −(P−2): each row one position up
    report = check_table(shifted, decl, level="float64")
    assert not report.conformant
    assert "shifted by +1" in str(report.diagnosis_sentence)
    halves = np.concatenate([want[:, 0::2], want[:, 1::2]], axis=1)  # [sin | cos] blocks
    report = check_table(halves, decl, level="float64")
    assert "layout sin_cos_halves" in str(report.diagnosis_sentence)


def test_a_misbehaving_table_fails_and_never_crashes() -> None:
    decl = RelativeTable("descending", 10, 16)
    report = check_table(np.zeros((9, 16), dtype=np.float32), decl)
    assert not report.conformant
    assert report.checks[0].id == "contract:shape" and report.checks[0].status == "failed"
    nan = xl_table(declared_positions("descending", 10), 16)
    nan[3, 2] = np.nan
    assert not check_table(nan, decl).conformant

    def raises() -> np.ndarray:
        raise RuntimeError("no table")

    report = check_relative(raises, decl)
    assert not report.conformant and "RuntimeError" in report.checks[0].message
    calls = iter([nan, np.zeros((10, 16), dtype=np.float32)])
    report = check_relative(lambda: next(calls), decl)
    assert [c.status for c in report.checks if c.id == "contract:finite"] == ["failed"]


def test_a_saved_relative_table_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d, length = 8, 6
    good, folded = tmp_path / "good.npy", tmp_path / "folded.npy"
    np.save(good, mp_two_sided(length, d))
    np.save(folded, mp_two_sided(length, d) * np.sqrt(d))
    argv = ["check", "--from-file", str(good), "--positions", f"two-sided:{length}", "--quiet"]
    code, out, _ = run_cli(argv, capsys)
    assert code == 0 and "CONFORMANT" in out
    argv[2] = str(folded)
    code, out, _ = run_cli(argv, capsys)
    assert code == 1 and "xscale folded into the table" in out
    code, out, _ = run_cli([*argv[:2], str(good), "--positions", "5..-5", "--quiet"], capsys)
    assert code == 0
    marian = [*argv[:2], str(good), "--positions", f"two-sided:{length}", "--convention", "marian"]
    code, out, _ = run_cli([*marian, "--quiet"], capsys)
    assert code == 1 and "layout interleaved where sin_cos_halves is declared" in out
    code, _, err = run_cli(["check", "--from-file", str(good), "--convention", "marian"], capsys)
    assert code == 2 and "declared rows" in err
    bad = ["check", "--from-file", str(good), "--positions", "two-sided:x"]
    code, _, err = run_cli(bad, capsys)
    assert code == 2 and "integer P" in err
