"""Meta-tests: the suite must catch real bugs, for the right reason, and pass correct code.

Each buggy backend in tests/catalog/buggy.py is run through the whole suite (a small
profile: 2 Hypothesis examples per property, no shrinking, one large configuration that
crosses position 4096) and must be non-conformant; the assertions say *why*, from facts
about the bug fixed by hand (sin 0 = 0 vs cos 0 = 1, cos < 0 at position 3 column 1, ...),
not from the suite's own output. The correct backends must be conformant under the same
profile. Finally the three entry points (Python, CLI, pytest plugin) must agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from catalog.buggy import BUGGY, TABLE_ROWS
from catalog.correct import CORRECT
from paths import CATALOG
from pluginrun import run_plugin

import pespec
from pespec.cli import main
from pespec.conformance import Report, check

SMALL: dict[str, Any] = {
    "examples": 2,
    "shrink": False,
    "large_sizes": ((4608, 32),),  # crosses the 4096-row table of stops_at_4096
    "diagnose": False,
}


def _run(backend: Any) -> Report:
    return check(backend, **SMALL)


def _contract_clean(report: Report) -> None:
    assert not [c.id for c in report.checks if c.stage == "contract" and c.status == "failed"]


def _golden(report: Report, name: str) -> Any:
    return report.get(f"golden:{name}")


# Each reason takes the report and asserts the bug's signature.


def _swapped(r: Report) -> None:
    _contract_clean(r)
    tiny = _golden(r, "tiny-d4-L3")
    # Pair 0 swaps sin p and cos p, an error |sin p − cos p| in both columns: 1 at p = 0,
    # 0.30 at p = 1, 1.325444263372824 (mpmath) at p = 2. Pair 0 has no angle term (SPEC
    # §4.2), so its float64 bound is 4u + ½ulp(|x|): 8·2^-54 at x = sin 0, 8.5·2^-54 at
    # x = cos 2 (½ulp = 2^-55), 9·2^-54 at x = sin 2; the worst ratio is row 2, column 1
    # (1.325/8.5 > 1/8; it was row 0, column 0 before issue 14, whose bound grew with p).
    assert (tiny.worst_position, tiny.worst_column) == (2, 1)
    assert tiny.max_error == pytest.approx(1.325444263372824, abs=1e-15)


def _halves(r: Report) -> None:
    _contract_clean(r)
    tiny = _golden(r, "tiny-d4-L3")
    # Column 0 is sin(p·ω_0) in both layouts; the first misplaced column is 1.
    assert tiny.status == "failed" and tiny.worst_column != 0


def _frequency_bug(r: Report) -> None:
    _contract_clean(r)
    d64 = _golden(r, "d64-L128")
    # ω_0 = 1 in every variant, so columns 0 and 1 are right and the error is elsewhere.
    assert d64.status == "failed" and d64.worst_column is not None and d64.worst_column >= 2


def _positions_from_one(r: Report) -> None:
    _contract_clean(r)
    tiny = _golden(r, "tiny-d4-L3")
    # Row p holds the encoding of p + 1. Pair 0 has no angle term (ω̂_0 = 1, SPEC §4.2), so
    # its bound is 4u + ½ulp(|x|) at every one of positions 0, 1, 2, and the worst ratio is
    # the largest error among sin/cos: |cos 2 − cos 1| = 0.9564491424152821 (mpmath) at row
    # 1, column 1 (row 0, column 0: |sin 1 − sin 0| = 0.841, the worst before issue 14, when
    # the bound grew with the position).
    assert (tiny.worst_position, tiny.worst_column) == (1, 1)
    assert tiny.max_error == pytest.approx(0.9564491424152821, abs=1e-15)


def _low_precision_bug(level: str) -> Callable[[Report], None]:
    def reason(r: Report) -> None:
        _contract_clean(r)
        assert r.level == level
        assert _golden(r, "tiny-d4-L3").status == "passed"  # fine at positions 0..2
        transformer = _golden(r, "transformer-d512-L5000")
        # Broken at moderate positions (≤ 5000), not only where the level gives up.
        assert transformer.status == "failed"
        assert transformer.worst_position is not None and transformer.worst_position <= 5000

    return reason


def _sqrt_cos(r: Report) -> None:
    _contract_clean(r)
    tiny = _golden(r, "tiny-d4-L3")
    # cos 2 < 0 at position 2, column 1: sqrt(1 − sin²2) = |cos 2|, error 2|cos 2| = 0.832...
    assert (tiny.worst_position, tiny.worst_column) == (2, 1)
    assert tiny.max_error == pytest.approx(0.8322936730942848, abs=1e-15)


def _shape_bug(r: Report) -> None:
    shape = r.get("contract:shape")
    assert shape.status == "failed" and "output shape must be (48, 16)" in shape.message


def _negative_sine(r: Report) -> None:
    _contract_clean(r)
    tiny = _golden(r, "tiny-d4-L3")
    # Only the sine columns change sign: the worst is an even column, error 2|sin(p·ω)|.
    assert tiny.worst_column is not None and tiny.worst_column % 2 == 0
    assert tiny.worst_position != 0  # sin 0 = −sin 0


def _nan_at_zero(r: Report) -> None:
    finite = r.get("contract:finite")
    assert finite.status == "failed" and "nan at position 0" in finite.message
    assert _golden(r, "negative-d64").status == "passed"  # no position 0 in that set


def _stops_at_4096(r: Report) -> None:
    _contract_clean(r)
    assert _golden(r, "d64-L128").status == "passed"  # positions < 4096 are right
    large = r.get("large:4608x32")
    assert large.status == "failed"
    assert large.worst_position is not None and large.worst_position >= TABLE_ROWS
    assert large.details["values_over_bound"] <= (4608 - TABLE_ROWS) * 32


REASONS: dict[str, Callable[[Report], None]] = {
    "swapped": _swapped,
    "halves": _halves,
    "exponent_i_over_d": _frequency_bug,
    "denominator_half_minus_one": _frequency_bug,
    "base_1000": _frequency_bug,
    "positions_from_one": _positions_from_one,
    "float16_angles": _low_precision_bug("float16"),
    "bfloat16_frequencies": _low_precision_bug("bfloat16"),
    "sqrt_cos": _sqrt_cos,
    "transposed": _shape_bug,
    "last_column_dropped": _shape_bug,
    "negative_sine": _negative_sine,
    "nan_at_zero": _nan_at_zero,
    "stops_at_4096": _stops_at_4096,
}


def test_every_buggy_backend_has_a_reason() -> None:
    assert set(REASONS) == set(BUGGY)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUGGY))
def test_buggy_backend_is_non_conformant_for_the_right_reason(name: str) -> None:
    report = _run(BUGGY[name])
    assert report.verdict == "non-conformant"
    REASONS[name](report)
    # Whatever else failed, every failure carries a message, and numeric ones a location.
    for failed in report.failed:
        assert failed.message
        if failed.max_error is not None and failed.stage in ("golden", "large"):
            assert failed.worst_position is not None and failed.reproduction


def _torch_or_skip() -> str:
    pytest.importorskip("torch")
    return "torch"


@pytest.mark.slow
@pytest.mark.parametrize(
    "backend",
    ["numpy", "numpy-float32", "numpy-float16", "numpy-bfloat16", *sorted(CORRECT), "torch"],
)
def test_correct_backend_is_conformant(backend: str) -> None:
    target: Any = CORRECT.get(backend, backend)
    if backend == "torch":
        target = _torch_or_skip()
    report = _run(target)
    assert report.verdict == "conformant", report.summary()
    assert not report.failed
    assert all(c.status == "passed" for c in report.checks if c.stage in ("contract", "golden"))


@pytest.mark.slow
def test_diagnosis_is_attached_only_to_non_conformant_reports() -> None:
    failing = check(BUGGY["halves"], stages=("contract", "golden"))
    assert failing.diagnosis is not None and failing.diagnosis_sentence
    assert failing.diagnosis["convention"]["layout"] == "sin_cos_halves"
    assert failing.diagnosis_sentence in failing.to_markdown()
    passing = check("numpy-float32", stages=("contract", "golden"))
    assert passing.diagnosis is None and passing.diagnosis_sentence is None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "verdict"),
    [("numpy-float32", "conformant"), (f"{CATALOG}/buggy.py:sqrt_cos", "non-conformant")],
)
def test_three_entry_points_give_the_same_verdict(spec: str, verdict: str, tmp_path: Path) -> None:
    stages, examples = "contract,golden,property", 2
    python = check(spec, stages=stages.split(","), examples=examples, shrink=False)
    assert python.verdict == verdict
    cli_json = tmp_path / "cli.json"
    cli_code = main(
        [
            "check",
            spec,
            "--stages",
            stages,
            "--examples",
            str(examples),
            "--no-shrink",
            "--quiet",
            "--json",
            str(cli_json),
        ]
    )
    plugin_json = tmp_path / "plugin.json"
    plugin = run_plugin(
        spec,
        "--pe-stages",
        stages,
        "--pe-examples",
        str(examples),
        "--pe-no-shrink",
        "--pe-json",
        str(plugin_json),
    )
    expected_code = 0 if verdict == "conformant" else 1
    assert cli_code == expected_code
    assert plugin.returncode == expected_code, plugin.stdout[-2000:]
    cli_report = json.loads(cli_json.read_text())
    plugin_report = json.loads(plugin_json.read_text())
    statuses = {c.id: c.status for c in python.checks}
    for other in (cli_report, plugin_report):
        assert other["verdict"] == verdict
        assert {c["id"]: c["status"] for c in other["checks"]} == statuses


@pytest.mark.slow
def test_declared_capabilities_narrow_the_suite_and_appear_in_the_report() -> None:
    from catalog.buggy import stops_at_4096

    def table(positions: Any, d_model: int, base: float) -> Any:
        if positions.dtype.kind != "i" or (positions.size and positions.max() >= TABLE_ROWS):
            raise ValueError("this table only holds integer positions 0 .. 4095")
        return stops_at_4096(positions, d_model, base)

    table.pespec_capabilities = {  # type: ignore[attr-defined]
        "integer_positions_only": True,
        "max_position": TABLE_ROWS - 1,
    }
    report = _run(table)
    # Honest declarations: every request stays inside them, so the table is conformant there.
    assert report.verdict == "conformant", report.summary()
    assert report.capabilities["max_position"] == TABLE_ROWS - 1
    assert report.get("large:4608x32").status == "skipped"
    assert "max_position=4095" in report.to_markdown()
    # Without the declaration the same table fails (it raises outside its range).
    del table.pespec_capabilities  # type: ignore[attr-defined]
    assert _run(table).verdict == "non-conformant"


@pytest.mark.slow
def test_a_row_table_declaring_non_negative_positions_is_checked_inside_its_range() -> None:
    # A module that stores rows 0 .. 511 of the float32-rounded reference and indexes them:
    # NumPy's negative indexing would silently return rows from the end of the table, so
    # the suite must not send negative positions once the module declares it takes none.
    rows = 512
    tables: dict[tuple[int, float], Any] = {}

    def lookup(positions: Any, d_model: int, base: float) -> Any:
        key = (d_model, base)
        if key not in tables:
            tables[key] = pespec.sinusoidal_positional_encoding(rows, d_model, base=base).astype(
                np.float32
            )
        return tables[key][positions]

    lookup.pespec_capabilities = {  # type: ignore[attr-defined]
        "integer_positions_only": True,
        "non_negative_positions": True,
        "max_position": rows - 1,
    }
    report = _run(lookup)
    assert report.verdict == "conformant", report.summary()
    assert report.capabilities["non_negative_positions"] is True
    # Undeclared, the wrapped-around rows for negative positions are caught.
    lookup.pespec_capabilities = {  # type: ignore[attr-defined]
        "integer_positions_only": True,
        "max_position": rows - 1,
    }
    assert _run(lookup).verdict == "non-conformant"
