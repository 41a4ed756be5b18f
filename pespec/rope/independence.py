"""Configuration independence of a rotary backend (SPEC R8.8a, Annex D.10): the property
``config-independence``.

A backend that supports several configurations is called with the run's configuration A, then
with another configuration B, then with A again, on the same x and positions: the two A
results must be bit-identical and B must follow B's definition (within B's element bound).
A backend whose results depend on what it computed before (a cache keyed on too little: two
modules with different θ sharing one table) fails, and the message names it: "the call with
θ=1e4 after θ=5e5 returned the θ=5e5 table".

B is another declared configuration when the backend declares several, else A with another θ
(5e5, or 1e4 when A's θ is 5e5). A backend that declares one configuration, or a schedule whose
frequencies do not depend on θ, skips the property with the reason. A backend that declares no
``configs`` may be bound to one model (a closure over its table, as the FAQ's cached example):
a B outside its bound skips the property with what was seen (a cache keyed on too little
answers as such a closure does; declaring ``configs`` makes it a failure); two different A
results always fail.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final, Protocol

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.errormodel import RopeLevel, tolerance
from pespec.rope.inputs import SUITE_HALF, rotary_x
from pespec.rope.properties import Outcome, finish_outcome, fold_outcome

__all__ = [
    "SkippedOutcome",
    "config_independence",
    "config_independence_of",
    "describe",
    "other_config",
]

RawCall = Callable[[NDArray[np.float64], NDArray[Any], RopeConfig], NDArray[Any]]
"""A validated backend call ``(x, positions, config) -> (n, head_dim) array``."""

_THETAS: Final = (5.0e5, 1.0e4)


class SkippedOutcome(Outcome):
    """An outcome whose check is skipped (the reason in ``message``)."""

    def result_fields(self) -> dict[str, Any]:
        fields = super().result_fields()
        fields.update(status="skipped", max_error=None, bound=None)
        fields["details"] = {"max_ratio": None, "values_compared": 0}
        return fields


def _skipped(reason: str) -> SkippedOutcome:
    return SkippedOutcome(-1.0, 0.0, 0.0, None, None, 0, reason)


def other_config(config: RopeConfig, declared: tuple[Any, ...] | None) -> RopeConfig | str:
    """Configuration B for A = ``config``: the first other declared configuration (the
    backend's ``configs``), else A with another θ; a str says why there is none."""
    if declared is not None:
        others = [c for c in declared if isinstance(c, RopeConfig) and c != config]
        if not others:
            return "the backend declares one configuration only"
        return others[0]
    theta = _THETAS[0] if config.theta != _THETAS[0] else _THETAS[1]
    try:
        other = dataclasses.replace(config, theta=theta)
    except (ValueError, TypeError) as exc:
        return f"no configuration B with another θ is valid for this schedule ({exc})"
    from pespec.rope.oracle import frequencies

    if np.array_equal(frequencies(other)[0], frequencies(config)[0]):
        return f"the {config.rope_type!r} schedule's frequencies do not depend on θ"
    return other


def describe(config: RopeConfig, other: RopeConfig) -> str:
    """The fields by which ``config`` differs from ``other``, as ``θ=500000`` style text (the
    first three, then "…")."""
    mine, theirs = config.to_dict(), other.to_dict()
    names = [k for k in mine if mine[k] != theirs.get(k)] or ["theta"]
    shown = [
        f"{'θ' if k == 'theta' else k}={mine[k]:g}"
        if isinstance(mine[k], float)
        else f"{'θ' if k == 'theta' else k}={mine[k]!r}"
        for k in names[:3]
    ]
    return ", ".join(shown) + (", …" if len(names) > 3 else "")


def _fits(
    y: NDArray[Any],
    x: NDArray[Any],
    p: NDArray[Any],
    config: RopeConfig,
    level: RopeLevel,
    output_dtype: str,
) -> Outcome:
    """``y`` against ``config``'s exact rotation of x at p, within its element bound."""
    from pespec.rope.reference import rotate

    bound = tolerance(x, p, config, level, output_dtype)
    return fold_outcome(None, np.abs(np.asarray(y, np.float64) - rotate(x, p, config)), bound, p)


def config_independence(
    call: RawCall,
    config: RopeConfig,
    declared: tuple[Any, ...] | None,
    positions: NDArray[Any],
    level: RopeLevel,
    output_dtype: str,
) -> Outcome:
    """A, B, A on the same positions (SPEC R8.8a): A twice bit for bit, B within B's bound."""
    other = other_config(config, declared)
    if isinstance(other, str):
        return _skipped(other)
    x_a = rotary_x(positions.shape[0], config.head_dim, seed=13, half=SUITE_HALF)
    x_b = rotary_x(positions.shape[0], other.head_dim, seed=13, half=SUITE_HALF)
    first = np.asarray(call(x_a, positions, config))
    middle = np.asarray(call(x_b, positions, other))
    again = np.asarray(call(x_a, positions, config))
    a_name, b_name = describe(config, other), describe(other, config)
    fit_b = _fits(middle, x_b, positions, other, level, output_dtype)
    if not np.array_equal(first, again, equal_nan=True):
        return _order_failure(again, first, x_a, positions, (config, other), level, output_dtype)
    if fit_b.passed:
        return finish_outcome(fit_b, f"config-independence ({a_name}, then {b_name}, then A)")
    fit_b = finish_outcome(fit_b, f"config-independence ({b_name} after {a_name})")
    same_shape = other.head_dim == config.head_dim
    gave_a = same_shape and _fits(middle, x_b, positions, config, level, output_dtype).passed
    if gave_a and declared is None:  # one model's backend: θ hard-coded, or one table
        return _skipped(
            f"the call with {b_name} returned the {a_name} values: the backend ignores the "
            "configuration it is given, so it serves one configuration (θ hard-coded, one "
            "model's table, or one cached table for every configuration); declare the "
            "configurations it serves, pespec_capabilities = "
            '{"configs": ["PRESET", ...]} (preset names or RopeConfigs), to have its '
            "independence checked among them"
        )
    if gave_a:
        why = (
            f"results depend on what was computed before: the call with {b_name} after "
            f"{a_name} returned the {a_name} table (a cache keyed on too little?)"
        )
    else:
        why = f"configuration B ({b_name}) does not follow its definition"
    if declared is None:  # it may serve one configuration: a closure over one model's table
        return _skipped(
            f"{why}; the backend declares no `configs`, so it may serve one configuration "
            "(declare the configurations it supports to have their independence checked)"
        )
    fit_b.message = f"{why}; {fit_b.message}"
    return fit_b


def _order_failure(
    again: NDArray[Any],
    first: NDArray[Any],
    x: NDArray[np.float64],
    positions: NDArray[Any],
    configs: tuple[RopeConfig, RopeConfig],
    level: RopeLevel,
    output_dtype: str,
) -> Outcome:
    """The second A call differs from the first: where, and whether it is B's table."""
    config, other = configs
    a_name, b_name = describe(config, other), describe(other, config)
    diff = np.abs(np.asarray(again, np.float64) - np.asarray(first, np.float64))
    diff = np.where(np.isnan(diff), np.inf, diff)
    row, col = np.unravel_index(int(np.argmax(diff)), diff.shape)
    took = ""
    if (
        other.head_dim == config.head_dim
        and _fits(again, x, positions, other, level, output_dtype).passed
    ):
        took = f": the call with {a_name} after {b_name} returned the {b_name} table"
    position = float(positions[row])
    return Outcome(
        float("inf"),
        float(diff[row, col]),
        0.0,
        position,
        int(col),
        int(diff.size),
        f"results depend on what was computed before{took} (the two calls with {a_name}, "
        f"before and after {b_name}, differ by {float(diff[row, col]):.3g} at position "
        f"{int(position) if position.is_integer() else position!r}, column {int(col)}; "
        "they must be bit-identical)",
    )


class _Run(Protocol):
    """What :func:`config_independence_of` reads of a rotary run (pespec.rope.suite.RopeRun)."""

    guard: Any
    config: RopeConfig
    backend: Any
    output_dtype: str | None


def config_independence_of(run: _Run, positions: NDArray[Any], level: RopeLevel) -> Outcome:
    """:func:`config_independence` for a rotary run: its guarded calls (validated as every
    call of the suite), its configuration and the configurations its backend declares."""
    from pespec.rope.guard import rope_call

    assert run.output_dtype is not None

    def call(x: NDArray[np.float64], p: NDArray[Any], config: RopeConfig) -> NDArray[Any]:
        result: NDArray[Any] = rope_call(run.guard, x, p, config)
        return result

    declared = run.backend.capabilities.configs
    return config_independence(call, run.config, declared, positions, level, run.output_dtype)
