"""A generated evaluation set for the sinusoidal diagnosis (issue 39 item 2).

A plain float32 port of the canonical table (SPEC §3: row p, column 2k = sin(p·ω_k), 2k + 1
= cos(p·ω_k), ω_k = base^(−2k/d)) written once from the formula, and mutation operators
that change one step of it: the inverse frequencies, the positions or the angle p·ω rounded
to float16 or bfloat16 (each stage alone), the output rounded, a position offset, the base
ignored (10000 whatever the caller asks), the exponent's denominator or index off, the
layout (halves, cos first), the sign of the sine, the angle accumulated as a running sum.
Each mutant records its true cause (keywords a sentence naming it must hold, and the value
when one is nameable). Configurations (d_model) are drawn per seed; even seeds are the
guide half, odd seeds the measured half. The diagnosis code never reads this module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

Array = NDArray[Any]
Encoder = Callable[[Any, int, float], Array]
DTYPES = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}


@dataclass(frozen=True)
class SinPort:
    """How the port computes each step; the correct port is ``SinPort()``."""

    inv_freq_dtype: str = "float32"
    positions_dtype: str = "float32"
    phase_dtype: str = "float32"
    output_dtype: str = "float32"
    offset: int = 0
    base_from: str = "argument"  # or 'fixed' (10000 whatever the caller asks)
    exponent: str = "2k/d"  # '2k/(d-2)', '2(k+1)/d', 'k/d'
    layout: str = "interleaved"  # 'halves' [sin | cos], 'cos_first' (cos at 2k)
    sin_sign: int = 1
    phase: str = "multiply"  # or 'accumulate'
    float64: bool = False
    formula: str = "pow"  # how the correct ω is written: 'pow' base**(−e) or 'exp' exp(−e·ln b)


@dataclass(frozen=True)
class SinMutant:
    """One generated case: the port's mutation and the true cause."""

    seed: int
    kind: str
    port: SinPort
    keywords: tuple[str, ...]
    value: str | None

    @property
    def half(self) -> str:
        """'guide' (even seed) or 'measured' (odd seed)."""
        return "guide" if self.seed % 2 == 0 else "measured"

    def file_request(self) -> tuple[Array, int, float]:
        """(positions, d_model, base) of the table saved for ``--from-file`` scoring, drawn
        per seed (the callable's diagnosis draws its own)."""
        rng = np.random.default_rng([self.seed, 7])
        rows = int(rng.choice([512, 2048]))
        d_model = int(rng.choice([32, 64, 128]))
        base = float(rng.choice([10000.0, 500.0, 100000.0]))
        return np.arange(0, rows, dtype=np.float64), d_model, base

    def encoder(self) -> Encoder:
        """The mutated port as an encoder ``(positions, d_model, base) -> (n, d_model)``."""
        return _encoder(self.port)


def _in(values: Array, dtype: str) -> Array:
    return np.asarray(values).astype(DTYPES[dtype]).astype(np.float32)


def _exponents(port: SinPort, d: int) -> Array:
    k = np.arange(d // 2, dtype=np.float64)
    return {
        "2k/d": 2 * k / d,
        "2k/(d-2)": 2 * k / max(d - 2, 1),
        "2(k+1)/d": 2 * (k + 1) / d,
        "k/d": k / d,
    }[port.exponent]


def _encoder(port: SinPort) -> Encoder:
    def encoder(positions: Any, d_model: int, base: float) -> Array:
        b = base if port.base_from == "argument" else 10000.0
        e = _exponents(port, d_model)
        omegas = 1.0 / b**e if port.formula == "pow" else np.exp(-e * np.log(b))
        p = np.asarray(positions, dtype=np.float64) + port.offset
        if port.float64:
            phase = p[:, None] * omegas[None, :]
        elif port.phase == "accumulate":
            phase = _accumulated(p, _in(omegas, port.inv_freq_dtype))
        else:
            w = _in(omegas, port.inv_freq_dtype)
            phase = _in(p, port.positions_dtype)[:, None] * w[None, :]
            phase = _in(phase, port.phase_dtype)
        sin, cos = np.sin(phase) * port.sin_sign, np.cos(phase)
        if not port.float64:
            sin, cos = _in(sin, port.output_dtype), _in(cos, port.output_dtype)
        out = np.empty((p.size, d_model), dtype=sin.dtype)
        if port.layout == "halves":
            out[:, : d_model // 2], out[:, d_model // 2 :] = sin, cos
        elif port.layout == "cos_first":
            out[:, 0::2], out[:, 1::2] = cos, sin
        else:
            out[:, 0::2], out[:, 1::2] = sin, cos
        return out

    return encoder


def _accumulated(p: Array, omegas: Array) -> Array:
    """p·ω as a float32 running sum of ω over 0..p (integer p; fractional p multiplied)."""
    whole = np.all(p == np.round(p)) and p.size and p.min() >= 0 and p.max() < 2**17
    if not whole:
        return p.astype(np.float32)[:, None] * omegas[None, :]
    top = int(p.max()) + 1
    steps = np.broadcast_to(omegas.astype(np.float32), (top, omegas.size))
    table = np.cumsum(steps, axis=0, dtype=np.float32) - omegas.astype(np.float32)
    return np.asarray(table[p.astype(np.int64)], dtype=np.float32)


def _kinds(d: int) -> Iterator[tuple[str, SinPort, tuple[str, ...], str | None]]:
    """(kind, port, keywords, value) of every mutation."""
    names = {
        "inv_freq": ("inverse frequencies",),
        "positions": ("position p is used as", "positions are rounded"),
        "phase": ("angle",),
        "output": ("output values rounded",),
    }
    for stage, what in names.items():
        for fmt in ("float16", "bfloat16"):
            fields: dict[str, Any] = {f"{stage}_dtype": fmt}
            yield f"{stage} in {fmt}", SinPort(**fields), what, fmt
    yield "offset +1", SinPort(offset=1), ("shift", "offset"), "1"
    yield "offset −1", SinPort(offset=-1), ("shift", "offset"), "-1"
    yield "base ignored", SinPort(base_from="fixed"), ("base",), "10000"
    yield "exponent 2k/(d−2)", SinPort(exponent="2k/(d-2)"), ("d − 2", "d-2", "d/2−1"), None
    yield "exponent 2(k+1)/d", SinPort(exponent="2(k+1)/d"), ("2(i+1)/d", "off by one"), None
    yield "exponent k/d", SinPort(exponent="k/d"), ("i/d", "k/d"), None
    yield "layout halves", SinPort(layout="halves"), ("halves", "concat", "[sin"), None
    yield "layout cos first", SinPort(layout="cos_first"), ("swapped", "cos in the even"), None
    yield "sin sign", SinPort(sin_sign=-1), ("sign", "negat", "−sin", "scaled by -1"), None
    yield "accumulated angle", SinPort(phase="accumulate"), ("phase error",), "∝"


def sinusoidal_mutants(seeds: range = range(8)) -> list[SinMutant]:
    """Every mutant of every seed: the diagnosis draws its own widths and bases, so a seed
    draws how the port writes ω (:func:`_formula`) and holds every kind once."""
    out = []
    for seed in seeds:
        formula = _formula(seed)
        for kind, port, keywords, value in _kinds(0):
            port = dataclasses.replace(port, formula=formula)
            out.append(SinMutant(seed, kind, port, keywords, value))
    return out


def _formula(seed: int) -> str:
    """The seed's way of writing the correct ω (both are the same function)."""
    return str(np.random.default_rng([seed, 99]).choice(["pow", "exp"]))


def correct_sinusoidal(seeds: range = range(8)) -> list[SinMutant]:
    """The unmutated float32 and float64 ports (no cause)."""
    out = []
    for seed in seeds:
        out.append(SinMutant(seed, "correct float32", SinPort(formula=_formula(seed)), (), None))
        out.append(SinMutant(seed, "correct float64", SinPort(float64=True), (), None))
    return out
