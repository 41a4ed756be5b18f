"""Integration tests: self-attention is permutation-equivariant, and adding the
sinusoidal encoding breaks that symmetry without disturbing the input statistics."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from pespec.sinusoidal.reference import sinusoidal_positional_encoding
from pespec.teaching import SinusoidalPositionalEncoding
from pespec.teaching.attention import SelfAttention, softmax

D_MODEL, MAX_SEQ_LEN, SEQ_LEN, BATCH = 64, 128, 32, 2  # the usual small teaching configuration
U = 2.0**-53


def _tokens(seed: int = 11) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((BATCH, SEQ_LEN, D_MODEL))


def _equivariance_tolerance(x: np.ndarray, layer: SelfAttention) -> float:
    """How far two evaluations of the same attention on reordered rows may differ.

    Permuting rows permutes every intermediate exactly except for the order of
    accumulation in the matrix products and the softmax sums. Each output entry is
    Σ_j a_ij·v_j with Σ a_ij = 1; reordering changes the rounding of the scores
    (≤ 2d·u·‖x‖²·‖W‖² relative to their size, turned into a relative change of the weights
    of the same size) and of the sums (≤ L·u each). A bound 8·(L + 2d)·u·(1 + max|score|)
    ·max|V| covers both with margin.
    """
    array = np.asarray(x)
    v = array @ layer.w_v
    scores = (array @ layer.w_q) @ np.swapaxes(array @ layer.w_k, -1, -2) / math.sqrt(layer.d_k)
    length = array.shape[-2]
    return 8 * (length + 2 * layer.d_model) * U * (1 + np.abs(scores).max()) * np.abs(v).max()


def test_softmax_against_mpmath_and_stable_for_large_scores() -> None:
    scores = np.array([[0.5, -1.25, 3.0, 0.0], [1000.0, 999.0, -1000.0, 1000.0]])
    out = softmax(scores)
    with mp.workdps(30):
        for row, got in zip(scores, out, strict=True):
            exps = [mp.exp(mp.mpf(s)) for s in row]
            total = mp.fsum(exps)
            expected = np.array([float(e / total) for e in exps])
            # exp of a shifted argument (≤ 1 ulp each, shift exact) and a 4-term sum:
            # relative error ≤ 8u per weight
            np.testing.assert_allclose(got, expected, rtol=8 * U, atol=0)
    assert np.all(np.isfinite(out))


def test_attention_against_mpmath_on_a_tiny_input() -> None:
    # softmax(Q·Kᵀ/√d_k)·V for L = 3, d = 4, d_k = 2, evaluated in mpmath from the layer's
    # own (exactly representable) weights. Each step is a short float64 computation of
    # O(1) values: the output is within 64·u·(1 + max|score|)·max|V| of the exact value.
    layer = SelfAttention(4, d_k=2, rng=np.random.default_rng(9))
    x = np.random.default_rng(10).standard_normal((3, 4))
    got = layer.forward(x)
    with mp.workdps(40):
        xm = mp.matrix(x.tolist())
        q = xm * mp.matrix(layer.w_q.tolist())
        k = xm * mp.matrix(layer.w_k.tolist())
        v = xm * mp.matrix(layer.w_v.tolist())
        scores = q * k.T / mp.sqrt(2)
        expected = np.zeros((3, 2))
        for i in range(3):
            exps = [mp.exp(scores[i, j]) for j in range(3)]
            total = mp.fsum(exps)
            for c in range(2):
                expected[i, c] = float(mp.fsum(exps[j] / total * v[j, c] for j in range(3)))
        max_score = float(max(abs(scores[i, j]) for i in range(3) for j in range(3)))
        max_v = float(max(abs(v[i, j]) for i in range(3) for j in range(2)))
    np.testing.assert_allclose(got, expected, rtol=0, atol=64 * U * (1 + max_score) * max_v)


def test_attention_shapes_and_weights() -> None:
    layer = SelfAttention(D_MODEL, d_k=16)
    x = _tokens()
    weights = layer.attention_weights(x)
    assert weights.shape == (BATCH, SEQ_LEN, SEQ_LEN)
    # rows are probability vectors: sums within L·u of 1
    assert np.max(np.abs(weights.sum(axis=-1) - 1.0)) <= SEQ_LEN * U
    assert layer.forward(x).shape == (BATCH, SEQ_LEN, 16)
    assert layer.forward(x[0]).shape == (SEQ_LEN, 16)


def test_permutation_equivariance_without_pe() -> None:
    # Without PE, attention(X[π]) = attention(X)[π]: the layer is a set function.
    layer = SelfAttention(D_MODEL)
    x = _tokens()
    perm = np.random.default_rng(3).permutation(SEQ_LEN)
    permuted_out = layer.forward(x[:, perm])
    np.testing.assert_allclose(
        permuted_out, layer.forward(x)[:, perm], rtol=0, atol=_equivariance_tolerance(x, layer)
    )


def test_permutation_sensitivity_with_pe() -> None:
    # With PE added, the permuted sequence's outputs are not the permuted outputs: the
    # difference is far above the rounding tolerance of the equivariance test.
    layer = SelfAttention(D_MODEL)
    x = _tokens()
    perm = np.random.default_rng(3).permutation(SEQ_LEN)
    pe = sinusoidal_positional_encoding(SEQ_LEN, D_MODEL)
    with_pe = layer.forward(x + pe)
    permuted_with_pe = layer.forward(x[:, perm] + pe)
    tol = _equivariance_tolerance(x + pe, layer)
    assert np.abs(permuted_with_pe - with_pe[:, perm]).max() > 1e6 * tol
    assert np.abs(permuted_with_pe - with_pe).max() > 1e6 * tol


def test_forward_pass_with_encoding_layer_changes_with_token_order() -> None:
    # Wire SinusoidalPositionalEncoding into the attention layer; swap two tokens.
    encoding = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL)
    layer = SelfAttention(D_MODEL)
    x = _tokens()
    swapped = x.copy()
    swapped[:, [3, 17]] = x[:, [17, 3]]
    out = layer.forward(encoding.forward(x))
    out_swapped = layer.forward(encoding.forward(swapped))
    back = out_swapped.copy()
    back[:, [3, 17]] = out_swapped[:, [17, 3]]  # undo the swap on the outputs
    tol = _equivariance_tolerance(encoding.forward(x), layer)
    assert np.abs(back - out).max() > 1e6 * tol
    # the same swap without the encoding is undone exactly up to rounding
    plain_back = layer.forward(swapped)
    plain_back[:, [3, 17]] = plain_back[:, [17, 3]]
    np.testing.assert_allclose(
        plain_back, layer.forward(x), rtol=0, atol=_equivariance_tolerance(x, layer)
    )


def test_additive_composition_keeps_statistics() -> None:
    # X ~ N(0, 1) i.i.d., PE fixed: X + PE is finite, each element moves by ≤ 1 (|PE| ≤ 1),
    # and var(X + PE) = var(X) + var(PE) + 2·cov(X, PE) where the sample covariance of
    # independent X with PE has standard deviation √(mean(PE²)/n) = √(1/(2n)) (row norms²
    # are d/2, so mean(PE²) = 1/2); var(PE) ≤ mean(PE²) = 1/2.
    x = np.random.default_rng(17).standard_normal((BATCH, MAX_SEQ_LEN, D_MODEL))
    pe = sinusoidal_positional_encoding(MAX_SEQ_LEN, D_MODEL)
    y = SinusoidalPositionalEncoding(MAX_SEQ_LEN, D_MODEL).forward(x)
    assert np.all(np.isfinite(y))
    assert np.max(np.abs(y - x)) <= 1.0 + 2 * U * np.abs(x).max()
    n = x.size
    pe_b = np.broadcast_to(pe, x.shape)
    var_pe = float(np.var(pe_b))
    assert var_pe <= 0.5 + n * U
    assert abs(np.var(y) - (np.var(x) + var_pe)) <= 2 * 6 * math.sqrt(0.5 / n)
    # the standard deviation grows by at most √(1 + 1/2) − 1 ≈ 22 %, never "dramatically"
    assert np.std(y) / np.std(x) <= math.sqrt(1 + 0.5) * (1 + 6 * math.sqrt(0.5 / n))
    # the mean shifts by mean(PE), itself within [−1, 1]: three means of n terms, each
    # with summation error ≤ n·u·mean|term| (|x + PE| ≤ |x| + 1), plus the additions
    tol = 3 * n * U * (np.abs(x).mean() + 1.0)
    assert abs(np.mean(y) - (np.mean(x) + np.mean(pe))) <= tol
