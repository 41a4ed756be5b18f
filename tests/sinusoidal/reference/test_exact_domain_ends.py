"""The float64 reference's domain ends (|p + o| ≤ 2^53) on every entry point, and its error
term pinned to SPEC Annex C's formula from both sides (issue 42).

Expectations: the domain is |position + position_offset| ≤ 2^53 exactly (SPEC Annex C: 2^53
is accepted, 2^53 + 1 refused), whatever the entry point; the reference's error is 2^-52
(A = 1) or A·2^-51·(1 + 2^-50) (an output scale A), computed here with exact rationals; the
measured error against the certified oracle never exceeds it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.conventions import CANONICAL, FAIRSEQ, MLX, Convention
from pespec.sinusoidal.reference.exact import (
    exact_encode,
    exact_sinusoidal_positional_encoding,
    iter_encoding_chunks,
    scaled_reference_error,
)

LIMIT = 2**53
D = 4


def _chunks(positions: object, convention: Convention) -> list[np.ndarray]:
    return [block for _, block in iter_encoding_chunks(positions, D, convention=convention)]


@pytest.mark.parametrize("convention", [CANONICAL, FAIRSEQ], ids=lambda c: c.name)
def test_exact_encode_domain_ends(convention: Convention) -> None:
    """|p + o| = 2^53 accepted (ints and floats, both signs), 2^53 + 1 refused."""
    o = int(convention.position_offset)
    for p in (LIMIT - o, -LIMIT - o):
        assert exact_encode(np.array([p], dtype=np.int64), D, convention=convention).shape == (1, D)
        assert exact_encode([float(p)], D, convention=convention).shape == (1, D)
    for p in (LIMIT + 1 - o, -LIMIT - 1 - o):
        with pytest.raises(ValueError, match="2\\*\\*53"):
            exact_encode(np.array([p], dtype=np.int64), D, convention=convention)
    if o:  # a float 2^53 (exact) is beyond the domain once the offset is added
        with pytest.raises(ValueError, match="2\\*\\*53"):
            exact_encode([float(LIMIT)], D, convention=convention)


@pytest.mark.parametrize("convention", [CANONICAL, FAIRSEQ], ids=lambda c: c.name)
def test_sequence_entry_point_domain_ends(convention: Convention) -> None:
    """offset .. offset + n − 1 (+ o): the last row at 2^53 accepted, at 2^53 + 1 refused, for
    n = 1 and n = 3 (the end, not the start, decides)."""
    o = int(convention.position_offset)
    for n in (1, 3):
        start = LIMIT - o - (n - 1)
        out = exact_sinusoidal_positional_encoding(n, D, offset=start, convention=convention)
        assert out.shape == (n, D)
        with pytest.raises(ValueError, match="2\\*\\*53"):
            exact_sinusoidal_positional_encoding(n, D, offset=start + 1, convention=convention)


@pytest.mark.parametrize("convention", [CANONICAL, FAIRSEQ], ids=lambda c: c.name)
def test_chunk_iterator_domain_ends(convention: Convention) -> None:
    """iter_encoding_chunks over a range and an array: the same two ends, checked when called."""
    o = int(convention.position_offset)
    last = LIMIT - o
    assert len(_chunks(range(last - 2, last + 1), convention)) == 1
    assert len(_chunks(np.array([last - 2, last]), convention)) == 1
    for bad in (range(last - 2, last + 2), range(-LIMIT - o - 1, -LIMIT - o + 2)):
        with pytest.raises(ValueError, match="2\\*\\*53"):
            iter_encoding_chunks(bad, D, convention=convention)
    with pytest.raises(ValueError, match="2\\*\\*53"):
        iter_encoding_chunks(np.array([0, last + 1]), D, convention=convention)


def test_entry_points_agree_at_the_domain_end() -> None:
    """The three entry points give the same rows at 2^53 − 2 .. 2^53 (bit for bit)."""
    first = LIMIT - 2
    rows = exact_sinusoidal_positional_encoding(3, D, offset=first)
    assert np.array_equal(rows, exact_encode(np.arange(first, LIMIT + 1), D))
    assert np.array_equal(rows, np.vstack(_chunks(range(first, LIMIT + 1), CANONICAL)))


def test_scaled_reference_error_formula() -> None:
    """2^-52 exactly for A = 1; A·2^-51·(1 + 2^-50) for A = √(2/d): at d = 8 A = 1/2 exactly,
    so 2^-52 + 2^-102 (exact in float64)."""
    for d in (2, 8, 64, 4096):
        assert scaled_reference_error(CANONICAL, d) == 2.0**-52
        assert scaled_reference_error(FAIRSEQ, d) == 2.0**-52
    assert Fraction(scaled_reference_error(MLX, 8)) == Fraction(1, 2**52) + Fraction(1, 2**102)
    for d in (16, 64, 768):
        a = Fraction(MLX.amplitude(d))
        expected = a * Fraction(1, 2**51) * (1 + Fraction(1, 2**50))
        got = Fraction(scaled_reference_error(MLX, d))
        assert expected <= got <= expected * (1 + Fraction(1, 2**52))  # rounded up, one rounding


@pytest.mark.parametrize("convention", [CANONICAL, MLX], ids=lambda c: c.name)
def test_measured_error_within_the_stated_bound(convention: Convention) -> None:
    """|exact_encode − oracle| ≤ scaled_reference_error on hard inputs (fixed seed): 48 ints
    in [2^30, 2^31) (the proof's largest |p + o|), 48 below 4096, every seventh shifted by
    3/8 (fractional), d = 64. The bound is not loose by more than a factor 2^8 either (a
    bound inflated until it hides nothing would pass every verdict)."""
    d = 64
    rng = np.random.default_rng(42)
    candidates = np.concatenate([rng.integers(2**30, 2**31, 48), rng.integers(0, 4096, 48)]).astype(
        np.float64
    )
    candidates[::7] += 0.375
    ref = exact_encode(candidates, d, convention=convention)
    truth = oracle.encode(candidates, d, convention=convention, workers=1)
    worst = float(np.max(np.abs(ref - truth)))
    bound = scaled_reference_error(convention, d)
    assert worst <= bound
    assert worst > bound / 2**8


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_no_positions_is_an_empty_encoding(dtype: type) -> None:
    """Zero positions (int or float) give an empty (0, d) encoding, not a reduction error of
    the domain check over an empty array."""
    for convention in (CANONICAL, FAIRSEQ):
        got = exact_encode(np.empty(0, dtype=dtype), D, convention=convention)
        assert got.shape == (0, D) and got.dtype == np.float64
