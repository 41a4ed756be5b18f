"""Hypothesis strategies for the parameter space of SPEC §1–§4, shared by tests and the suite.

Sizes stay modest by default (at most ``max_elements`` = n·d values per configuration) so a
property run costs milliseconds; pass a larger ``max_elements`` for thorough runs. Every
strategy draws valid arguments only (the validation layer is tested elsewhere).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from pespec.numerics.formats import DTYPES
from pespec.sinusoidal.properties.base import LEVELS, EncodingConfig, Level
from pespec.sinusoidal.reference.conventions import CANONICAL, PRESETS, Convention

__all__ = [
    "BASES",
    "D_MODELS",
    "bases",
    "conventions",
    "d_models",
    "encoding_configs",
    "levels",
    "offsets",
    "positions",
]

D_MODELS: tuple[int, ...] = (2, 4, 6, 8, 16, 64, 128, 512, 768, 1024, 4096, 8192)
"""Model widths drawn with priority: the widths of published models and the extremes."""

BASES: tuple[float, ...] = (10000.0, 10.0, 2.0, 100.0, 500000.0, 1e6)
"""Bases drawn with priority: the paper's 10^4, small ones and RoPE-style large ones."""

POSITION_KINDS: tuple[str, ...] = ("small", "large", "negative", "fractional", "huge")
"""small: 0 .. 2048 ints; large: ints up to 2^31; negative: ints down to −10^6;
fractional: floats in [−10^4, 10^4]; huge: ints up to 2^62 or floats up to 10^15."""


def d_models(max_d_model: int = 8192) -> st.SearchStrategy[int]:
    """Even widths 2 .. ``max_d_model``: the listed ones first, then any even number."""
    listed = [d for d in D_MODELS if d <= max_d_model]
    return st.one_of(
        st.sampled_from(listed), st.integers(1, max(1, max_d_model // 2)).map(lambda h: 2 * h)
    )


def bases() -> st.SearchStrategy[float]:
    """Bases > 1: the listed ones, or any float in [1.5, 10^7]."""
    return st.one_of(
        st.sampled_from(BASES),
        st.floats(1.5, 1e7, allow_nan=False, allow_infinity=False),
    )


def offsets(max_offset: int = 1000) -> st.SearchStrategy[int]:
    """Offsets k ≥ 1 for the rotation property: 1, 5, 10, 50 first, or any up to max."""
    return st.one_of(st.sampled_from((1, 5, 10, 50)), st.integers(1, max_offset))


def levels(include_claimed: bool = True) -> st.SearchStrategy[Level]:
    """The default levels and, optionally, claimed stricter ones (T_work = float64)."""
    defaults = list(LEVELS.values())
    if not include_claimed:
        return st.sampled_from(defaults)
    claimed = [Level(name, "float64") for name in DTYPES if name != "float64"]
    return st.sampled_from(defaults + claimed)


def conventions(canonical_only: bool = False) -> st.SearchStrategy[Convention]:
    """The canonical convention, or any named preset of SPEC §3."""
    if canonical_only:
        return st.just(CANONICAL)
    return st.sampled_from(list(PRESETS.values()))


REACH: dict[str, float] = {
    "small": 2048.0,
    "fractional": 1e4,
    "negative": 1e6,
    "large": 2.0**31,
    "huge": 2.0**53,
}
"""Smallest |p| bound that still lets a kind be drawn (huge needs at least 2^53)."""


def _position_values(kind: str, cap: float = 2.0**62) -> st.SearchStrategy[Any]:
    """Position values of one kind with |p| ≤ ``cap`` (≥ REACH[kind])."""
    if kind == "small":
        return st.integers(0, 2048)
    if kind == "large":
        return st.integers(0, 2**31)
    if kind == "negative":
        return st.integers(-(10**6), -1)
    if kind == "fractional":
        return st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)
    top = int(min(cap, 2.0**62))
    return st.one_of(
        st.integers(2**53, top),
        st.floats(1e9, min(1e15, float(top)), allow_nan=False, allow_infinity=False),
    )


@st.composite
def positions(
    draw: st.DrawFn,
    max_size: int = 16,
    kinds: tuple[str, ...] = POSITION_KINDS,
    max_magnitude: float = 2.0**62,
) -> np.ndarray[Any, Any]:
    """1-D positions of one kind (int64 or float64), 1 .. ``max_size`` of them, unique,
    with |p| ≤ ``max_magnitude`` (kinds whose range lies beyond it are not drawn)."""
    usable = [k for k in kinds if REACH[k] <= max_magnitude]
    kind = draw(st.sampled_from(usable or ["small"]))
    values = draw(
        st.lists(_position_values(kind, max_magnitude), min_size=1, max_size=max_size, unique=True)
    )
    if all(isinstance(v, int) for v in values):
        return np.array(values, dtype=np.int64)
    return np.array([float(v) for v in values], dtype=np.float64)


@st.composite
def encoding_configs(
    draw: st.DrawFn,
    *,
    max_d_model: int = 8192,
    max_elements: int = 4096,
    max_positions: int = 16,
    kinds: tuple[str, ...] = POSITION_KINDS,
    canonical_only: bool = True,
    level: Level | None = None,
    max_magnitude: float = 2.0**62,
) -> EncodingConfig:
    """A configuration with n·d ≤ ``max_elements`` (n ≥ 1, so d ≤ max_elements).

    ``level``: keep positions within what its working precision can hold (|p| ≤ 2048 for a
    float16 or bfloat16 T_work, whose integers are exact up to 2^11 and 2^8 only at best).
    ``max_magnitude``: a backend's domain limit on |p| (e.g. 2^53 for the float64 reference).
    """
    convention = draw(conventions(canonical_only))
    shift = float(convention.frequency_shift)
    d = draw(d_models(min(max_d_model, max_elements)).filter(lambda w: w / 2 - shift > 0))
    n_max = max(1, min(max_positions, max_elements // d))
    low_work = level is not None and level.working_dtype in ("float16", "bfloat16")
    cap = min(max_magnitude, 2048.0 if low_work else 2.0**62)
    pos = draw(positions(max_size=n_max, kinds=kinds, max_magnitude=cap))
    base = draw(bases())
    return EncodingConfig(pos, d, base, convention)
