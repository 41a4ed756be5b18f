"""The Fourier family's diagnosis (SPEC §10.9): which convention axis the values follow.

When the reference stage fails, the backend's output at the suite's inputs is compared with
the certified oracle of conventions that differ from the declared one in one axis: the π
factor (π missing, π doubled, an extra π), the frequency base (2 vs 10000), linear vs
geometric band spacing, the block order, the angle order, the raw input and log x. The first
whose tolerance the output meets is named, with the measured largest error against the
declared convention and against the one found.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from pespec.conformance.contract import BackendFailure
from pespec.conformance.report import Report
from pespec.fourier.convention import BLOCKS, ORDERS, PI_FACTORS, RAWS, FourierConvention
from pespec.fourier.errormodel import tolerance
from pespec.fourier.oracle import oracle_encode

__all__ = ["alternatives", "diagnose", "pi_slip"]

_PI_WORDS = {"none": "no π", "pi": "π", "2pi": "2π"}
_RAW_WORDS = {"none": "not included", "first": "first", "last": "appended last"}


def pi_slip(declared: str, found: str) -> str:
    """The name of a π-factor slip: ``π missing``, ``π doubled``, ``an extra π``, ..."""
    names = {
        ("pi", "none"): "π missing",
        ("2pi", "none"): "2π missing",
        ("2pi", "pi"): "π where 2π (a factor 2 missing)",
        ("pi", "2pi"): "π doubled (2π where π)",
        ("none", "pi"): "an extra π",
        ("none", "2pi"): "an extra 2π",
    }
    return names[(declared, found)]


def alternatives(conv: FourierConvention) -> Iterator[tuple[str, str, FourierConvention]]:
    """(axis, slip name, convention) for each one-axis change of ``conv`` the diagnosis tries."""
    for pi in PI_FACTORS:
        if pi != conv.pi:
            yield "pi", pi_slip(conv.pi, pi), conv.with_changes(pi=pi)
    yield from _laws(conv)
    yield from _layouts(conv)
    if conv.in_dims == 1 and conv.domain[0] > 0:
        name = "log x not taken where declared" if conv.input_log else "log x taken where x"
        yield "input", name, conv.with_changes(input_log=not conv.input_log)


def _band_ends(conv: FourierConvention) -> tuple[float, float]:
    """ω_0 and ω_{n-1} in float64 (the rational rounded once, else pow)."""
    ends = []
    for j in (0, conv.bands - 1):
        exact, exponent = conv.frequency(j)
        ends.append(float(exact) if exact is not None else math.pow(conv.base, float(exponent)))
    return ends[0], ends[1]


def _spacing(conv: FourierConvention) -> Iterator[tuple[str, str, FourierConvention]]:
    """Linear bands where geometric ones are declared (same ends), and back (from 1)."""
    if conv.law in ("base2", "geometric") and conv.bands > 1:
        low, high = _band_ends(conv)
        other = conv.with_changes(law="linear", linear_start=low, linear_stop=high)
        yield "law", f"linear bands where {conv.law}", other
    if conv.law == "linear" and conv.linear_start == 1.0 and conv.linear_stop > 1.0:
        changes = {"exponent_start": 0, "exponent_step": 1, "exponent_denominator": conv.bands - 1}
        other = conv.with_changes(law="geometric", base=conv.linear_stop, **changes)
        yield "law", "geometric bands where linear", other


def _laws(conv: FourierConvention) -> Iterator[tuple[str, str, FourierConvention]]:
    """Base 2 vs 10000, linear vs geometric spacing."""
    yield from _spacing(conv)
    if conv.law == "base2":
        timm = {"law": "geometric", "base": 10000.0, "exponent_start": 0, "exponent_step": -1}
        changes = {**timm, "exponent_denominator": conv.bands}
        yield "law", "frequencies 10000^(-j/n) where base 2", conv.with_changes(**changes)
    if conv.law == "geometric":
        for base in (2.0, 10000.0):
            if base != conv.base:
                name = f"frequency base {base:g} where {conv.base:g}"
                yield "law", name, conv.with_changes(base=base)


def _layouts(conv: FourierConvention) -> Iterator[tuple[str, str, FourierConvention]]:
    """Block order, angle order, raw input."""
    for blocks in BLOCKS:
        if blocks != conv.blocks:
            try:
                other = conv.with_changes(blocks=blocks)
            except ValueError:
                continue
            yield "blocks", f"block order {blocks} where {conv.blocks}", other
    if conv.law != "matrix":
        for order in ORDERS:
            if order != conv.order and conv.blocks != "per-band":
                yield (
                    "order",
                    f"angle order {order} where {conv.order}",
                    conv.with_changes(order=order),
                )
    for raw in RAWS:
        if raw != conv.raw:
            name = f"raw input {_RAW_WORDS[raw]} where {_RAW_WORDS[conv.raw]}"
            yield "raw", name, conv.with_changes(raw=raw)


def _matches(out: Any, x: Any, conv: FourierConvention, level: str) -> bool:
    """Whether every element of ``out`` is within ``conv``'s tolerance of its oracle."""
    want = oracle_encode(x, conv)
    return bool(
        out.shape == want.shape and np.all(np.abs(out - want) <= tolerance(x, conv, level, want))
    )


def diagnose(run: Any, report: Report) -> None:
    """Name the one-axis slip whose values the backend returns (see the module docstring)."""
    failed = [
        c for c in report.checks if c.status == "failed" and c.stage in ("reference", "golden")
    ]
    if not failed:
        return
    x, conv, level = run.x, run.conv, run.level or "float64"
    try:
        out = np.asarray(run.guard.raw_call(np.array(x), conv), dtype=np.float64)
    except BackendFailure:
        return
    declared = (
        float(np.max(np.abs(out - oracle_encode(x, conv)))) if out.shape[1] == conv.width else None
    )
    for axis, name, other in alternatives(conv):
        if _matches(out, x, other, level):
            err = float(np.max(np.abs(out - oracle_encode(x, other))))
            report.diagnosis = {
                "slip": name,
                "axis": axis,
                "found": other.to_dict(),
                "max_error_declared": declared,
                "max_error_found": err,
            }
            against = (
                "" if declared is None else f"largest error {declared:.3g} against the declared, "
            )
            report.diagnosis_sentence = (
                f"{name}: the values are the encoding with {axis} changed ({against}"
                f"{err:.3g} against this one, within its bound)"
            )
            return
    report.diagnosis_sentence = "no one-axis change of the convention reproduces the values"
