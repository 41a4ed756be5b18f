"""The block comparison against the exact reference (pespec.conformance.compare): a value
corrupted at (p, j) is reported at p and j; the reference compared with itself is exact.
"""

from __future__ import annotations

import numpy as np

from pespec.conformance import load_backend
from pespec.sinusoidal.compare import REFERENCE_ERROR, compare_blocks
from pespec.sinusoidal.properties.base import LEVELS
from pespec.sinusoidal.reference.encoding import encode


def test_large_comparison_locates_a_single_corrupted_element() -> None:
    positions = np.arange(3000, dtype=np.int64)
    output = load_backend("numpy-float32")(positions, 64, 10000.0)
    output[2345, 17] += np.float32(1e-3)  # far above the float32 bound (about 1e-6 here)
    worst = compare_blocks(output, positions, 64, 10000.0, LEVELS["float32"], block_elements=4096)
    assert worst.violations == 1
    assert (worst.position, worst.column) == (2345, 17)
    assert worst.error is not None and worst.error > 9e-4


def test_large_comparison_of_the_reference_with_itself_is_exact() -> None:
    positions = np.arange(0, 2000, dtype=np.int64)
    reference = encode(positions, 32, base=10000.0)
    worst = compare_blocks(reference, positions, 32, 10000.0, LEVELS["float64"])
    assert worst.violations == 0 and worst.max_abs_error == 0.0
    assert worst.bound is not None and worst.bound >= REFERENCE_ERROR


def test_the_family_passes_its_reference_error_and_it_is_never_below_2_pow_minus_52() -> None:
    """The engine names no convention's error model: a family whose reference is scaled (the
    sinusoidal output scale A, error A·2^-51·(1 + 2^-50), SPEC Annex C.7) passes that error
    in, and it enters each bound as |x| + e_ref and + e_ref (comparison_bound); a smaller
    value keeps the unscaled reference's REFERENCE_ERROR."""
    positions = np.arange(0, 50, dtype=np.int64)
    reference = encode(positions, 16, base=10000.0)
    level = LEVELS["float64"]
    plain = compare_blocks(reference, positions, 16, 10000.0, level)
    larger = compare_blocks(reference, positions, 16, 10000.0, level, reference_error=2.0**-40)
    smaller = compare_blocks(reference, positions, 16, 10000.0, level, reference_error=2.0**-60)
    assert plain.bound is not None and larger.bound is not None and smaller.bound is not None
    assert larger.bound >= plain.bound + 2.0**-40 - 2.0**-52
    assert smaller.bound == plain.bound


def _fold_every_block(
    output: np.ndarray, positions: np.ndarray, d_model: int, rows: int
) -> tuple[object, ...]:
    """The statistics of folding every block with its full bound (no equal-block shortcut)."""
    from pespec.conformance.compare import Worst
    from pespec.sinusoidal.compare import comparison_bound
    from pespec.sinusoidal.properties.base import EncodingConfig
    from pespec.sinusoidal.reference.conventions import CANONICAL

    worst = Worst()
    columns = np.arange(d_model, dtype=np.intp)
    for start in range(0, positions.shape[0], rows):
        chunk = positions[start : start + rows]
        reference = encode(chunk, d_model, base=10000.0)
        config = EncodingConfig(chunk, d_model, 10000.0, CANONICAL)
        bound = comparison_bound(reference, config, LEVELS["float32"], REFERENCE_ERROR)
        worst.update(output[start : start + rows], reference, bound, chunk, columns)
    return _statistics(worst)


def _statistics(worst: object) -> tuple[object, ...]:
    names = ("ratio", "error", "bound", "compared", "violations", "position", "column")
    extra = ("max_abs_error", "max_abs_bound", "max_abs_position", "max_abs_column")
    return tuple(getattr(worst, name) for name in (*names, *extra))


def test_blocks_equal_to_the_reference_change_no_statistic() -> None:
    """Blocks after the first whose values equal the reference are counted, not bounded
    (compare_blocks): the worst element, the largest error and the counts are those of
    folding every block, whether the only errors lie before, after or between equal blocks,
    or nowhere (then the first element of the first block is reported, at ratio 0)."""
    positions = np.arange(0, 400, dtype=np.int64)
    exact = encode(positions, 32, base=10000.0)
    cases = [exact.copy() for _ in range(4)]
    cases[1][5, 3] += 1e-9  # first block only
    cases[2][350, 7] -= 1e-9  # a later block only, after equal blocks
    cases[3][130, 1] += 1e-12  # in the middle; more than one block not equal
    cases[3][390, 30] += 3e-9
    for output in cases:
        fast = compare_blocks(
            output, positions, 32, 10000.0, LEVELS["float32"], block_elements=32 * 64
        )
        assert _statistics(fast) == _fold_every_block(output, positions, 32, 64)
    assert _statistics(compare_blocks(exact, positions, 32, 10000.0, LEVELS["float32"]))[5:7] == (
        0,
        0,
    )
