"""Stage precisions by their signatures (SPEC Annex D.8).

* rotation: the coarsest format holding every value of the mixed rows (a·cos − b·sin with
  8-bit a, b needs more bits than the cosine had, unless the arithmetic rounds);
* cache: the coarsest format, coarser than the rotation, holding every basis value y (or
  y/A); hidden (``undetermined``) when the rotation is a 16-bit format;
* inv_freq, positions, phase: the pipeline φ = round_H(round_P(p)·round_I(ω')) is simulated
  for every combination (I, P ≤ H: a stage finer than the phase it feeds is rounded to the
  phase's format) and scored by the fraction of (position, pair) angles it matches within
  the noise of the output; a stage whose format differs among the combinations that match
  as well as the best is ``undetermined``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray

from pespec.rope.diagnosis.candidates import AttentionModel, FrequencyModel
from pespec.rope.diagnosis.formats import (
    FORMATS,
    UNIT_ROUNDOFF,
    is_member,
    precision_rank,
    round_to,
)

__all__ = [
    "UNDETERMINED",
    "PhaseFit",
    "cache_format",
    "fast_math_signature",
    "fit_phase",
    "rotation_format",
]

F64 = NDArray[np.float64]
UNDETERMINED: Final = "undetermined"
MARGIN: Final = 0.01
"""Combinations scoring within this fraction of the best one cannot be told apart from it."""


def rotation_format(mixed: F64) -> str:
    """The coarsest format holding every finite value of the mixed rows."""
    for name in ("bfloat16", "float16", "float32"):
        if is_member(mixed, name):
            return name
    return "float64"


def _near_member(values: F64, name: str, rel: float) -> bool:
    finite = values[np.isfinite(values)]
    return bool(np.all(np.abs(round_to(finite, name) - finite) <= rel * np.abs(finite)))


def cache_format(basis: F64, rotation: str, attentions: list[AttentionModel]) -> str:
    """The cache's format from the basis values (all of them, (m, d_r/2) cos and sin)."""
    if precision_rank(rotation) == 1:
        return UNDETERMINED
    rel = 4 * UNIT_ROUNDOFF[rotation]
    coarser = [
        n
        for n in ("bfloat16", "float16", "float32")
        if precision_rank(n) < precision_rank(rotation)
    ]
    for name in coarser:
        for model in attentions:
            for a in {model.value, float(np.float32(model.value))}:
                if _near_member(basis / a, name, rel) or _near_member(basis, name, rel):
                    return name
    return rotation


def _hypotheses(positions: F64) -> list[tuple[str, str, str]]:
    """(inv_freq, positions, phase) formats, finest first; a format finer than the phase
    is the phase's, and a positions format exact on every probe position is the phase's."""
    out = []
    for phase in FORMATS:
        below = [f for f in FORMATS if precision_rank(f) < precision_rank(phase) or f == phase]
        for inv, pos in itertools.product(below, below):
            if pos != phase and np.array_equal(round_to(positions, pos), positions):
                continue
            out.append((inv, pos, phase))
    rank = {f: i for i, f in enumerate(FORMATS)}
    out.sort(key=lambda h: (rank[h[2]] + rank[h[0]] + rank[h[1]], rank[h[2]]))
    return out


def _wrap(values: F64) -> F64:
    result: F64 = np.remainder(values + math.pi, 2 * math.pi) - math.pi
    return result


@dataclass(frozen=True)
class PhaseFit:
    """The best model: frequency model, sign of the angle, stage formats and its score."""

    model: FrequencyModel
    sign: int
    formats: dict[str, str]
    score: float


OFFSETS: Final = (0, -1, 1, -2, 2, -3, 3, -4, 4)
"""Units in the last place by which a float32 ω'_j may miss the rounded exact value: an
implementation evaluates θ^(−2j/d_r) and its schedule in float32, not correctly rounded
(SPEC Annex D.8); the first offset matching best is taken, per pair. A 16-bit ω'_j is a cast
of a float32 or float64 value: the rounded exact value (no offsets, which would let a
float16 model absorb bfloat16's coarser rounding)."""


def _stored_frequencies(omegas: F64, name: str) -> F64:
    """(offsets, d_r/2): the numbers of format ``name`` nearest to each ω'_j, by offset."""
    nearest = round_to(omegas, name)
    if name != "float32":
        return nearest[None, :]
    ulp = np.spacing(nearest.astype(np.float32)).astype(np.float64)
    return nearest[None, :] + np.asarray(OFFSETS, dtype=np.float64)[:, None] * ulp[None, :]


def _matches(
    angles: F64,
    positions: F64,
    omegas: F64,
    sign: int,
    hypothesis: tuple[str, str, str],
    noise: float,
) -> tuple[F64, F64, NDArray[np.bool_]]:
    """(the simulated phase, |measured − simulated| wrapped, whether they match), each
    (m, d_r/2), with each pair's stored ω' the best of :data:`OFFSETS`."""
    inv, pos, phase = hypothesis
    stored = _stored_frequencies(omegas, inv)
    with np.errstate(over="ignore", invalid="ignore"):
        phi = round_to(round_to(positions, pos)[None, :, None] * stored[:, None, :], phase)
        exact = np.abs(positions[:, None] * omegas[None, :])
        magnitude = np.abs(np.log(np.where(omegas > 0, omegas, 1.0)))  # ω' = 0: no phase
        slack = noise + 32 * UNIT_ROUNDOFF["float64"] * exact * (1 + magnitude)
        residual = np.abs(_wrap(angles[None] - sign * phi))
        measured_ok = np.isfinite(angles)[None]
        predicted_ok = np.isfinite(phi)
        match = np.where(
            measured_ok & predicted_ok, residual <= slack[None], ~measured_ok & ~predicted_ok
        )
    best = np.argmax(match.sum(axis=1), axis=0)  # first offset with the most matches
    pick = (best[None, :], np.arange(phi.shape[1])[:, None], np.arange(phi.shape[2])[None, :])
    return phi[pick], residual[pick], match[pick]


def _score(
    angles: F64,
    positions: F64,
    omegas: F64,
    sign: int,
    hypothesis: tuple[str, str, str],
    noise: float,
) -> float:
    return float(np.mean(_matches(angles, positions, omegas, sign, hypothesis, noise)[2]))


def fast_math_signature(angles: F64, positions: F64, fit: PhaseFit, noise: float) -> bool:
    """Whether the best model matches every angle with |φ| ≤ π but not those beyond, and
    fails more often the larger |φ| (a sine or cosine without a full range reduction)."""
    hypothesis = (fit.formats["inv_freq"], fit.formats["positions"], fit.formats["phase"])
    phi, residual, match = _matches(
        angles, positions, fit.model.omegas, fit.sign, hypothesis, noise
    )
    with np.errstate(invalid="ignore"):
        size = np.abs(phi)
    inside, near, far = size <= math.pi, (size > math.pi) & (size <= 8), (size > 8) & (size < 64)
    if not inside.any() or not near.any() or not far.any():
        return False
    grows = np.nanmedian(residual[far]) > 2 * np.nanmedian(residual[near])
    return bool(np.mean(match[inside]) >= 0.99 and np.mean(match[size > math.pi]) < 0.5 and grows)


def fit_phase(
    angles: F64, positions: F64, models: list[FrequencyModel], noise: float
) -> tuple[PhaseFit, dict[str, str]]:
    """The best (model, sign, formats) and each stage's format or 'undetermined'.

    ``angles`` (m, d_r/2) measured (NaN where the backend gave no finite value),
    ``positions`` (m,) float64, ``noise`` the angle noise of the output in radians.
    """
    hypotheses = _hypotheses(positions)
    scored = []
    for order, (model, sign, hyp) in enumerate(itertools.product(models, (1, -1), hypotheses)):
        scored.append(
            (_score(angles, positions, model.omegas, sign, hyp, noise), order, model, sign, hyp)
        )
    best = max(s[0] for s in scored)
    near = [s for s in scored if s[0] >= best - MARGIN]
    score, _, model, sign, hyp = min(near, key=lambda s: s[1])
    fit = PhaseFit(
        model, sign, dict(zip(("inv_freq", "positions", "phase"), hyp, strict=True)), score
    )
    same = [s[4] for s in near if s[2] is model and s[3] == sign]
    stages = {}
    for index, stage in enumerate(("inv_freq", "positions", "phase")):
        found = {h[index] for h in same}
        stages[stage] = found.pop() if len(found) == 1 else UNDETERMINED
    return fit, stages
