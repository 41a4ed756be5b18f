"""Modules of one job (issue 13): no module in pespec/ over 500 lines, except those listed.

CARRY_PROOFS may stay whole (issue 13: they carry their proofs and are cohesive). DEBT lists
the modules still over the limit, with their line count when the list was written: the debt
of issue 13, to be split (runner.py into compare.py and the suite, ...). An entry is removed
when its module is split; a listed module that is no longer over the limit fails too, so that
the list only shrinks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import pespec

LIMIT = 500
"""Most lines a module of pespec/ may have."""

PACKAGE = Path(pespec.__file__).resolve().parent

CARRY_PROOFS = {
    "reference/exact.py",  # 940 lines: the exact float64 reference and its proof (SPEC §7)
    "reference/oracle.py",  # 750 lines: the certified oracle and its method (SPEC §6)
}

DEBT = {
    # module: line count when listed (issue 13's debt; split, then remove the entry)
    "conformance/runner.py": 894,  # suite and reproductions (comparison engine: compare.py)
    "reference/golden.py": 652,  # fixture format, loading, writing, verification
    "conformance/backends.py": 665,  # loading, built-ins, guard, host conversion
    "conformance/report.py": 509,  # report, JSON, markdown, terminal rendering
}


def _lines() -> dict[str, int]:
    return {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def test_no_module_over_the_limit_outside_the_lists() -> None:
    over = {
        name: n
        for name, n in _lines().items()
        if n > LIMIT and name not in DEBT and name not in CARRY_PROOFS
    }
    assert not over, f"modules over {LIMIT} lines (split them by job): {over}"


@pytest.mark.parametrize("name", sorted(DEBT))
def test_debt_entries_are_still_over_the_limit(name: str) -> None:
    lines = _lines()
    assert name in lines, f"{name} no longer exists: remove it from DEBT"
    assert lines[name] > LIMIT, f"{name} has {lines[name]} lines now: remove it from DEBT"


def test_the_walk_sees_every_module() -> None:
    # The split diagnosis package stays within the limit, module by module.
    lines = _lines()
    diagnosis = {n: c for n, c in lines.items() if n.startswith("conformance/diagnosis/")}
    assert len(diagnosis) >= 7 and max(diagnosis.values()) <= LIMIT
    assert max(lines.values()) > LIMIT  # the walk sees the listed modules (not an empty glob)
