"""Configuration independence (SPEC §5.10): results do not depend on what was computed before.

The backend is called with the configuration A under test, then with another configuration B,
then with A again, at A's positions: the two A results must be bit-identical and B must be
within B's §4 bound of the exact encoding. A backend whose results depend on the calls before
(a table cached under a key that leaves out the base) fails, and the message names it: "the
call with base=10000 after base=500000 returned the base=500000 table".

A failure of B is judged only where A itself is within its bound (else §5.1 reports the
backend's error, and this property does not apply), unless B returned A's values.

B is A with another base (500000, or 10000 when A's is 500000; another declared base when the
backend declares ``bases``), else A with d_model ± 2 when the backend declares one base only;
when neither is accepted the property does not apply (passes with the reason).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.ratio import error_ratio
from pespec.sinusoidal.properties.base import EncodingConfig, PropertyResult
from pespec.sinusoidal.properties.context import Context, describe_excess, position_value
from pespec.sinusoidal.properties.errormodel import element_bound_parts
from pespec.sinusoidal.properties.registry import spec_property
from pespec.sinusoidal.properties.rows import ORACLE_ERROR, call, oracle_values, worst_index

__all__ = ["other_config", "prop_config_independence"]

_BASES: Final = (500000.0, 10000.0)


def _accepted(caps: Any, config: EncodingConfig) -> bool:
    """Whether the declared capabilities (None: none declared) take ``config``'s call."""
    accepts = getattr(caps, "accepts", None)
    return accepts is None or accepts(config.positions, config.d_model, config.base) is None


def other_config(config: EncodingConfig, caps: Any = None) -> EncodingConfig | str:
    """Configuration B for A = ``config`` inside ``caps`` (the backend's declared
    capabilities, or None); a str says why there is none."""
    declared = getattr(caps, "bases", None)
    if declared is None:
        bases = [_BASES[0] if config.base != _BASES[0] else _BASES[1]]
    else:
        bases = [float(b) for b in declared if float(b) != config.base]
    shift = float(config.convention.frequency_shift)
    dims = [d for d in (config.d_model + 2, config.d_model - 2) if d > 0 and d / 2 - shift > 0]
    candidates = [dataclasses.replace(config, base=b) for b in bases] + [
        dataclasses.replace(config, d_model=d) for d in dims
    ]
    for other in candidates:
        same = other.d_model == config.d_model and np.array_equal(
            oracle_values(other, other.positions), oracle_values(config, config.positions)
        )  # d_model = 2: ω_0 = 1 whatever the base
        if _accepted(caps, other) and not same:
            return other
    return (
        "the backend declares one configuration only (no other base or d_model it accepts "
        f"beside d_model={config.d_model}, base={config.base:g})"
    )


def _name(config: EncodingConfig, other: EncodingConfig) -> str:
    """``base=500000`` (or ``d_model=66``): what sets ``config`` apart from ``other``."""
    if config.base != other.base:
        return f"base={config.base:g}"
    return f"d_model={config.d_model}"


def _errors(
    y: NDArray[np.float64], config: EncodingConfig, ctx: Context
) -> tuple[NDArray[Any], NDArray[Any]]:
    """|y − x| and its tolerance (§4 bound + the oracle's 2^-54) under ``config``; (n, d)."""
    x = oracle_values(config, config.positions)
    bound = element_bound_parts(config, ctx.level, np.abs(x) + ORACLE_ERROR).total
    with np.errstate(invalid="ignore"):
        error = np.where(np.isfinite(y), np.abs(y - x), np.inf)
    return error, bound + ORACLE_ERROR


def _within(y: NDArray[np.float64], config: EncodingConfig, ctx: Context) -> NDArray[Any]:
    """Ratio of |y − x| to its tolerance under ``config`` (:func:`_errors`); (n, d)."""
    ratio: NDArray[Any] = error_ratio(*_errors(y, config, ctx))
    return ratio


def _snippet(config: EncodingConfig, other: EncodingConfig) -> str:
    p = f"np.array({config.positions.tolist()!r})"
    a = f"encoder({p}, {config.d_model}, {config.base!r})"
    return f"a = {a}; b = encoder({p}, {other.d_model}, {other.base!r}); assert (a == {a}).all()"


@spec_property("5.10", "configuration A, then B, then A: A bit-identical, B as defined")
def prop_config_independence(ctx: Context) -> PropertyResult:
    """A, B, A at A's positions: the A results bit for bit, B within its §4 bound."""
    config = ctx.config
    other = other_config(config, getattr(ctx.encoder, "caps", None))
    if isinstance(other, str):
        return ctx.passed(0.0, 0.0, details={"applicable": False, "reason": other})
    first = call(ctx, config.positions)
    middle = call(dataclasses.replace(ctx, config=other), config.positions)
    again = call(ctx, config.positions)
    a_name, b_name = _name(config, other), _name(other, config)
    if first.dtype != again.dtype or not np.array_equal(first, again, equal_nan=True):
        return _order_violation(ctx, other, first, again)
    y = middle.astype(np.float64)
    error, tolerance = _errors(y, other, ctx)
    ratio = error_ratio(error, tolerance)
    r, j = worst_index(ratio)
    worst = (float(error[r, j]), float(tolerance[r, j]))
    if ratio[r, j] <= 1.0:
        details = {"applicable": True, "max_ratio": float(ratio[r, j]), "other": b_name}
        return ctx.passed(*worst, position_value(config.positions, r), j, details)
    why = f"the call with {b_name} does not follow its definition"
    same_shape = other.d_model == config.d_model
    if same_shape and bool(np.all(_within(y, config, ctx) <= 1.0)):
        why = (
            f"results depend on what was computed before: the call with {b_name} after "
            f"{a_name} returned the {a_name} table (a cache keyed on too little?)"
        )
    elif same_shape and np.array_equal(first, middle):
        param = b_name.partition("=")[0]
        why = (
            f"the calls with {a_name} and {b_name} returned the same values (the {param} "
            "ignored, or a table cached under a key that leaves it out)"
        )
    elif not bool(np.all(_within(first.astype(np.float64), config, ctx) <= 1.0)):
        reason = (
            f"configuration A ({a_name}) is itself outside its §4 bound at these positions "
            "(§5.1 reports it): independence is not judged"
        )
        return ctx.passed(0.0, 0.0, details={"applicable": False, "reason": reason})
    exact = oracle_values(other, config.positions)
    raise dataclasses.replace(ctx, config=other).violation(
        expected=f"the call with {b_name}, made after {a_name}, within its §4 bound",
        found=f"{why}: y = {float(y[r, j])!r}, exact x = {float(exact[r, j])!r}",
        excess=describe_excess(*worst),
        position=position_value(config.positions, r),
        column=int(j),
        max_error=worst[0],
        bound=worst[1],
        details={"max_ratio": float(ratio[r, j]), "other": b_name},
        snippet=_snippet(config, other),
    )


def _order_violation(
    ctx: Context, other: EncodingConfig, first: NDArray[Any], again: NDArray[Any]
) -> PropertyResult:
    """The two calls with A differ: where, and whether the second is B's table."""
    config = ctx.config
    a_name, b_name = _name(config, other), _name(other, config)
    y1, y2 = first.astype(np.float64), again.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.where(np.isfinite(y1 - y2), np.abs(y1 - y2), np.inf)
    r, j = (int(i) for i in np.unravel_index(int(np.argmax(diff)), diff.shape))
    took = ""
    if other.d_model == config.d_model and bool(np.all(_within(y2, other, ctx) <= 1.0)):
        took = f"; the call with {a_name} after {b_name} returned the {b_name} table"
    raise ctx.violation(
        expected=f"bit-identical outputs from the calls with {a_name} before and after {b_name}",
        found=f"results depend on what was computed before{took}: y = {float(y1[r, j])!r} "
        f"then {float(y2[r, j])!r}",
        excess=f"{int(np.count_nonzero(diff))} elements differ",
        position=position_value(config.positions, r),
        column=j,
        max_error=float(diff[r, j]),
        bound=0.0,
        snippet=_snippet(config, other),
    )
