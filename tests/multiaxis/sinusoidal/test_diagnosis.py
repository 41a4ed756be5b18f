"""The multi-axis diagnosis names each documented bug class of a hand-made port (SPEC §9.6):
sections permuted or resized, the per-axis denominator D/4 vs D/4 − 1, coordinates in
bfloat16, a cls/extra token offset; and the adapter takes MAE's cls row cleanly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.sinusoidal.adapters import grid_table_backend
from pespec.multiaxis.sinusoidal.run import check
from tests.multiaxis.sinusoidal import ports

DIAGNOSIS_STAGES = ["contract", "reference"]


def _cause(backend: Any, config: str) -> str:
    report = check(backend, config=config, stages=DIAGNOSIS_STAGES)
    assert report.verdict == "non-conformant", report.summary()
    return str((report.diagnosis or {}).get("cause", report.diagnosis_sentence))


@pytest.mark.parametrize(
    ("backend", "config", "words"),
    [
        (ports.cogvideox_permuted, "cogvideox-2b", "sections permuted (axes in the order 2, 1, 0)"),
        (ports.cogvideox_thirds, "cogvideox-2b", "sections resized (widths 640, 640, 640)"),
        (ports.big_vision, "mae-vit-b-16", "denominator D/4 − 1 instead of D/4"),
        (ports.correct, "big-vision-vit-s16", "denominator D/4 instead of D/4 − 1"),
        (ports.bfloat16_positions, "sd3-medium", "rounded to bfloat16"),
        (ports.mae_cls_unskipped, "mae-vit-b-16", "cls/extra token offset (a row"),
    ],
)
def test_each_bug_class_is_named(backend: Any, config: str, words: str) -> None:
    assert words in _cause(backend, config)


def test_the_ports_are_the_bug_and_not_another() -> None:
    """The permuted and resized ports differ from the declared encoding by more than any
    bound (independently: column 0 is sin(w·1) = sin(1) in the permuted port at (0, 0, 1),
    sin(0) = 0 in CogVideoX's [t | w | h]), so the verdicts above are not bound-edge cases."""
    from pespec.multiaxis.sinusoidal.presets import PRESETS

    config = PRESETS["cogvideox-2b"].config
    row = np.array([[0, 0, 1]])
    assert abs(ports.cogvideox_permuted(row, config)[0, 0] - np.sin(1.0)) < 1e-15
    assert ports.correct_3d(row, config)[0, 0] == 0.0


def test_bfloat16_coordinates_collapse_neighbouring_tokens() -> None:
    """Why the class matters (diffusers' Ideogram): bfloat16 has 8 significant bits, so its
    spacing in [512, 1024) is 4: 513 rounds to 512 and 514 (a tie) to the even significand,
    512; three neighbouring tokens get one coordinate, hence one encoding (derivation)."""
    import ml_dtypes

    low = np.array([512.0, 513.0, 514.0]).astype(ml_dtypes.bfloat16).astype(np.float64)
    assert low.tolist() == [512.0, 512.0, 512.0]


def test_mae_cls_row_is_taken_with_leading_rows() -> None:
    table = ports.mae_cls_table(768, 14)
    report = check(
        grid_table_backend(lambda: table, "mae-vit-b-16", leading_rows=True), config="mae-vit-b-16"
    )
    assert report.verdict == "conformant", report.summary()


def test_mae_cls_row_left_in_is_refused_with_a_hint() -> None:
    table = ports.mae_cls_table(768, 14)
    report = check(grid_table_backend(lambda: table, "mae-vit-b-16"), config="mae-vit-b-16")
    assert report.verdict == "non-conformant"
    assert "leading_rows=True" in report.failed[0].message


def test_leading_rows_that_are_not_zeros_are_refused() -> None:
    table = ports.mae_cls_table(768, 14)
    table[0, 0] = 1.0
    backend = grid_table_backend(lambda: table, "mae-vit-b-16", leading_rows=True)
    report = check(backend, config="mae-vit-b-16", stages=["contract"])
    assert "are not zeros" in report.failed[0].message


def test_a_conformant_port_gets_no_cause() -> None:
    report = check(ports.correct_3d, config="cogvideox-2b", stages=DIAGNOSIS_STAGES)
    assert report.verdict == "conformant" and report.diagnosis is None


def test_two_column_sections_have_no_denominator_neighbour() -> None:
    """d/2 − 1 = 0 for d = 2: no ω_k = base^(−k/0) candidate is built (it would divide by 0)."""
    from pespec.multiaxis.sinusoidal.config import MultiAxisConfig, Section
    from pespec.multiaxis.sinusoidal.neighbours import denominator_neighbour

    two = MultiAxisConfig((Section(0, 2), Section(1, 2)), axes=2)
    assert denominator_neighbour(two) is None
    four = MultiAxisConfig((Section(0, 4), Section(1, 4)), axes=2)
    found = denominator_neighbour(four)
    assert found is not None and "D/4 − 1 instead of D/4 (d/2 − 1 per section)" in found[0]
