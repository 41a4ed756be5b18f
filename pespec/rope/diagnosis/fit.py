"""Fit the schedules' parameters to the measured frequencies, then name the slip (Annex D.9).

Every schedule of the registry is evaluated in float64 through its own exact formula
(:attr:`Schedule.exact` with a float64 arithmetic: no certified bounds are needed to fit).
A candidate is one free parameter of one schedule, the others as the configuration says
(or, for another schedule of :func:`cross_schedules`, the configuration's θ and factor and
that schedule's defaults: its factor is fitted, or θ when it has none).
Its value is found on a 61-point log grid over [v/64, 64·v] (θ: [v/10^4, 10^4·v]), then polished by
golden-section search on the summed squared residuals; the values that still fit form the
stated interval (the measurement's precision in that parameter). A candidate fits when every
pair's ω'_j lies within 4 precisions of ω̂_j; candidates are ranked by their worst relative
error |ω'_j/ω̂_j − 1|, ties by their order (the declared schedule's own parameters first).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.measure import Measurement
from pespec.rope.schedules.base import SCHEDULE_FIELDS
from pespec.rope.schedules.registry import SCHEDULES

__all__ = ["Fit", "evaluate", "fit_parameters"]

F64 = NDArray[np.float64]
SPREAD = 4.0
"""A model fits when every ω'_j is within this many precisions σ_j of ω̂_j."""
LISTS = ("short_factor", "long_factor", "omegas", "rotated_pairs")
"""Fields no other schedule's configuration supplies: a schedule requiring one is not tried
in place of the declared one."""


def cross_schedules() -> list[str]:
    """The schedules tried in place of the declared one: computed through θ^(−2j/d_r),
    needing no per-pair list and no sequence length (the registry's order)."""
    return [
        name
        for name, schedule in SCHEDULES.items()
        if schedule.computed
        and not schedule.uses_seq_len
        and not set(schedule.required) & set(LISTS)
    ]


DEFAULTS: dict[str, Any] = {
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "truncate": True,
    "factor": 1.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
}
GRID = 61
"""Points of the log grid of each candidate (a step of 14 % in [v/64, 64v])."""
INTEGERS = ("original_max_position_embeddings", "max_position_embeddings", "seq_len")
ATTENTION = ("attention_factor", "mscale", "mscale_all_dim")
NAMES = {
    "theta": "θ",
    "factor": "s",
    "original_max_position_embeddings": "L0",
    "max_position_embeddings": "L",
    "seq_len": "ℓ",
    "low_freq_factor": "low_freq_factor",
    "high_freq_factor": "high_freq_factor",
}


class _Float64:
    """The :class:`~pespec.rope.schedules.base.Arith` protocol in plain float64."""

    def q(self, value: Any) -> float:
        return float(value)

    def power(self, base: Fraction, exponent: Fraction) -> float:
        return math.pow(float(base), float(exponent))

    def log(self, value: Any) -> float:
        return math.log(float(value))

    def sqrt(self, value: Any) -> float:
        return math.sqrt(float(value))

    def pi(self) -> float:
        return math.pi

    def positive(self, thunk: Any) -> bool:
        return bool(float(thunk()) > 0)

    def floor(self, thunk: Any) -> int:
        return math.floor(float(thunk()))


def evaluate(fields: dict[str, Any]) -> tuple[F64, float] | None:
    """(ω'_j, A) in float64 of the schedule ``fields['rope_type']`` with ``fields`` (the
    RopeConfig fields plus ``d_r``), or None when the formula refuses them."""
    try:
        omegas, attention = SCHEDULES[fields["rope_type"]].exact(
            SimpleNamespace(**fields), _Float64()
        )
        return np.array([float(w) for w in omegas]), float(attention)
    except (ValueError, ArithmeticError, TypeError, AssertionError):
        return None


@dataclass(frozen=True)
class Fit:
    """One candidate's best value: schedule, parameter, value, the interval of values that
    fit, the declared value, its worst relative error and whether it fits."""

    schedule: str
    parameter: str
    value: float
    interval: tuple[float, float]
    declared: float | None
    relative_error: float
    fits: bool

    @property
    def digits(self) -> int:
        """The fewest significant digits (1 to 7) of a number inside the fitted interval
        (8: none): a slip comes from a written value, so a round value is the likelier."""
        lo, hi = min(self.interval), max(self.interval)
        for digits in range(1, 8):
            shown = float(f"{self.value:.{digits - 1}e}")
            if lo <= shown <= hi:
                return digits
        return 8


def fields_of(config: RopeConfig) -> dict[str, Any]:
    """The configuration's fields with ``d_r``, as :func:`evaluate` takes them."""
    out = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    out["d_r"] = config.d_r
    return out


def _cross_fields(config: RopeConfig, name: str) -> dict[str, Any] | None:
    """The configuration read as schedule ``name``: θ, d_r, factor and context lengths kept,
    that schedule's other fields at their defaults; None when it lacks what it needs."""
    base = fields_of(config)
    out = {k: v for k, v in base.items() if k not in SCHEDULE_FIELDS}
    out["rope_type"] = name
    for key in SCHEDULE_FIELDS:
        out[key] = None
    schedule = SCHEDULES[name]
    for key in (*schedule.required, *schedule.optional):
        out[key] = base.get(key) if base.get(key) is not None else DEFAULTS.get(key)
    if out.get("original_max_position_embeddings") is None:
        out["original_max_position_embeddings"] = base.get("max_position_embeddings")
    if any(out.get(k) is None for k in schedule.required):
        return None
    return out


def _candidates(config: RopeConfig) -> Iterator[tuple[dict[str, Any], str]]:
    """(fields, free parameter) in the order of preference."""
    own = fields_of(config)
    schedule = SCHEDULES[config.rope_type]
    for key in ("theta", *schedule.required, *schedule.optional):
        if isinstance(own.get(key), (int, float)) and not isinstance(own.get(key), bool):
            yield own, key
    for name in cross_schedules():
        cross = None if name == config.rope_type else _cross_fields(config, name)
        if cross is not None:
            yield cross, ("factor" if "factor" in SCHEDULES[name].required else "theta")


class _Objective:
    """Normalised residuals of a candidate against the measurement."""

    def __init__(self, m: Measurement, fields: dict[str, Any], key: str) -> None:
        self.m, self.fields, self.key = m, fields, key
        self.ok = np.isfinite(m.omega) & np.isfinite(m.precision)
        self.scale = SPREAD * m.precision + 1e-12 * np.abs(m.omega)
        finite = m.attention[np.isfinite(m.attention)]
        self.a_hat = float(np.median(finite)) if finite.size else 1.0

    def residual(self, value: float) -> F64 | None:
        if self.key in INTEGERS:
            value = float(round(value))
        model = evaluate({**self.fields, self.key: value})
        if model is None or model[0].shape != self.m.omega.shape:
            return None
        out = (model[0] - self.m.omega)[self.ok] / self.scale[self.ok]
        if self.key in ATTENTION:
            a_tol = SPREAD * 2.0**-20 * self.a_hat + float(np.max(self.m.precision[self.ok]))
            out = np.append(out, (model[1] - self.a_hat) / a_tol)
        return out

    def worst(self, value: float) -> float:
        r = self.residual(value)
        return math.inf if r is None or not np.all(np.isfinite(r)) else float(np.max(np.abs(r)))

    def squares(self, value: float) -> float:
        r = self.residual(value)
        return math.inf if r is None or not np.all(np.isfinite(r)) else float(np.sum(r * r))


def _golden(f: Any, lo: float, hi: float, steps: int = 32) -> float:
    """The minimiser of ``f(exp(t))`` for t in [lo, hi] (golden-section), as exp(t)."""
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(math.exp(c)), f(math.exp(d))
    for _ in range(steps):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(math.exp(d))
    return math.exp((a + b) / 2)


def _edge(fits: Any, inside: float, outside: float) -> float:
    """Bisection (in log) for the last value that fits between ``inside`` and ``outside``."""
    a, b = math.log(inside), math.log(outside)
    for _ in range(24):
        mid = (a + b) / 2
        a, b = (mid, b) if fits(math.exp(mid)) else (a, mid)
    return math.exp(a)


def _fit_one(m: Measurement, fields: dict[str, Any], key: str, declared: float | None) -> Fit:
    objective = _Objective(m, fields, key)
    start = float(fields[key]) if fields.get(key) else 1.0
    span = math.log(1e4 if key == "theta" else 64.0)
    grid = np.linspace(math.log(start) - span, math.log(start) + span, GRID)
    scores = [objective.worst(math.exp(t)) for t in grid]
    best = int(np.argmin(scores))
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    value = _golden(objective.squares, lo, hi)
    if objective.worst(value) > scores[best]:
        value = math.exp(grid[best])
    if key in INTEGERS:
        value = float(round(value))
    worst = objective.worst(value)
    interval = (value, value)
    if worst <= 1:

        def fits(v: float) -> bool:
            return objective.worst(v) <= 1

        interval = (_edge(fits, value, math.exp(lo - 0.1)), _edge(fits, value, math.exp(hi + 0.1)))
    model = evaluate({**fields, key: value})
    rel = math.inf
    if model is not None and model[0].shape == m.omega.shape:
        ok = objective.ok & (np.abs(m.omega) > 0)
        rel = float(np.max(np.abs(model[0][ok] / m.omega[ok] - 1))) if np.any(ok) else math.inf
    return Fit(fields["rope_type"], key, value, interval, declared, rel, worst <= 1)


def fit_parameters(
    m: Measurement, config: RopeConfig, keys: tuple[str, ...] | None = None
) -> list[Fit]:
    """Every candidate's fit (only parameters in ``keys`` when given): those that fit
    first, the roundest value first among them (θ and s of NTK are one product: s = 2
    rather than θ = 4945.29), then by relative error and order."""
    own = fields_of(config)
    out = []
    for fields, key in _candidates(config):
        if keys is not None and key not in keys:
            continue
        declared = own.get(key) if fields["rope_type"] == config.rope_type else None
        out.append(_fit_one(m, fields, key, declared))
    order = {id(f): i for i, f in enumerate(out)}
    return sorted(
        out,
        key=lambda f: (
            not f.fits,
            f.digits if f.fits else 0,
            round(f.relative_error, 9),
            order[id(f)],
        ),
    )
