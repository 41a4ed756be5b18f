"""Attention-score conformance (SPEC R8.14, Annex A.9): q·k scores of rotated pairs.

In ``mode="scores"`` the suite judges what attention consumes, s(m, n) = ⟨R(m)q, R(n)k⟩,
instead of the rotated elements. By the relative-position identity the exact score is

    s(m, n) = A²·Σ_j [(q_a k_a + q_b k_b)·cos((m − n)ω'_j) + (q_a k_b − q_b k_a)·sin((m − n)ω'_j)]
              + Σ_{i ≥ d_r} q_i k_i,

(pairs (a_j, b_j) in the input layout), evaluated with the exact float64 reference's cos/sin of
the integer m − n (:func:`exact_scores`). The tolerance is :func:`score_bound`, derived from the
element stage bounds of the level (:func:`~pespec.rope.errormodel.element_bound`); the
derivation is its docstring and Annex A.9.

What a score-mode verdict claims: the backend's q·k scores are within the bound of the exact
scores. It does not judge the element values or their layout: any orthogonal map applied alike
to q and k after the rotation (an output permutation such as interleaved-out where the
configuration says halves, a sign flip of both) leaves every score unchanged and passes; a
wrong θ, schedule, input pairing or a stage in too low a precision changes the scores and
fails. The golden stage and the layout-bound properties (norm's pass-through columns,
R(0) = A·identity) are element checks and are not run.

Shapes: q, k (r, head_dim) float64; m, n (r,) integer positions; scores and bounds (r,).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.rope.config import RopeConfig
from pespec.rope.errormodel import RopeLevel, element_bound
from pespec.rope.inputs import SUITE_HALF, rotary_x
from pespec.rope.properties import (
    CHUNK_ROWS,
    Call,
    Outcome,
    finish_outcome,
    fold_outcome,
)

__all__ = [
    "MODES",
    "SCORE_PROPERTIES",
    "check_mode",
    "exact_scores",
    "score_accuracy",
    "score_bound",
    "score_plan",
    "score_positions",
]

F64 = NDArray[np.float64]

MODES: Final = ("elements", "scores")
"""The check modes: ``elements`` (the default: every rotated element, SPEC §8.7) and
``scores`` (q·k scores of rotated pairs, this module)."""

SCORE_PROPERTIES: Final = ("relative-position", "linearity", "row-independence")
"""The properties a score-mode run keeps: those that hold for any orthogonal output map."""

_U: Final = 2.0**-53
_COS_SIN: Final = 2.0**-52 + 2.0**-54
"""The exact float64 reference's cos/sin error to the exact value (SPEC Annex C)."""
_ATTENTION_ROUNDING: Final = 2 * _U
"""|Â − A| ≤ this·A for the float64 attention factor (as :func:`rotation_bound` takes it)."""


def _gamma(n: int) -> float:
    """γ_n = n·u/(1 − n·u), u = 2^-53: the relative error bound of n float64 roundings."""
    return n * _U / (1 - n * _U)


def check_mode(mode: Any, name: str = "mode") -> str:
    """``mode`` if it is one of :data:`MODES`, else ValueError naming ``name`` (the parameter
    or option), the value and the allowed values."""
    if not isinstance(mode, str) or mode not in MODES:
        raise ValueError(f"{name} must be one of {', '.join(MODES)}; got {mode!r}")
    return mode


def _pair_norms(x: F64, config: RopeConfig) -> F64:
    """‖(a_j, b_j)‖ per pair of the input layout, shape (r, d_r/2), rounded up."""
    from pespec.rope.reference import pair_views

    a, b = pair_views(x, config, output=False)
    norms: F64 = np.hypot(a, b) * (1 + 2 * _U)
    return norms


def _difference(m: NDArray[Any], n: NDArray[Any]) -> NDArray[np.int64]:
    """m − n, exact in int64; ValueError for positions that are not integers (the score stage
    sends integer positions only, so the difference is exact)."""
    pm, pn = np.asarray(m), np.asarray(n)
    for name, p in (("m", pm), ("n", pn)):
        if p.dtype.kind not in "iu" and not (
            p.dtype.kind == "f" and np.all(np.isfinite(p)) and np.all(p == np.round(p))
        ):
            raise ValueError(f"{name} must hold integer positions; got dtype {p.dtype}")
    diff: NDArray[np.int64] = pm.astype(np.int64) - pn.astype(np.int64)
    return diff


def exact_scores(q: F64, k: F64, m: NDArray[Any], n: NDArray[Any], config: RopeConfig) -> F64:
    """s(m, n) per row from the relative-position identity (module docstring), float64.

    Within :func:`reference_error` of the exact score: cos/sin of m − n from the exact float64
    reference (:func:`pespec.rope.reference.cos_sin`), everything else in float64.
    """
    from pespec.rope.oracle import attention_factor
    from pespec.rope.reference import cos_sin, pair_views

    cos, sin = cos_sin(_difference(m, n), config)
    qa, qb = pair_views(q, config, output=False)
    ka, kb = pair_views(k, config, output=False)
    big_a = attention_factor(config)
    rotary = np.sum((qa * ka + qb * kb) * cos + (qa * kb - qb * ka) * sin, axis=1)
    d_r = config.d_r
    scores: F64 = big_a * big_a * rotary + np.sum(q[:, d_r:] * k[:, d_r:], axis=1)
    return scores


def reference_error(q: F64, k: F64, config: RopeConfig) -> F64:
    """Bound on |:func:`exact_scores` − s| per row (Annex A.9):
    (ε_cs + γ_{D+11})·(2·A²·W + P)·(1 + 2^-40), W = Σ_j ‖q_j‖·‖k_j‖ over the pairs,
    P = Σ_{i ≥ d_r} |q_i k_i|, ε_cs the reference's cos/sin error, D = head_dim."""
    from pespec.rope.oracle import attention_factor

    big_a = attention_factor(config) * (1 + _ATTENTION_ROUNDING)
    w = np.sum(_pair_norms(q, config) * _pair_norms(k, config), axis=1)
    d_r = config.d_r
    passed = np.sum(np.abs(q[:, d_r:] * k[:, d_r:]), axis=1)
    scale = 2 * big_a * big_a * w + passed
    error: F64 = (_COS_SIN + _gamma(config.head_dim + 11)) * scale * (1 + 2.0**-40)
    return error


def _exact_magnitude(x: F64, config: RopeConfig) -> F64:
    """Per element of the output layout, a bound on |exact output|: A·‖(a_j, b_j)‖ on the
    rotary part, |x| beyond (those columns are copied)."""
    from pespec.rope.oracle import attention_factor
    from pespec.rope.reference import pair_views

    out = np.abs(x)
    pair = attention_factor(config) * (1 + _ATTENTION_ROUNDING) * _pair_norms(x, config)
    ya, yb = pair_views(out, config, output=True)
    ya[...], yb[...] = pair, pair
    result: F64 = out
    return result


def score_bound(
    q: F64,
    k: F64,
    m: NDArray[Any],
    n: NDArray[Any],
    config: RopeConfig,
    level: RopeLevel,
    output_dtype: str,
) -> F64:
    """Bound on |ŝ − s| per row, ŝ = Σ_i ŷ_q,i·ŷ_k,i computed in float64 from the backend's
    outputs ŷ_q = R̂(m)q, ŷ_k = R̂(n)k, s the exact score (SPEC Annex A.9).

    With e_q, e_k the element bounds of the level (|ŷ_i − y_i| ≤ e_i, y the exact output) and
    μ_q, μ_k bounds on the exact outputs' magnitudes (A·‖(a_j, b_j)‖ on the rotary part):

    1. propagation: ŷ_q·ŷ_k − y_q·y_k = y_q·δ_k + y_k·δ_q + δ_q·δ_k, so
       |Σ ŷ_q ŷ_k − s| ≤ Σ_i (μ_q,i e_k,i + μ_k,i e_q,i + e_q,i e_k,i);
    2. our float64 dot product of the D = head_dim products: γ_D·Σ_i (μ_q,i + e_q,i)(μ_k,i +
       e_k,i) (any summation order), plus D·2^-1074 for products that underflow;
    3. the exact score's own float64 evaluation: :func:`reference_error`;
    4. the bound's own float64 evaluation (sums of ≤ 4D + 16 non-negative terms): the sum times
       1 + γ_{4D+16}.

    An output map P applied alike to q and k with Pᵀ·P = I changes no ŝ, so the bound holds
    for ŷ = P·ỹ whenever ỹ is within the element bounds: such a backend passes.
    """
    e_q = element_bound(q, m, config, level, output_dtype)
    e_k = element_bound(k, n, config, level, output_dtype)
    mu_q, mu_k = _exact_magnitude(q, config), _exact_magnitude(k, config)
    d = config.head_dim
    propagated = np.sum(mu_q * e_k + mu_k * e_q + e_q * e_k, axis=1)
    ours = _gamma(d) * np.sum((mu_q + e_q) * (mu_k + e_k), axis=1) + d * 2.0**-1074
    total = propagated + ours + reference_error(q, k, config)
    bound: F64 = total * (1 + _gamma(4 * d + 16))
    return bound


def score_positions(positions: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The (m, n) pairs of the score stage, each position m twice: with the position at the
    mirrored index (0 with the largest, …: m − n spans −P … P) and with its predecessor
    (neighbours: both positions small where the element bounds are small, so a slip at small
    positions is not hidden under a large position's bound). Shapes (2·len(positions),)."""
    ordered = np.sort(np.asarray(positions))
    m = np.concatenate([ordered, ordered])
    n = np.concatenate([ordered[::-1], np.roll(ordered, 1)])
    return m, n


def score_accuracy(
    call: Call, positions: NDArray[Any], config: RopeConfig, level: RopeLevel, output_dtype: str
) -> Outcome:
    """Every score s(m, n) of :func:`score_positions` within :func:`score_bound`, in chunks of
    rows: q rotated at m and k at n by the backend (two calls per chunk)."""
    m_all, n_all = score_positions(positions)
    outcome: Outcome | None = None
    for r0 in range(0, m_all.shape[0], CHUNK_ROWS):
        m, n = m_all[r0 : r0 + CHUNK_ROWS], n_all[r0 : r0 + CHUNK_ROWS]
        seed = 2 * (r0 // CHUNK_ROWS) + 21
        q = rotary_x(m.shape[0], config.head_dim, seed=seed, half=SUITE_HALF)
        k = rotary_x(m.shape[0], config.head_dim, seed=seed + 1, half=SUITE_HALF)
        y_q = np.asarray(call(q, m), dtype=np.float64)
        y_k = np.asarray(call(k, n), dtype=np.float64)
        got = np.sum(y_q * y_k, axis=1)
        error = np.abs(got - exact_scores(q, k, m, n, config))
        bound = score_bound(q, k, m, n, config, level, output_dtype)
        outcome = fold_outcome(outcome, error[:, None], bound[:, None], m)
    return finish_outcome(outcome or Outcome(-1.0, 0.0, 0.0, None, None, 0), "q·k scores")


def score_plan(planned: list[PlannedCheck]) -> list[PlannedCheck]:
    """The score-mode plan from the element plan: the contract as it is, no golden check, the
    reference check as the score check (``scores:0..P``, the same positions as m) and only
    the :data:`SCORE_PROPERTIES`."""
    kept: list[PlannedCheck] = []
    for check in planned:
        if check.stage == "golden":
            continue
        if check.stage == "property" and check.id.partition(":")[2] not in SCORE_PROPERTIES:
            continue
        if check.stage == "reference":
            positions = np.asarray(check.payload)
            check = PlannedCheck(
                "scores:" + check.id.partition(":")[2],
                "reference",
                f"q·k scores of {positions.size} pairs (m, n), m − n from −P to P, against "
                "the exact scores (relative-position identity; the element layout is not "
                "judged)",
                "§8.8",
                positions,
            )
        kept.append(check)
    return kept
