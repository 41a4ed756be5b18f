"""The contract items a saved multi-axis output can show, one rule for both section kinds
(pespec/multiaxis/section_file.py): shape, dtype, finite (the first non-finite value named),
then what needs calls skipped."""

from __future__ import annotations

import numpy as np

from pespec.multiaxis.section_file import file_contract


def _rows(output: np.ndarray, out_dtype: str | None) -> list[tuple[str, str, str, str]]:
    checks = file_contract(
        output, out_dtype, section="§9.9", width="W", needs_calls=("deterministic", "relative")
    )
    assert {c.section for c in checks} == {"§9.9"}
    return [(c.id, c.stage, c.status, c.message) for c in checks]


def test_a_finite_file() -> None:
    assert _rows(np.zeros((3, 4), dtype=np.float32), "float32") == [
        ("contract:shape", "contract", "passed", "(n, W) = (3, 4)"),
        ("contract:dtype", "contract", "passed", "float32"),
        ("contract:finite", "contract", "passed", "every value is finite"),
        ("deterministic:*", "contract", "skipped", "needs calls; not from a file"),
        ("relative:*", "relative", "skipped", "needs calls; not from a file"),
    ]


def test_the_first_non_finite_value_is_named() -> None:
    output = np.zeros((5, 3))
    output[3, 1], output[2, 2] = np.inf, np.nan  # row 2 comes first
    assert _rows(output, "float64")[2] == (
        "contract:finite",
        "contract",
        "failed",
        "row 2, column 2 is nan",
    )


def test_an_unknown_dtype_fails_and_finite_is_not_evaluated() -> None:
    rows = _rows(np.zeros((2, 2), dtype=np.int32), None)
    assert [r[0] for r in rows] == [
        "contract:shape",
        "contract:dtype",
        "deterministic:*",
        "relative:*",
    ]
    assert rows[1][2:] == (
        "failed",
        "dtype int32 is not one of ['bfloat16', 'float16', 'float32', 'float64']",
    )
