"""SinusoidalPositionalEncoding and LearnedPositionalEncoding: shapes, the
table, on-the-fly extension past max_seq_len, dropout, initialisation and backward.

The sinusoidal layer's expected encoding comes from
:func:`~pespec.sinusoidal.reference.encoding.sinusoidal_positional_encoding`, itself checked against
mpmath in tests/sinusoidal/reference/test_encoding.py; the layer (slicing, offsets, extension,
dropout)
is what is under test here, plus one direct mpmath check of rows past the table.

The exact reference computes every element from its own position only (block rotation
anchored on a fixed grid, SPEC Annex C), so two computations of the same position over
different ranges (the table, a range past it, a one-shot call) agree bit for bit, and the
tests below demand exactly that.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from pespec.sinusoidal.reference import sinusoidal_positional_encoding
from pespec.teaching import LearnedPositionalEncoding, SinusoidalPositionalEncoding

# The small reference configuration of the usual teaching exercise.
D_MODEL, MAX_SEQ_LEN, SEQ_LEN, BATCH = 64, 128, 32, 2
U = 2.0**-53


def element_bound(theta_max: float, base: float = 10000.0) -> float:
    """e(θ) of tests/sinusoidal/reference/test_encoding.py."""
    return (theta_max * (4.0 * math.log(base) + 3.0) + 8.0) * U


def _x(shape: tuple[int, ...], seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


# --- SinusoidalPositionalEncoding ------------------------------------------------------


def test_batched_forward_shape() -> None:
    layer = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL)
    assert layer.forward(_x((BATCH, SEQ_LEN, D_MODEL))).shape == (BATCH, SEQ_LEN, D_MODEL)


@pytest.mark.parametrize("batch", [1, 4, 16])
def test_variable_batch_sizes(batch: int) -> None:
    layer = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL)
    x = _x((batch, SEQ_LEN, D_MODEL))
    out = layer.forward(x)
    assert out.shape == (batch, SEQ_LEN, D_MODEL)
    # every batch element gets the same table rows
    assert np.array_equal(out, x + layer.pe[None, :SEQ_LEN])


@pytest.mark.parametrize("seq_len", [1, 16, 128, 512])
def test_variable_sequence_lengths_within_max(seq_len: int) -> None:
    layer = SinusoidalPositionalEncoding(512, D_MODEL)
    x = _x((BATCH, seq_len, D_MODEL))
    out = layer.forward(x)
    assert out.shape == (BATCH, seq_len, D_MODEL)
    assert np.array_equal(out, x + layer.pe[:seq_len])
    direct = sinusoidal_positional_encoding(seq_len, D_MODEL)
    assert np.array_equal(layer.pe[:seq_len], direct)


def test_unbatched_input_and_float32_input() -> None:
    layer = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL)
    x = _x((SEQ_LEN, D_MODEL)).astype(np.float32)
    out = layer.forward(x)
    assert out.shape == (SEQ_LEN, D_MODEL) and out.dtype == np.float64
    # float32 → float64 is exact, so the sum is the float64 sum of the same numbers
    assert np.array_equal(out, x.astype(np.float64) + layer.pe[:SEQ_LEN])


def test_table_is_read_only_and_equals_the_function() -> None:
    layer = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL, base=500.0)
    assert layer.pe.shape == (MAX_SEQ_LEN, D_MODEL)
    assert not layer.pe.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        layer.pe[0, 0] = 1.0
    assert np.array_equal(layer.pe, sinusoidal_positional_encoding(MAX_SEQ_LEN, 64, base=500.0))
    # get_encoding hands out views that cannot be written either
    view = layer.get_encoding(10, offset=3)
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 1.0


@pytest.mark.parametrize(
    ("seq_len", "offset"),
    [(10, 0), (10, 118), (10, 119), (10, 128), (200, 0), (5, 1000), (0, 500)],
    ids=["inside", "ends-at-table-end", "straddles", "just-past", "longer", "far", "empty"],
)
def test_get_encoding_inside_straddling_and_past_the_table(seq_len: int, offset: int) -> None:
    # Never silently wrong: positions below max_seq_len come from the table, positions
    # past it from the reference function for exactly that range; all of them agree with
    # a direct computation of the whole range bit for bit (SPEC Annex C).
    layer = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL)
    got = layer.get_encoding(seq_len, offset)
    assert got.shape == (seq_len, D_MODEL)
    inside = max(0, min(offset + seq_len, MAX_SEQ_LEN) - offset)
    assert np.array_equal(got[:inside], layer.pe[offset : offset + inside])
    first_past = max(offset, MAX_SEQ_LEN)
    past = sinusoidal_positional_encoding(seq_len - inside, D_MODEL, offset=first_past)
    assert np.array_equal(got[inside:], past)
    direct = sinusoidal_positional_encoding(seq_len, D_MODEL, offset=offset)
    assert np.array_equal(got, direct)


def test_forward_past_max_seq_len_equals_direct_encoding() -> None:
    layer = SinusoidalPositionalEncoding(16, D_MODEL)
    x = _x((BATCH, 40, D_MODEL))
    for offset in (0, 7, 16, 30):
        out = layer.forward(x, offset=offset)
        direct = x + sinusoidal_positional_encoding(40, D_MODEL, offset=offset)
        assert np.array_equal(out, direct)  # same encodings bit for bit, same float64 sums
    # wholly past the table: exactly X + the direct computation of that range
    assert np.array_equal(
        layer.forward(x, offset=16), x + sinusoidal_positional_encoding(40, D_MODEL, offset=16)
    )
    # an empty table (max_seq_len = 0) extends the same way
    empty = SinusoidalPositionalEncoding(0, D_MODEL)
    assert np.array_equal(empty.forward(x), x + sinusoidal_positional_encoding(40, D_MODEL))


def test_rows_past_the_table_against_mpmath() -> None:
    # Positions 130 and 131 of an 8-row table: θ ≤ 131, bound (B) of test_reference_api.
    layer = SinusoidalPositionalEncoding(8, 4)
    rows = layer.get_encoding(2, offset=130)
    with mp.workdps(30):
        expected = [
            [f(p * mp.power(10000, mp.mpf(-2 * i) / 4)) for i in (0, 1) for f in (mp.sin, mp.cos)]
            for p in (130, 131)
        ]
    np.testing.assert_allclose(
        rows, np.array(expected, dtype=np.float64), rtol=0, atol=element_bound(131)
    )


def test_incremental_decoding_offsets_compose() -> None:
    # Feeding a sequence in pieces with the running offset gives the one-shot result: bit
    # for bit wherever the pieces split, since every row depends on its position only.
    layer = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL)
    x = _x((BATCH, 150, D_MODEL))
    whole = layer.forward(x)
    pieces = [layer.forward(x[:, a:b], offset=a) for a, b in [(0, 100), (100, 127), (127, 150)]]
    assert np.array_equal(np.concatenate(pieces, axis=1), whole)
    pieces = [layer.forward(x[:, a:b], offset=a) for a, b in [(0, 130), (130, 141), (141, 150)]]
    assert np.array_equal(np.concatenate(pieces, axis=1), whole)


def test_dropout_only_in_training_and_inverted() -> None:
    p = 0.25
    layer = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL, dropout=p)
    x = _x((BATCH, SEQ_LEN, D_MODEL))
    clean = x + layer.pe[:SEQ_LEN]
    assert np.array_equal(layer.forward(x), clean)  # training=False: no dropout
    out = layer.forward(x, training=True)
    kept = out != 0.0
    # survivors are scaled by exactly 1/(1 − p) (same float operations as the layer's
    # division; 0.75 is exact, one rounding)
    assert np.array_equal(out[kept], clean[kept] / (1.0 - p))
    # the dropped fraction is Binomial(n, p)/n: within 6 standard deviations of p
    n = out.size
    assert abs((~kept).mean() - p) <= 6 * math.sqrt(p * (1 - p) / n)


def test_dropout_deterministic_given_rng() -> None:
    x = _x((BATCH, SEQ_LEN, D_MODEL))

    def run(seed: int) -> np.ndarray:
        layer = SinusoidalPositionalEncoding(
            MAX_SEQ_LEN, D_MODEL, dropout=0.1, rng=np.random.default_rng(seed)
        )
        return layer.forward(x, training=True)

    assert run(7).tobytes() == run(7).tobytes()
    assert not np.array_equal(run(7), run(8))
    # rng=None is seeded (default_rng(0)): deterministic too
    a = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL, dropout=0.1).forward(x, training=True)
    b = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL, dropout=0.1).forward(x, training=True)
    assert a.tobytes() == b.tobytes()


def test_sinusoidal_forward_deterministic() -> None:
    x = _x((BATCH, SEQ_LEN, D_MODEL))
    a = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL).forward(x, offset=3)
    b = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL).forward(x, offset=3)
    assert a.tobytes() == b.tobytes()


# --- LearnedPositionalEncoding ---------------------------------------------------------


def test_learned_forward_shape_and_values() -> None:
    layer = LearnedPositionalEncoding(MAX_SEQ_LEN, D_MODEL)
    x = _x((BATCH, SEQ_LEN, D_MODEL))
    out = layer.forward(x)
    assert out.shape == (BATCH, SEQ_LEN, D_MODEL)
    assert np.array_equal(out, x + layer.embedding[:SEQ_LEN])
    assert layer.forward(x[0]).shape == (SEQ_LEN, D_MODEL)


def test_learned_odd_d_model_allowed() -> None:
    # A common pitfall: a learned table is the fix for an odd dimension.
    layer = LearnedPositionalEncoding(8, 513)
    assert layer.forward(np.zeros((1, 8, 513))).shape == (1, 8, 513)


def test_learned_initialisation_statistics() -> None:
    # GPT-2 medium config: n = 1024·768 samples of N(0, 0.02²). The sample mean has
    # standard deviation 0.02/√n; the sample standard deviation has relative standard
    # deviation ≈ 1/√(2n). Six of each.
    layer = LearnedPositionalEncoding(1024, 768, rng=np.random.default_rng(2026))
    n = layer.embedding.size
    assert abs(layer.embedding.mean()) <= 6 * 0.02 / math.sqrt(n)
    assert abs(layer.embedding.std() / 0.02 - 1.0) <= 6 / math.sqrt(2 * n)
    # deterministic given the generator
    again = LearnedPositionalEncoding(1024, 768, rng=np.random.default_rng(2026))
    assert np.array_equal(layer.embedding, again.embedding)


def test_learned_too_long_raises() -> None:
    layer = LearnedPositionalEncoding(16, 8)
    with pytest.raises(ValueError, match=r"L=17 exceeds max_seq_len=16"):
        layer.forward(np.zeros((2, 17, 8)))


def _loss(y: np.ndarray, w: np.ndarray) -> float:
    """A non-linear scalar loss Σ w·sin(y); dLoss/dy = w·cos(y)."""
    return float(np.sum(w * np.sin(y)))


def _relative_error(numeric: np.ndarray, analytic: np.ndarray) -> np.ndarray:
    scale = np.maximum(np.maximum(np.abs(numeric), np.abs(analytic)), 1e-300)
    return np.abs(numeric - analytic) / scale


def test_learned_backward_matches_central_finite_differences() -> None:
    # The usual gradient check: central differences, ε = 1e-5, relative error < 1e-5. For the loss
    # Σ w·sin(y) the truncation error of a central difference is ε²/6·|f'''| ≤ 2e-11 per
    # unit weight, and the rounding error of the loss (≈ n·u·Σ|w| ≈ 1e-14) over 2ε
    # adds ≈ 1e-9, far below 1e-5 relative for gradients of order 1.
    eps = 1e-5
    rng = np.random.default_rng(5)
    layer = LearnedPositionalEncoding(8, 6, rng=rng)
    x = rng.standard_normal((3, 5, 6))
    w = rng.standard_normal((3, 5, 6))
    y = layer.forward(x)
    grad_x = layer.backward(w * np.cos(y))
    numeric = np.zeros_like(layer.embedding)
    for index in np.ndindex(layer.embedding.shape):  # perturb each element of the table
        saved = layer.embedding[index]
        layer.embedding[index] = saved + eps
        plus = _loss(layer.forward(x), w)
        layer.embedding[index] = saved - eps
        minus = _loss(layer.forward(x), w)
        layer.embedding[index] = saved
        numeric[index] = (plus - minus) / (2 * eps)
    assert np.all(numeric[5:] == 0.0)  # the loss does not depend on unused rows at all
    assert _relative_error(numeric, layer.grad_embedding).max() < 1e-5
    # the input gradient is the upstream gradient passed through, and agrees with
    # finite differences on the input too
    assert np.array_equal(grad_x, w * np.cos(y))
    numeric_x = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[index] += eps
        xm[index] -= eps
        numeric_x[index] = (_loss(layer.forward(xp), w) - _loss(layer.forward(xm), w)) / (2 * eps)
    assert _relative_error(numeric_x, grad_x).max() < 1e-5


def test_gradient_accumulates_across_the_batch() -> None:
    # Four copies of one upstream gradient: grad_embedding = 4·g up to two roundings
    # (g + g is exact, then 2g + g and 3g + g round once each): relative error ≤ 2u.
    layer = LearnedPositionalEncoding(16, 8)
    g = _x((1, 10, 8), seed=3)
    layer.forward(np.zeros((1, 10, 8)))
    layer.backward(g)
    single = layer.grad_embedding.copy()
    layer.forward(np.zeros((4, 10, 8)))
    layer.backward(np.repeat(g, 4, axis=0))
    np.testing.assert_allclose(layer.grad_embedding, 4 * single, rtol=2 * U, atol=0)
    # and for distinct batch gradients it is their sum, checked with exactly rounded sums
    gs = _x((4, 10, 8), seed=4)
    layer.forward(np.zeros((4, 10, 8)))
    layer.backward(gs)
    exact = np.array([[math.fsum(gs[:, i, j]) for j in range(8)] for i in range(10)])
    bound = 3 * U * np.abs(gs).sum(axis=0)  # (B − 1)·u·Σ|g| for B = 4 sequential adds
    assert np.all(np.abs(layer.grad_embedding[:10] - exact) <= bound)


def test_zero_gradient_for_unused_positions() -> None:
    layer = LearnedPositionalEncoding(MAX_SEQ_LEN, D_MODEL)
    layer.forward(np.zeros((BATCH, SEQ_LEN, D_MODEL)))
    layer.backward(np.ones((BATCH, SEQ_LEN, D_MODEL)))
    assert layer.grad_embedding.shape == (MAX_SEQ_LEN, D_MODEL)
    assert np.all(layer.grad_embedding[SEQ_LEN:] == 0.0)
    assert np.all(layer.grad_embedding[:SEQ_LEN] == BATCH)  # 1 + 1, exact


def test_backward_overwrites_previous_gradient() -> None:
    layer = LearnedPositionalEncoding(8, 2)
    layer.forward(np.zeros((6, 2)))
    layer.backward(np.ones((6, 2)))
    layer.forward(np.zeros((3, 2)))
    layer.backward(np.ones((3, 2)))
    assert layer.grad_embedding[:3].tolist() == [[1.0, 1.0]] * 3
    assert np.all(layer.grad_embedding[3:] == 0.0)
