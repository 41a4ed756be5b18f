"""Candidate models of what a rotary backend computes (SPEC Annex D.8): schedules and slips.

Each :class:`FrequencyModel` is the configured schedule or one named slip of it (a schedule
read as another, a parameter read wrongly, ω computed over head_dim instead of d_r), with
its ω'_j from the certified oracle of the configuration that the slip amounts to. Each
:class:`AttentionModel` is a value of the attention factor A: the configured one or a named
slip. Linear scaling applied as p/s instead of ω/s is the same exact angle, so it is no
candidate of its own.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.shape_slips import shape_slips
from pespec.rope.oracle import frequencies
from pespec.rope.schedules.base import SCHEDULE_FIELDS
from pespec.rope.schedules.registry import SCHEDULES

__all__ = ["AttentionModel", "FrequencyModel", "attention_models", "frequency_models"]

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class FrequencyModel:
    """ω'_j of one model; ``slip`` is '' for the configured schedule, else the cause."""

    omegas: F64
    rope_type: str
    parameters: dict[str, Any]
    slip: str = ""


@dataclass(frozen=True)
class AttentionModel:
    """A value of the attention factor; ``slip`` is '' for the configured one."""

    value: float
    slip: str = ""


def _variant(config: RopeConfig, **changes: Any) -> RopeConfig | None:
    """The configuration with ``changes`` (other schedules' fields cleared), or None."""
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    if "rope_type" in changes:
        for name in SCHEDULE_FIELDS:
            fields[name] = None
    fields.update(changes)
    try:
        return RopeConfig(**fields)
    except (TypeError, ValueError):
        return None


def _model(config: RopeConfig | None, slip: str, **shown: Any) -> FrequencyModel | None:
    if config is None:
        return None
    try:
        omegas, _ = frequencies(config)
    except (ValueError, ArithmeticError, RuntimeError):
        return None
    return FrequencyModel(omegas, config.rope_type, shown, slip)


def _schedule_slips(c: RopeConfig) -> list[FrequencyModel | None]:
    """Slips of the configured schedule's own parameters (its module's ``slips``)."""
    return [
        _model(_variant(c, **slip.changes), slip.text, **slip.shown)
        for slip in SCHEDULES[c.rope_type].slips(c)
    ]


def _cross_schedules(c: RopeConfig) -> list[FrequencyModel | None]:
    """The schedule ignored, or read as another schedule with the same factor."""
    out: list[FrequencyModel | None] = []
    if c.rope_type != "default":
        out.append(
            _model(
                _variant(c, rope_type="default"),
                f"the {c.rope_type} scaling ignored (plain θ^(−2j/d_r))",
            )
        )
    if c.factor is not None and c.rope_type not in ("linear", "default"):
        out.append(
            _model(
                _variant(c, rope_type="linear", factor=c.factor),
                f"{c.rope_type} scaling applied as linear scaling by s = {c.factor:g}",
                factor=c.factor,
            )
        )
    return out


def _head_dim_omegas(c: RopeConfig) -> FrequencyModel | None:
    """ω computed over head_dim instead of d_r (partial rotary), first d_r/2 kept."""
    if c.d_r == c.head_dim or c.short_factor is not None:
        return None
    wide = _variant(c, rotary_dim=c.head_dim)
    model = _model(
        wide,
        f"ω computed over head_dim = {c.head_dim} instead of d_r = {c.d_r} (partial rotary)",
        omega_dim=c.head_dim,
    )
    if model is None:
        return None
    return dataclasses.replace(model, omegas=model.omegas[: c.d_r // 2].copy())


def frequency_models(config: RopeConfig) -> list[FrequencyModel]:
    """The configured schedule first, then every applicable slip."""
    first = _model(config, "", omega_dim=config.d_r)
    assert first is not None
    candidates = [_head_dim_omegas(config), *_schedule_slips(config), *_cross_schedules(config)]
    shapes = [FrequencyModel(w, config.rope_type, {}, text) for w, text in shape_slips(config)]
    return [first, *[m for m in candidates if m is not None], *shapes]


def attention_models(config: RopeConfig) -> list[AttentionModel]:
    """The configured A first, then its slips: the schedule's own (the wrong form, first where
    a value coincides), missing, applied twice."""
    _, exact = frequencies(config)
    out = [AttentionModel(exact)]
    for value, slip in SCHEDULES[config.rope_type].attention_slips(config, exact):
        out.append(AttentionModel(value, slip))
    if exact != 1.0:
        out.append(AttentionModel(1.0, f"the attention factor A = {exact:.6g} is missing"))
        out.append(
            AttentionModel(
                exact * exact,
                f"the attention factor A = {exact:.6g} is applied twice ({exact * exact:.6g})",
            )
        )
    return [
        m for i, m in enumerate(out) if i == 0 or not math.isclose(m.value, exact, rel_tol=1e-12)
    ]
