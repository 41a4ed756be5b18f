"""The Fourier-features convention (SPEC §10.1-§10.2): every axis a library chooses, as data.

A Fourier-feature encoding maps a real input x (k coordinates) to sines and cosines of m
angles a_j = c·s·Σ_i W_ji·x_i (SPEC §10.1), where

* c, the **π factor** (``pi``): ``none`` (1), ``pi`` (π) or ``2pi`` (2π);
* s, the **input scale** (``input_scale``, a float taken at its exact value, default 1);
* W, the (m, k) **angle matrix**, given by the **frequency law** (``law``):
  ``base2`` (ω_j = 2^(e0 + j), NeRF), ``geometric`` (ω_j = b^((e0 + j·e1)/q), a rational
  exponent: timm's 1/10000^(j/n), nerfstudio's 2^linspace), ``linear``
  (ω_j = f0 + j·(f1 − f0)/(n − 1), timm's "pixel" bands, Perceiver) or ``matrix``
  (W = B given: Tancik et al. 2020 random Fourier features, diffusers
  ``GaussianFourierProjection``; checked given B, never by its randomness). For the three
  band laws each of the n bands meets each of the k coordinates (m = n·k), in the
  **angle order** ``band-major`` (band outer) or ``axis-major`` (axis outer).

The output row is laid out by the **block order** (``blocks``): ``sin|cos`` (all sines then all
cosines), ``cos|sin``, ``interleaved`` (sin a_j, cos a_j pairs) or ``per-band`` (for each band:
its k sines then its k cosines, the NeRF code's layout); and the **raw input** (``raw``):
``none``, ``first`` or ``last`` (the k coordinates x_i themselves, unscaled).

With ``input_log`` the angles take log x_i in place of x_i (diffusers'
``GaussianFourierProjection(log=True)``, its default: noise levels σ encoded as log σ).

The **domain** [low, high] is where each coordinate is claimed (the error bound grows with
|a_j|, SPEC §10.4); ``integer_inputs`` restricts the claim to integers there (grid indices,
as timm's ``in_pixels=False`` grids).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction
from typing import Any

__all__ = [
    "BLOCKS",
    "LAWS",
    "ORDERS",
    "PI_FACTORS",
    "RAWS",
    "FourierConvention",
]

PI_FACTORS = ("none", "pi", "2pi")
LAWS = ("base2", "geometric", "linear", "matrix")
ORDERS = ("band-major", "axis-major")
BLOCKS = ("sin|cos", "cos|sin", "interleaved", "per-band")
RAWS = ("none", "first", "last")
PI_MULTIPLE = {"none": 0, "pi": 1, "2pi": 2}
"""c = π·PI_MULTIPLE[pi] for ``pi``/``2pi``, c = 1 for ``none``."""

MAX_WIDTH = 1 << 16


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


def _finite(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    return float(value)


@dataclass(frozen=True)
class FourierConvention:
    """One Fourier-feature encoding (SPEC §10.1); see the module docstring for each axis."""

    name: str = "custom"
    in_dims: int = 1
    pi: str = "none"
    law: str = "base2"
    bands: int = 10
    exponent_start: int = 0
    exponent_step: int = 1
    exponent_denominator: int = 1
    base: float = 2.0
    linear_start: float = 1.0
    linear_stop: float = 1.0
    matrix: tuple[tuple[float, ...], ...] = ()
    order: str = "band-major"
    blocks: str = "sin|cos"
    raw: str = "none"
    input_scale: float = 1.0
    domain: tuple[float, float] = (-1.0, 1.0)
    integer_inputs: bool = False
    input_log: bool = False
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.in_dims, bool) or not isinstance(self.in_dims, int):
            raise ValueError(f"in_dims must be an int >= 1; got {self.in_dims!r}")
        if not 1 <= self.in_dims <= 64:
            raise ValueError(f"in_dims must be in 1..64; got {self.in_dims!r}")
        _choice("pi", self.pi, PI_FACTORS)
        _choice("law", self.law, LAWS)
        _choice("order", self.order, ORDERS)
        _choice("blocks", self.blocks, BLOCKS)
        _choice("raw", self.raw, RAWS)
        for name in ("bands", "exponent_start", "exponent_step", "exponent_denominator"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be an int; got {value!r}")
        if self.law != "matrix" and not 1 <= self.bands <= 4096:
            raise ValueError(f"bands must be in 1..4096; got {self.bands!r}")
        if self.exponent_denominator < 1:
            raise ValueError(f"exponent_denominator must be >= 1; got {self.exponent_denominator}")
        if _finite("base", self.base) <= 1.0:
            raise ValueError(f"base must be > 1; got {self.base!r}")
        _finite("linear_start", self.linear_start)
        _finite("linear_stop", self.linear_stop)
        if _finite("input_scale", self.input_scale) == 0.0:
            raise ValueError("input_scale must be nonzero; got 0.0")
        object.__setattr__(self, "matrix", self._checked_matrix())
        self._check_domain()
        if self.blocks == "per-band" and (self.law == "matrix" or self.order != "band-major"):
            raise ValueError("blocks per-band needs a band law (not matrix) in band-major order")
        if self.width > MAX_WIDTH:
            raise ValueError(f"the width must be at most {MAX_WIDTH}; got {self.width}")

    def _check_domain(self) -> None:
        low, high = (_finite("domain", v) for v in self.domain)
        if not low < high:
            raise ValueError(f"domain must be (low, high) with low < high; got {self.domain!r}")
        object.__setattr__(self, "domain", (low, high))
        if not isinstance(self.integer_inputs, bool):
            raise ValueError(f"integer_inputs must be true or false; got {self.integer_inputs!r}")
        if not isinstance(self.input_log, bool):
            raise ValueError(f"input_log must be true or false; got {self.input_log!r}")
        if self.input_log and (low <= 0.0 or self.in_dims != 1):
            raise ValueError(
                f"input_log needs one input and a positive domain; got {self.domain!r}"
            )

    def _checked_matrix(self) -> tuple[tuple[float, ...], ...]:
        rows = tuple(tuple(_finite("matrix", v) for v in row) for row in self.matrix)
        if self.law != "matrix":
            if rows:
                raise ValueError(f"matrix is only for law matrix; got law {self.law!r}")
            return rows
        if not rows or any(len(row) != self.in_dims for row in rows):
            raise ValueError(f"matrix must be m rows of in_dims={self.in_dims} numbers (m >= 1)")
        return rows

    @property
    def angles(self) -> int:
        """m, the number of angles."""
        return len(self.matrix) if self.law == "matrix" else self.bands * self.in_dims

    @property
    def width(self) -> int:
        """D = 2m (+ k with the raw input), the output row's length."""
        return 2 * self.angles + (0 if self.raw == "none" else self.in_dims)

    def frequency(self, j: int) -> tuple[Fraction | None, Fraction]:
        """ω_j of band j as (its rational value, or None when irrational or too long to
        form; the exponent e_j) for the band laws: base2 2^(e0+j); geometric b^((e0 + j·e1)/q)
        (rational when b is a perfect power, as 10000^(-1/4) = 1/10); linear f0 + j·Δ."""
        if self.law == "base2":
            return Fraction(2) ** (self.exponent_start + j), Fraction(self.exponent_start + j)
        if self.law == "geometric":
            from pespec.numerics.rounding import rational_omega

            e = Fraction(self.exponent_start + j * self.exponent_step, self.exponent_denominator)
            return rational_omega(Fraction(self.base), -e), e
        start, stop = Fraction(self.linear_start), Fraction(self.linear_stop)
        step = (stop - start) / (self.bands - 1) if self.bands > 1 else Fraction(0)
        return start + j * step, Fraction(0)

    def angle_index(self) -> list[tuple[int, int]]:
        """(band j, axis i) of each angle a_0..a_{m-1} (band laws only)."""
        if self.order == "band-major":
            return [(j, i) for j in range(self.bands) for i in range(self.in_dims)]
        return [(j, i) for i in range(self.in_dims) for j in range(self.bands)]

    def columns(self) -> list[tuple[str, int]]:
        """What each output column holds: ("sin", j), ("cos", j) of angle j or ("raw", i)."""
        m, k = self.angles, self.in_dims
        if self.blocks == "sin|cos":
            trig = [("sin", j) for j in range(m)] + [("cos", j) for j in range(m)]
        elif self.blocks == "cos|sin":
            trig = [("cos", j) for j in range(m)] + [("sin", j) for j in range(m)]
        elif self.blocks == "interleaved":
            trig = [(f, j) for j in range(m) for f in ("sin", "cos")]
        else:
            trig = [
                (f, b * k + i) for b in range(self.bands) for f in ("sin", "cos") for i in range(k)
            ]
        raw = [("raw", i) for i in range(k)]
        if self.raw == "first":
            return raw + trig
        return trig + raw if self.raw == "last" else trig

    def with_changes(self, **changes: Any) -> FourierConvention:
        """A copy with ``changes`` (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (lists for tuples); :func:`convention_from` reads it back."""
        data = asdict(self)
        data["matrix"] = [list(row) for row in self.matrix]
        data["domain"] = list(self.domain)
        return data
