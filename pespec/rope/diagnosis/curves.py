"""What ``pespec plot diagnosis`` draws (SPEC Annex D.9): per pair and per position, as data.

:func:`diagnosis_curves` runs the diagnosis (its measured ω̂_j, their precision, the declared
ω_j, the deviating pairs and the sentence), then probes the backend once more at the same
positions (:mod:`.probes`: three calls at most) and reads each pair's angle error against
the exact reference, φ̂_j(p) − φ_j(p) (:func:`~.measure.phase_errors`), with the bound of
the level on that angle. The bound is the element bound of SPEC §8.7 for the probe's basis
vector (|a_j| = 1, b_j = 0): both output elements of the pair are within e of exact, so the
point (A·cos φ̂, A·sin φ̂) is within √2·e of the exact one, of length |A|, and the angle
between them is at most arcsin(min(1, √2·e/|A|)) (π/2 when that reaches 1: no bound).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.diagnose import diagnose
from pespec.rope.diagnosis.layout import LAYOUTS, pair_values
from pespec.rope.diagnosis.measure import phase_errors
from pespec.rope.diagnosis.probes import run_probes
from pespec.rope.diagnosis.report import RopeDiagnosis
from pespec.rope.errormodel import (
    RopeLevel,
    element_bound,
    parse_rope_level,
    rope_level_for_dtype,
)
from pespec.rope.reference import pair_views, rotate

__all__ = ["DiagnosisCurves", "NotMeasured", "diagnosis_curves", "phase_bound"]

F64 = NDArray[np.float64]


class NotMeasured(RuntimeError):
    """The probes could not be read (the backend failed, or no pairing explains them)."""


@dataclass(frozen=True)
class DiagnosisCurves:
    """Per pair (d_r/2,): ω̂_j, its precision σ_j, the declared ω_j, whether it deviates;
    per probe position (m,) and pair: the angle error φ̂ − φ and the level's bound on it;
    the level drawn, the output dtype and the diagnosis itself (its sentence)."""

    omega_measured: F64
    precision: F64
    omega_declared: F64
    deviates: NDArray[np.bool_]
    positions: F64
    phase_error: F64
    phase_bound: F64
    level: RopeLevel
    output_dtype: str
    diagnosis: RopeDiagnosis


def phase_bound(positions: F64, config: RopeConfig, level: RopeLevel, output_dtype: str) -> F64:
    """The level's bound on |φ̂_j(p) − φ_j(p)| (m, d_r/2) for the basis probes (see above)."""
    x = _basis(positions, config)
    e, _ = pair_views(element_bound(x, positions, config, level, output_dtype), config, True)
    length = np.hypot(*_exact_pairs(positions, config))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(length > 0, math.sqrt(2.0) * e / length, 1.0)
    out: F64 = np.arcsin(np.minimum(ratio, 1.0))
    return out


def _level(level: RopeLevel | str | None, claimed: Any, output_dtype: str) -> RopeLevel:
    """The level given, else the backend's claim, else the default of its output dtype."""
    chosen = level if level is not None else claimed
    if isinstance(chosen, RopeLevel):
        return chosen
    if isinstance(chosen, str):
        return parse_rope_level(chosen)
    return rope_level_for_dtype(output_dtype)


def _measured(found: RopeDiagnosis) -> tuple[F64, F64, F64, NDArray[np.bool_]]:
    """(ω̂, σ, ω, deviates) from the diagnosis' measured-vs-declared details."""
    if "pairs" not in found.details or found.pairing not in LAYOUTS:
        raise NotMeasured(f"nothing measured to draw: {found.sentence}")
    columns = found.details["pairs"]["columns"]
    rows = np.array(found.details["pairs"]["rows"], dtype=np.float64).reshape(-1, len(columns))
    pick = {name: rows[:, columns.index(name)] for name in columns}
    return (
        pick["omega_measured"],
        pick["precision"],
        pick["omega_declared"],
        pick["deviates"].astype(bool),
    )


def diagnosis_curves(
    backend: Callable[..., Any],
    config: RopeConfig,
    *,
    level: RopeLevel | str | None = None,
    claimed_level: Any = None,
    timeout: float | None = None,
    max_position: float | None = None,
) -> DiagnosisCurves:
    """The data of the diagnosis picture for ``backend(x, positions, rope)`` and ``config``.

    ``level``: the level whose bound is drawn (a RopeLevel or ``PHASE/CACHE/ROTATION``);
    None: ``claimed_level`` (the backend's claim), else the default of its output dtype.
    ``timeout``: seconds in the backend per diagnosis and per probe run; ``max_position``:
    no position beyond it is probed. NotMeasured when the probes cannot be read.
    """
    found = diagnose(backend, config, timeout=timeout, max_position=max_position)
    omega, sigma, declared, deviates = _measured(found)
    probes, _ = run_probes(backend, config, timeout, max_position)
    if not probes:
        raise NotMeasured("the backend failed on the first probe call")
    matrices = np.concatenate([p.matrices for p in probes])
    positions = np.concatenate([p.positions for p in probes]).astype(np.float64)
    cos, sin = pair_values(matrices, config, found.pairing)
    exact_cos, exact_sin = _exact_pairs(positions, config)
    chosen = _level(level, claimed_level, probes[0].dtype)
    return DiagnosisCurves(
        omega,
        sigma,
        declared,
        deviates,
        positions,
        phase_errors(cos, sin, exact_cos, exact_sin),
        phase_bound(positions, config, chosen, probes[0].dtype),
        chosen,
        probes[0].dtype,
        found,
    )


def _exact_pairs(positions: F64, config: RopeConfig) -> tuple[F64, F64]:
    """The exact (A·cos, A·sin) of every pair at ``positions``, each (m, d_r/2), read as
    :func:`pair_values` reads the backend's (the configuration's own layout)."""
    y_a, y_b = pair_views(rotate(_basis(positions, config), positions, config), config, True)
    return y_a, y_b


def _basis(positions: F64, config: RopeConfig) -> F64:
    """One row per position with a_j = 1, b_j = 0 in every pair (each pair its basis probe;
    pairs do not mix, so one row serves them all), shape (m, head_dim)."""
    x = np.zeros((positions.size, config.head_dim))
    a, _ = pair_views(x, config, output=False)
    a[...] = 1.0
    return x
