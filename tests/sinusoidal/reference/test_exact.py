"""The exact float64 reference (SPEC Annex C) against the oracle, the golden fixtures and mpmath.

Expected values never come from the code under test: the certified oracle
(:func:`pespec.sinusoidal.reference.oracle.encode`, MPFR with a Ziv loop, correctly rounded), the
committed golden fixtures (certified), and mpmath at 60+ digits for the constants.
BOUND = 2^-52 is the theorem of SPEC Annex C (max |reference − oracle| for |p + o| < 2^31,
|c·(p + o)| ≤ 2^40, d ≤ 65536, base in [2, 10^7]), not a tolerance chosen to pass.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.typing import NDArray

from pespec.numerics import circle
from pespec.numerics import turns as angle_turns
from pespec.sinusoidal.golden import load_fixture_sets
from pespec.sinusoidal.reference import encoding, exact, oracle
from pespec.sinusoidal.reference.conventions import (
    LAYOUTS,
    PRESETS,
    Convention,
    diffusers_convention,
)
from pespec.sinusoidal.reference.naive import naive_encode

BOUND = 2.0**-52
LIMIT = 2**31 - 1  # |p + o| < 2^31: the domain of the requirement


def max_error(got: NDArray[np.float64], expected: NDArray[np.float64]) -> float:
    assert got.shape == expected.shape
    return float(np.max(np.abs(got - expected))) if got.size else 0.0


# --- constants against mpmath ----------------------------------------------------------------


def test_two_pi_words_match_mpmath() -> None:
    with mpmath.workdps(80):
        two_pi = 2 * mpmath.pi
        hi = mpmath.mpf(exact.TWO_PI_HI)
        assert exact.TWO_PI_HI == float(two_pi)  # correctly rounded head
        assert abs(hi + mpmath.mpf(exact.TWO_PI_LO) - two_pi) <= mpmath.mpf(2) ** -104
        assert exact.TWO_PI_LO == float(two_pi - hi)


def test_inverse_two_pi_fixed_point_matches_mpmath() -> None:
    with mpmath.workdps(120):
        expected = int(mpmath.floor(mpmath.mpf(2) ** 256 / (2 * mpmath.pi)))
    assert exact.inv_two_pi_fixed() == expected


def test_circle_table_matches_mpmath() -> None:
    cos_hi, cos_lo, sin_hi, sin_lo, cos_a, cos_b, sin_a, sin_b = circle.circle_table().T
    with mpmath.workdps(60):
        for m in range(exact.TABLE_SIZE):
            angle = 2 * mpmath.pi * m / exact.TABLE_SIZE
            for hi, lo, value in (
                (cos_hi, cos_lo, mpmath.cos(angle)),
                (sin_hi, sin_lo, mpmath.sin(angle)),
            ):
                assert abs(mpmath.mpf(hi[m]) + mpmath.mpf(lo[m]) - value) <= mpmath.mpf(2) ** -104
    for head, a, b in ((cos_hi, cos_a, cos_b), (sin_hi, sin_a, sin_b)):
        assert np.array_equal(a + b, head)  # the split is exact
        assert all(_significant_bits(v) <= 26 for v in np.concatenate([a, b]).tolist())


def _significant_bits(value: float) -> int:
    """Number of significant bits of a float64 (0 for zero)."""
    if value == 0.0:
        return 0
    numerator, _ = abs(value).as_integer_ratio()
    return numerator.bit_length() - (numerator & -numerator).bit_length() + 1


TURN_CONFIGS = [
    (8, 10000.0, PRESETS["canonical"]),
    (6, 3.7, diffusers_convention(True, 0.5, 1000.0)),
    (64, 1e7, Convention(frequency_shift=2.25, argument_scale=-0.01, name="odd")),
]


@pytest.mark.parametrize(("d_model", "base", "convention"), TURN_CONFIGS)
def test_turn_pieces_are_26_bit_words_summing_to_c_omega_over_two_pi(
    d_model: int, base: float, convention: Convention
) -> None:
    pieces = exact.turn_pieces(d_model, base, convention=convention)
    hi, lo = oracle.frequencies_dd(d_model, base, convention=convention)
    with mpmath.workdps(80):
        for k in range(d_model // 2):
            wanted = (
                mpmath.mpf(convention.argument_scale)
                * (mpmath.mpf(hi[k]) + mpmath.mpf(lo[k]))
                / (2 * mpmath.pi)
            )
            total = mpmath.fsum(mpmath.mpf(w) for w in pieces[k].tolist())
            assert abs(total - wanted) <= abs(wanted) * mpmath.mpf(2) ** -128
    assert all(_significant_bits(w) <= 26 for w in pieces.ravel().tolist())
    assert np.all(np.abs(pieces[:, 1:]) <= np.abs(pieces[:, :-1]))


def test_error_budget_proves_the_bound() -> None:
    # SPEC Annex C: |r − o| ≤ ½ulp + |y − z| + ½ulp with |y − z| ≤ ½ulp(head) + ε'.
    terms = {step: bound for step, _, bound in exact.error_budget()}
    assert terms["δ"] <= mpmath.mpf(2) ** -60
    assert 3 * mpmath.mpf(2) ** -54 + terms["ε'"] < mpmath.mpf(2) ** -52


def test_turns_match_mpmath() -> None:
    # x·W_k mod 1 for W_k = Σ pieces taken exactly. The reduction's error is the two
    # "reduction" rows of the Annex C budget (radians, at |θ| = 2^40): the first grows with the
    # turns |x·W|, the second does not; rescaled to this test's |x·W| and to turns they give
    # about 2^-98.5 (observed 2^-102.2).
    pieces = exact.turn_pieces(64, 10000.0, convention=PRESETS["canonical"])
    rng = np.random.default_rng(3)
    x = np.concatenate(
        [rng.integers(-(2**31), 2**31, 40).astype(np.float64), rng.uniform(-(2**31), 2**31, 40)]
    )
    hi, lo = angle_turns.turns(x, pieces)
    assert np.all(np.abs(hi) <= 0.5)
    with mpmath.workdps(60):
        growing, constant = (b for step, _, b in exact.error_budget() if step == "reduction")
        budget_turns = mpmath.mpf(exact.MAX_SCALED_POSITION) / (2 * mpmath.pi)
        turns = mpmath.mpf(float(np.max(np.abs(x)))) * mpmath.fsum(pieces[0].tolist())
        bound = (growing * turns / budget_turns + constant) / (2 * mpmath.pi)
        assert bound < mpmath.mpf(2) ** -98
        for i in range(x.shape[0]):
            for k in range(0, 32, 3):
                w = mpmath.fsum(mpmath.mpf(v) for v in pieces[k].tolist())
                exact_turns = mpmath.mpf(x[i]) * w
                diff = mpmath.mpf(hi[i, k]) + mpmath.mpf(lo[i, k]) - exact_turns
                assert abs(diff - mpmath.nint(diff)) <= bound


def test_double_double_sin_cos_within_delta() -> None:
    # δ of SPEC Annex C without its frequency term: 2π·(t_hi + t_lo) is the exact angle here.
    budget = exact.error_budget()
    assert budget[0][0] == "frequency"
    delta = next(bound for step, _, bound in budget if step == "δ") - budget[0][2]
    rng = np.random.default_rng(5)
    edges = (np.arange(-128, 129) + 0.5) / exact.TABLE_SIZE  # worst |ρ|: between two entries
    t_hi = np.concatenate([rng.uniform(-0.5, 0.5, 300), np.clip(edges, -0.5, 0.5)])
    t_lo = rng.uniform(-(2.0**-54), 2.0**-54, t_hi.shape[0])
    s_hi, s_lo, c_hi, c_lo = angle_turns.sincos_turns(t_hi, t_lo)
    with mpmath.workdps(50):
        for i in range(t_hi.shape[0]):
            angle = 2 * mpmath.pi * (mpmath.mpf(t_hi[i]) + mpmath.mpf(t_lo[i]))
            assert abs(mpmath.mpf(s_hi[i]) + mpmath.mpf(s_lo[i]) - mpmath.sin(angle)) <= delta
            assert abs(mpmath.mpf(c_hi[i]) + mpmath.mpf(c_lo[i]) - mpmath.cos(angle)) <= delta


# --- against the oracle on drawn configurations ----------------------------------------------

CUSTOM = st.builds(
    Convention,
    layout=st.sampled_from(LAYOUTS),
    frequency_shift=st.sampled_from([0.0, 1.0, 0.5, 2.25]),
    position_offset=st.integers(-5, 5),
    argument_scale=st.sampled_from([1.0, 0.5, 100.0, -3.0, 0.01]),
    name=st.just("drawn"),
)
CONVENTIONS = st.one_of(st.sampled_from(list(PRESETS.values())), CUSTOM)


@st.composite
def position_arrays(draw: Any, max_n: int = 24) -> NDArray[Any]:
    """Unit ranges anywhere below 2^31, scattered ints, or floats (fractional or integral)."""
    n = draw(st.integers(1, max_n))
    kind = draw(st.sampled_from(["range", "ints", "floats"]))
    limit = LIMIT - 8  # room for the convention's offset o
    if kind == "range":
        start = draw(st.integers(-limit, limit - n))
        return np.arange(start, start + n, dtype=np.int64)
    if kind == "ints":
        return np.array(draw(st.lists(st.integers(-limit, limit), min_size=n, max_size=n)))
    values = st.floats(-float(limit), float(limit), allow_nan=False, allow_infinity=False)
    return np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64)


def _defined(d_model: int, convention: Convention) -> bool:
    try:
        convention.denominator(d_model)
    except ValueError:
        return False
    return True


@pytest.mark.slow
@given(
    positions=position_arrays(),
    d_model=st.sampled_from([2, 4, 6, 10, 16, 34, 64]),
    base=st.floats(2.0, 1e7, allow_nan=False),
    convention=CONVENTIONS,
)
def test_encode_within_2_pow_minus_52_of_the_oracle(
    positions: NDArray[Any], d_model: int, base: float, convention: Convention
) -> None:
    assume(_defined(d_model, convention))  # e.g. d = 2 with s = 1: ω undefined (§3)
    expected = oracle.encode(positions, d_model, base=base, convention=convention, workers=1)
    assert (
        max_error(encoding.encode(positions, d_model, base=base, convention=convention), expected)
        <= BOUND
    )


@pytest.mark.slow
@pytest.mark.parametrize("convention", list(PRESETS.values()), ids=list(PRESETS))
def test_table_at_the_end_of_the_domain_within_bound(convention: Convention) -> None:
    # The last 80 positions below 2^31 (minus the preset's offset): no drift with position.
    offset = LIMIT - 80 - convention.position_offset
    table = encoding.sinusoidal_positional_encoding(80, 128, offset=offset, convention=convention)
    positions = np.arange(offset, offset + 80)
    expected = oracle.encode(positions, 128, convention=convention, workers=1)
    assert max_error(table, expected) <= BOUND


EDGE_POSITIONS = np.array(
    [0.0, -0.0, 5e-324, 1e-300, 0.5, -0.75, 2.0**31 - 1, -(2.0**31 - 1), 2.0**31 - 0.5, 1e9 + 0.3]
)


@pytest.mark.parametrize(("d_model", "base"), [(2, 2.0), (4, 1e7), (256, 10000.0)])
def test_edge_positions_within_bound(d_model: int, base: float) -> None:
    expected = oracle.encode(EDGE_POSITIONS, d_model, base=base, workers=1)
    assert max_error(encoding.encode(EDGE_POSITIONS, d_model, base=base), expected) <= BOUND


@pytest.mark.slow
def test_widest_model_at_the_last_position() -> None:
    # d = 65536, base 10^7: the smallest frequencies and the largest position.
    positions = np.array([LIMIT, 12345.5])
    expected = oracle.encode(positions, 65536, base=1e7, workers=1)
    assert max_error(encoding.encode(positions, 65536, base=1e7), expected) <= BOUND


def test_naive_formula_drifts_where_the_exact_one_does_not() -> None:
    # The comparison can fail: the naive path rounds θ before sin/cos and is far off at 2^31.
    positions = np.arange(LIMIT - 4, LIMIT + 1)
    expected = oracle.encode(positions, 64, workers=1)
    assert max_error(naive_encode(positions, 64), expected) > 1e6 * BOUND
    assert max_error(encoding.encode(positions, 64), expected) <= BOUND


# --- sin is odd, bit for bit ---------------------------------------------------------------------

TINY = 2.0**-1074  # the smallest subnormal: sin of such angles is below the 2^-52 bound
SIGN_CASES = [
    # (positions, d_model, base, convention)
    (
        [-TINY, TINY, -7 * TINY, -(2.0**-1060), -(2.0**-1022), -1e-310],
        4,
        10000.0,
        PRESETS["canonical"],
    ),
    ([-TINY, -3 * TINY, -(2.0**-1040), TINY], 64, 10000.0, PRESETS["tensor2tensor"]),
    # c < 0: positive positions give negative angles
    ([TINY, 2.0**-1064, -TINY, 1e-320], 4, 10000.0, Convention(argument_scale=-0.5, name="neg")),
    # s = 2 − 2^-9 with d = 4: ω_1 = 10^-512 underflows to 0 in float64, so sin(p·ω_1) is
    # −0.0 for every negative p in the oracle (the true value is negative and tiny)
    ([-3, -3.5, -1, 3, -(2**40)], 4, 10.0, Convention(frequency_shift=1.998046875, name="s")),
]


@pytest.mark.parametrize(("positions", "d_model", "base", "convention"), SIGN_CASES)
def test_sine_of_tiny_angles_has_the_sign_of_the_oracle(
    positions: list[float], d_model: int, base: float, convention: Convention
) -> None:
    # The oracle is correctly rounded, so it returns −0.0 or a negative subnormal for the
    # sine of a tiny negative angle; the reference may round the magnitude differently (the
    # bound is absolute) but not the sign: sin is odd.
    expected = oracle.encode(positions, d_model, base=base, convention=convention, workers=1)
    got = encoding.encode(positions, d_model, base=base, convention=convention)
    assert max_error(got, expected) <= BOUND
    assert np.array_equal(np.signbit(got), np.signbit(expected))


MIRROR_POSITIONS = np.array(
    [TINY, 1e-300, 0.3, 5.0, 63.0, 64.0, 100.5, 12345.0, 2.0**31 - 0.5, 2.0**40 + 1, 1e9 + 0.3]
)


@pytest.mark.parametrize(
    "convention",
    [PRESETS["canonical"], PRESETS["fairseq"], Convention(argument_scale=-0.01, name="neg")],
    ids=["canonical", "fairseq", "negative-scale"],
)
def test_mirrored_positions_negate_the_sine_bit_for_bit(convention: Convention) -> None:
    # sin(−θ) = −sin θ and cos(−θ) = cos θ exactly (the reference evaluates |θ|): the rows at
    # y = p + o and −y differ only in the sign bit of the sine columns (y ≠ 0: sin 0 = +0.0).
    # Integer positions are mirrored through the offset (p' = −p − 2o); fractional ones only
    # without an offset.
    d, o = 32, convention.position_offset
    positions = MIRROR_POSITIONS if o == 0 else np.arange(-300, 300)[np.arange(-300, 300) != -o]
    mirrored = -positions - 2 * o
    sin_cols, cos_cols = convention.sin_columns(d), convention.cos_columns(d)
    got, mirror = (
        encoding.encode(positions, d, convention=convention),
        encoding.encode(mirrored, d, convention=convention),
    )
    assert np.array_equal((-got[:, sin_cols]).view(np.int64), mirror[:, sin_cols].view(np.int64))
    assert np.array_equal(got[:, cos_cols].view(np.int64), mirror[:, cos_cols].view(np.int64))


@pytest.mark.parametrize("scale", [1.0, -1.0])
def test_ranges_through_zero_equal_encode_bit_for_bit(scale: float) -> None:
    # A range crossing 0 is filled as mirrored positive ranges plus the rest; every row must
    # equal the row of its position alone (negative offsets of the convention included), and
    # the row of p + o = 0 has sin 0 = +0.0 like the oracle's, whatever the sign of c.
    convention = Convention(position_offset=-200, argument_scale=scale, name="negative-offset")
    table = encoding.sinusoidal_positional_encoding(333, 16, offset=7, convention=convention)
    rows = encoding.encode(np.arange(7, 340)[::-1], 16, convention=convention)[::-1]
    assert np.array_equal(table.view(np.int64), rows.view(np.int64))
    zero = oracle.encode([200], 16, convention=convention, workers=1)[0]
    assert np.array_equal(table[200 - 7].view(np.int64), zero.view(np.int64))
    streamed = list(
        encoding.iter_encoding_chunks(range(-130, 70), 16, convention=convention, chunk_rows=45)
    )
    whole = encoding.encode(np.arange(-130, 70).astype(np.float64), 16, convention=convention)
    assert np.array_equal(
        np.concatenate([b for _, b in streamed]).view(np.int64), whole.view(np.int64)
    )


# --- against the golden fixtures ----------------------------------------------------------------

FIXTURES = load_fixture_sets()


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_golden_fixtures_within_bound(fixture: Any) -> None:
    got = encoding.encode(
        fixture.positions, fixture.d_model, base=fixture.base, convention=fixture.convention
    )
    assert max_error(got[:, fixture.columns], fixture.values) <= BOUND


# --- every element is a function of its position --------------------------------------------


def test_element_depends_on_position_only() -> None:
    d, offset, n = 64, 1000, 300
    table = encoding.sinusoidal_positional_encoding(n, d, offset=offset)
    positions = np.arange(offset, offset + n)
    order = np.random.default_rng(7).permutation(n)
    assert np.array_equal(encoding.encode(positions[order], d), table[order])
    assert np.array_equal(encoding.encode(positions.astype(np.float64), d), table)
    assert np.array_equal(
        encoding.sinusoidal_positional_encoding(50, d, offset=offset + 77), table[77:127]
    )
    streamed = list(encoding.iter_encoding_chunks(range(offset, offset + n), d, chunk_rows=37))
    assert [first for first, _ in streamed] == list(range(0, n, 37))
    assert np.array_equal(np.concatenate([block for _, block in streamed]), table)


def test_chunks_of_strided_ranges_and_arrays_equal_encode() -> None:
    for positions in (range(-500, 2000, 3), range(2**31 - 1, 2**31 - 400, -7)):
        whole = encoding.encode(np.arange(positions.start, positions.stop, positions.step), 16)
        blocks = [b for _, b in encoding.iter_encoding_chunks(positions, 16, chunk_rows=64)]
        assert np.array_equal(np.concatenate(blocks), whole)
    mixed = np.array([3.25, -7.0, 2.0**30 + 0.5, 11.0, 0.0])
    blocks = [b for _, b in encoding.iter_encoding_chunks(mixed, 16, chunk_rows=2)]
    assert np.array_equal(np.concatenate(blocks), encoding.encode(mixed, 16))


def test_frequencies_are_the_correctly_rounded_oracle_values() -> None:
    hi, _ = oracle.frequencies_dd(64, 500.0, convention=PRESETS["fairseq"])
    got = encoding.frequencies(64, 500.0, convention=PRESETS["fairseq"])
    assert np.array_equal(got, hi)
    got[0] = 0.0  # a fresh, writable copy: the oracle's cache is untouched
    assert oracle.frequencies_dd(64, 500.0, convention=PRESETS["fairseq"])[0][0] == 1.0


# --- memory -------------------------------------------------------------------------------------


def _peak_bytes(run: Any) -> int:
    """Peak traced allocation (bytes) while ``run()`` executes."""
    import tracemalloc

    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_extra_memory_of_a_full_table_does_not_depend_on_length() -> None:
    # SPEC Annex C: besides the output, at most 4096·d bytes (fine offsets) + 4 MiB (tiles),
    # whatever L; that is within the required output + O(d·√L).
    d = 256
    encoding.sinusoidal_positional_encoding(70, d)  # warm the caches (frequencies, tables)
    for length in (1024, 8192):
        peak = _peak_bytes(lambda n=length: encoding.sinusoidal_positional_encoding(n, d))
        assert peak - length * d * 8 <= 4096 * d + 4 * 2**20


def test_streaming_memory_does_not_grow_with_length() -> None:
    d, rows = 512, 256
    encoding.sinusoidal_positional_encoding(70, d)

    def stream(n_chunks: int) -> None:
        for _, block in encoding.iter_encoding_chunks(range(n_chunks * rows), d, chunk_rows=rows):
            assert block.shape == (rows, d)

    short, long = _peak_bytes(lambda: stream(2)), _peak_bytes(lambda: stream(40))
    assert long <= 1.05 * short  # 20 times the rows, the same memory
    assert short <= 2 * rows * d * 8 + 4096 * d + 4 * 2**20


# --- validation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (
            lambda: encoding.iter_encoding_chunks(range(3), 4, chunk_rows=0),
            ValueError,
            ("chunk_rows", "0"),
        ),
        (
            lambda: encoding.iter_encoding_chunks(range(3), 4, chunk_rows=True),
            TypeError,
            ("chunk_rows", "bool"),
        ),
        (
            lambda: encoding.iter_encoding_chunks(np.zeros((2, 2)), 4),
            ValueError,
            ("positions", "(2, 2)"),
        ),
        (lambda: encoding.iter_encoding_chunks(range(3), 5), ValueError, ("d_model", "5")),
        (lambda: encoding.encode([2**53 + 2], 4), ValueError, ("positions", str(2**53 + 2))),
        (lambda: encoding.encode([1e300], 4), ValueError, ("positions", "2**53")),
        (
            lambda: encoding.encode([2.0**53], 4, convention=PRESETS["fairseq"]),
            ValueError,
            ("positions", str(2**53 + 2)),
        ),
        (
            # fractional p with an offset near 2^53: |p + o| = 2^53 + 1.5 is outside the domain
            lambda: encoding.encode(
                [2.5], 4, convention=Convention(position_offset=2**53 - 1, name="o")
            ),
            ValueError,
            ("positions", str(2**53 + 2)),
        ),
        (
            lambda: encoding.iter_encoding_chunks(range(2**54, 2**54 + 2), 4),
            ValueError,
            ("positions",),
        ),
        (
            lambda: encoding.iter_encoding_chunks(np.array([1.5, 2.0**60]), 4),
            ValueError,
            ("positions", str(2**60)),
        ),
    ],
)
def test_bad_input_names_the_parameter(
    call: Any, error: type[Exception], words: tuple[str, ...]
) -> None:
    with pytest.raises(error) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_row_chunks_tile_the_rows_in_order() -> None:
    """row_chunks(n, width): consecutive (start, stop) tiling [0, n), each of at most
    max(1, CHUNK_ELEMENTS // width) rows (several chunks for n·width > CHUNK_ELEMENTS)."""
    for n, width in [(10_000, 3), (5, 1 << 20), (0, 4)]:
        rows = max(1, angle_turns.CHUNK_ELEMENTS // width)
        chunks = list(angle_turns.row_chunks(n, width))
        expected = [(s, min(n, s + rows)) for s in range(0, n, rows)]
        assert chunks == expected


def test_exact_defaults() -> None:
    """Defaults of the exact path's entry points: base 10000 (ω_k = 10000^(-k/4) for d = 8, from
    mpmath, correctly rounded), offset 0 (row 0 is position 0: sin 0 = 0, cos 0 = 1), and chunks
    of 4096 rows."""
    from pespec.sinusoidal.reference._oracle_mpmath import mpf_to_float

    with mpmath.workprec(400):
        expected = [mpf_to_float(mpmath.power(10000, -mpmath.mpf(k) / 4)) for k in range(4)]
    assert exact.exact_frequencies(8).tolist() == expected
    assert np.array_equal(exact.turn_pieces(8), exact.turn_pieces(8, base=10000.0))
    row = exact.exact_sinusoidal_positional_encoding(2, 8)[0]
    assert sorted(row.tolist()) == [0.0] * 4 + [1.0] * 4
    starts = [start for start, _ in exact.iter_encoding_chunks(range(5000), 8)]
    assert starts == [0, 4096]


def test_argument_scale_between_zero_and_one_is_not_a_negation() -> None:
    """A convention with 0 < c < 1 (diffusers' scale = 0.5): the exact path equals the oracle
    (c·p·ω, not its negation) at positions 1..5."""
    convention = diffusers_convention(scale=0.5)
    got = exact.exact_encode(np.arange(1, 6), 8, convention=convention)
    assert np.array_equal(got, oracle.encode(list(range(1, 6)), 8, convention=convention))


def test_stream_of_a_descending_range_checks_its_first_end_with_the_offset() -> None:
    """fairseq (position offset o = 2): range(2^53 − 1, 2^53 − 4, −1) starts at p + o = 2^53 + 1,
    beyond the float64 domain |p + o| ≤ 2^53, though its last p + o = 2^53 − 1 is inside."""
    positions = range(2**53 - 1, 2**53 - 4, -1)
    with pytest.raises(ValueError, match=r"\|position \+ position_offset\| <= 2\*\*53"):
        exact.iter_encoding_chunks(positions, 8, convention=PRESETS["fairseq"])
