"""The exact path computed in place gives the bits of the formulas it replaced (issue 37), and
every integer position gets the bits of the table, gathered or not, with or without numba.

The NumPy exact path (``turns``, ``sincos_turns``) now runs in a few reused buffers and
the scattered-integer gather skips copies; neither may change a bit (SPEC Annex C.1). The
old expressions are written out below from the commit before the change (6f9ab7b) and
compared bit for bit (``tobytes``, so the sign of zero counts) on random and edge inputs.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray

from pespec.numerics import kernels
from pespec.numerics.circle import TABLE_SIZE, circle_table, veltkamp_split
from pespec.numerics.turns import (
    PIECES,
    TWO_PI_HI,
    TWO_PI_LO,
    frac,
    sincos_dd,
    sincos_turns,
    turns,
)
from pespec.sinusoidal.reference import encoding, oracle
from pespec.sinusoidal.reference.exact import turn_pieces

F64 = NDArray[np.float64]
_S3, _S5, _S7 = -1 / 6, 1 / 120, -1 / 5040
_C2, _C4, _C6, _C8 = -1 / 2, 1 / 24, -1 / 720, 1 / 40320


def two_sum(a: F64, b: F64) -> tuple[F64, F64]:
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth), as pespec had it."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _old_turns(x: F64, pieces: F64, extra: tuple[F64, F64] | None = None) -> tuple[F64, F64]:
    x_hi, x_lo = veltkamp_split(x)
    x_hi, x_lo = x_hi[:, None], x_lo[:, None]
    w = [pieces[:, i] for i in range(PIECES)]
    total = frac(x_hi * w[0])
    low = np.zeros_like(total)
    halves = (x_hi, x_lo) if np.any(x_lo) else (x_hi,)
    for i in range(3):
        for half in halves:
            if i == 0 and half is x_hi:
                continue
            total, err = two_sum(total, frac(half * w[i]))
            low += err
            total = frac(total)
    small = x_hi * w[3] + x_hi * w[4]
    if len(halves) == 2:
        small = (x_hi * w[3] + x_lo * w[3]) + (x_hi * w[4] + x_lo * w[4])
    low += small
    if extra is not None:
        total, err = two_sum(total, np.broadcast_to(extra[0], total.shape))
        low += err + extra[1]
        total = frac(total)
    hi, lo = two_sum(total, low)
    return frac(hi), lo


def _old_sincos_turns(t_hi: F64, t_lo: F64) -> tuple[F64, F64, F64, F64]:
    scaled = t_hi * TABLE_SIZE
    m = np.rint(scaled)
    tau = (scaled - m) * (1.0 / TABLE_SIZE)
    index = m.astype(np.intp) & (TABLE_SIZE - 1)
    two_pi_a, two_pi_b = veltkamp_split(np.array(TWO_PI_HI))
    tau_a, tau_b = veltkamp_split(tau)
    r_hi = TWO_PI_HI * tau
    r_lo = ((two_pi_a * tau_a - r_hi) + two_pi_a * tau_b + two_pi_b * tau_a) + two_pi_b * tau_b
    r_lo += TWO_PI_HI * t_lo + TWO_PI_LO * tau
    r2 = r_hi * r_hi
    sin_tail = r_lo + r_hi * r2 * (_S3 + r2 * (_S5 + r2 * _S7))
    cos_m1 = r2 * (_C2 + r2 * (_C4 + r2 * (_C6 + r2 * _C8))) - r_hi * r_lo
    r_a, r_b = veltkamp_split(r_hi)
    rows = np.take(circle_table(), index, axis=0)
    ch, cl, sh, sl, ca, cb, sa, sb = (rows[..., i] for i in range(8))
    p = ch * r_hi
    p_err = ((ca * r_a - p) + ca * r_b + cb * r_a) + cb * r_b
    head, err = two_sum(sh, p)
    tail = err + (p_err + sl + ch * sin_tail + sh * cos_m1 + cl * r_hi)
    s_hi, s_lo = two_sum(head, tail)
    q = sh * r_hi
    q_err = ((sa * r_a - q) + sa * r_b + sb * r_a) + sb * r_b
    head, err = two_sum(ch, -q)
    tail = err + (cl - q_err + ch * cos_m1 - sh * sin_tail - sl * r_hi)
    c_hi, c_lo = two_sum(head, tail)
    return s_hi, s_lo, c_hi, c_lo


def _same_bits(new: tuple[F64, ...], old: tuple[F64, ...]) -> None:
    assert len(new) == len(old)
    for i, (a, b) in enumerate(zip(new, old, strict=True)):
        assert a.shape == b.shape, i
        assert a.tobytes() == b.tobytes(), f"part {i}: {np.count_nonzero(a != b)} values differ"


CONFIGS = [(512, 10000.0), (130, 2.5), (64, 1e7)]


def _positions() -> Iterator[F64]:
    rng = np.random.default_rng(37)
    yield rng.integers(0, 2**26, 200).astype(np.float64)  # x_lo = 0: the short branch
    yield rng.integers(0, 2**53, 200).astype(np.float64)
    yield np.sort(rng.integers(0, 2**31, 200)).astype(np.float64) // 64 * 64
    yield rng.uniform(0.0, 2.0**40, 200)
    yield np.array([0.0, 1.0, 2.0**26, 2.0**26 + 1, 2.0**53, 355.0, 103993.0, 0.5, 1e-300])


@pytest.mark.parametrize(("d_model", "base"), CONFIGS)
def test_turns_bits_equal_the_old_formulas(d_model: int, base: float) -> None:
    pieces = np.asarray(turn_pieces(d_model, base))
    offset = _old_turns(np.array([12345.0]), pieces)
    extra = (offset[0][0], offset[1][0])
    for x in _positions():
        _same_bits(turns(x, pieces), _old_turns(x, pieces))
        _same_bits(turns(x, pieces, extra), _old_turns(x, pieces, extra))
        _same_bits(turns(x, -pieces, extra), _old_turns(x, -pieces, extra))


def test_sincos_turns_bits_equal_the_old_formulas() -> None:
    pieces = np.asarray(turn_pieces(512))
    for x in _positions():
        t_hi, t_lo = _old_turns(x, pieces)
        _same_bits(sincos_turns(t_hi, t_lo), _old_sincos_turns(t_hi, t_lo))
        _same_bits(sincos_dd(x, pieces), _old_sincos_turns(*_old_turns(x, pieces)))
    # edges: table points (τ = 0, signed zeros), ±1/2, tiny turns, the low word's sign
    grid = np.arange(-TABLE_SIZE // 2, TABLE_SIZE // 2 + 1) / TABLE_SIZE
    edge = np.concatenate([grid, -grid, [0.0, -0.0, 5e-324, -5e-324, 2.0**-60, 0.5, -0.5]])
    for low in (0.0, -0.0, 2.0**-60, -(2.0**-60)):
        lo = np.full(edge.shape, low)
        _same_bits(sincos_turns(edge, lo), _old_sincos_turns(edge, lo))
        two_d = (edge.reshape(-1, 1)[:270], lo.reshape(-1, 1)[:270])
        _same_bits(sincos_turns(*two_d), _old_sincos_turns(*two_d))


# π's convergent numerators (p/q ≈ π): x·ω_0 = x rad lies within about 1/x of a multiple of π
NEAR_PI_MULTIPLES = [
    355,
    103993,
    833719,
    4272943,
    80143857,
    245850922,
    1068966896,
    6167950454,
    21053343141,
    1783366216531,
    6134899525417,
    30246273033735,
    2646693125139304,
]


def _adversarial() -> Iterator[NDArray[np.int64]]:
    rng = np.random.default_rng(38)
    yield np.sort(rng.integers(0, 2**31, 300))  # the benchmark's kind: distinct, in order
    yield rng.integers(0, 2**31, 300)  # unsorted
    yield np.repeat(rng.integers(0, 2**40, 50), 3) + np.tile([0, 1, 63], 50)  # shared anchors
    near = np.array(NEAR_PI_MULTIPLES, dtype=np.int64)
    yield np.concatenate([near + k for k in (-1, 0, 1)])
    yield np.array([2**53, 2**53 - 1, 2**53 - 64, 2**53 - 65, 2**52 + 1, 2**31, 2**26 - 1])
    yield -np.concatenate([near, [2**53, 2**53 - 63, 1, 64, 65, 2**26]])


@pytest.fixture(params=[False, True], ids=["numpy", "kernels"])
def path(request: pytest.FixtureRequest) -> Iterator[bool]:
    if request.param and not kernels.set_enabled(True) and not kernels.enabled():
        pytest.skip("numba is not installed")
    old = kernels.set_enabled(request.param)
    yield request.param
    kernels.set_enabled(old)


@pytest.mark.parametrize("d_model", [512, 8200])  # 8200: fine factors not cached (> 16 MiB)
def test_scattered_integers_get_the_bits_of_the_table(path: bool, d_model: int) -> None:
    for positions in _adversarial():
        if d_model > 512:
            positions = positions[:12]
        got = encoding.encode(positions, d_model)
        for row, x in enumerate(positions.tolist()):
            start = max(-(2**53), min(x - ROWS // 2, 2**53 + 1 - ROWS))
            assert got[row].tobytes() == _table(start, d_model)[x - start].tobytes(), (path, x)


ROWS = 130  # ≥ 2·GRID rows: the block rotation of a range (fewer rows are gathered)


def _table(start: int, d_model: int, base: float = 10000.0) -> F64:
    """Rows start … start + ROWS − 1 by the block rotation (a range through encode below 0)."""
    if start >= 0:
        return encoding.sinusoidal_positional_encoding(ROWS, d_model, base=base, offset=start)
    return encoding.encode(np.arange(start, start + ROWS), d_model, base=base)


POSITION = st.one_of(
    st.integers(-(2**31), 2**31),
    st.integers(-(2**53), 2**53),
    st.sampled_from(NEAR_PI_MULTIPLES).flatmap(lambda p: st.integers(-p - 2, p + 2)),
)


@given(
    positions=st.lists(POSITION, min_size=1, max_size=6),
    d_model=st.sampled_from([2, 8, 34, 64]),
    base=st.floats(2.0, 1e7, allow_nan=False),
)
def test_numpy_path_at_drawn_integers_is_the_table_and_within_the_bound(
    positions: list[int], d_model: int, base: float
) -> None:
    """The NumPy path at drawn scattered integers: the table's bits at every position, and
    within 2^-52 of the certified oracle where SPEC Annex C.2's theorem applies
    (|p| ≤ 2^40, c = 1)."""
    old = kernels.set_enabled(False)
    try:
        p = np.array(positions, dtype=np.int64)
        got = encoding.encode(p, d_model, base=base)
        for row, x in enumerate(positions):
            start = max(-(2**53), min(x - ROWS // 2, 2**53 + 1 - ROWS))
            table = _table(start, d_model, base)
            assert got[row].tobytes() == table[x - start].tobytes(), x
    finally:
        kernels.set_enabled(old)
    inside = np.abs(p) <= 2**40
    if np.any(inside):
        expected = oracle.encode(p[inside], d_model, base=base, workers=1)
        assert float(np.max(np.abs(got[inside] - expected))) <= 2.0**-52
