"""A generated evaluation set for the rotary diagnosis (issue 39 item 1).

A plain float32 port of each schedule (default, linear, llama3) and of each pipeline step
(inverse frequencies, positions, phase, cos/sin, rotation) is written here once, from the
published formulas (θ^(−2j/d); linear divides by s; Llama 3.1's wavelength bands). Each
mutation operator changes one step of that port the way people slip: a comparison
flipped, two parameters swapped, a parameter dropped, an exponent off by one, a wrong
denominator, a rounding/truncation choice, accumulation instead of multiplication, one
stage in a 16-bit format, the rotary width, the pairing or output layout, a position
offset, the rotation's direction. Every mutant carries the true cause the generator knows
(its kind, the keywords a sentence naming it must contain, and the measured value when one
is nameable). The configurations are drawn per seed; even seeds form the guide half, odd
seeds the measured half (:func:`mutants`). The diagnosis code never reads this module.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from tests.diagnosis import schedule_mutants

F32 = np.float32
Array = NDArray[Any]


@dataclass(frozen=True)
class Port:
    """How the port computes each step; the correct port is ``Port()``."""

    theta_from: str = "theta"  # 'theta' or 'default' (the parameter dropped: 10000)
    exponent: str = "2j/d"  # '2j/d', '2j/(d-2)', '2(j+1)/d', 'j/d', '2j/(d/2)'
    linear: str = "divide"  # 'divide', 'multiply', 'ignore'
    llama3_compare: str = "<"  # '<' (as published) or '>' (flipped)
    llama3_swap: bool = False  # low_freq_factor and high_freq_factor swapped
    llama3_scaling: bool = True  # False: the band scaling ignored
    inv_freq_dtype: str = "float32"
    positions_dtype: str = "float32"
    phase_dtype: str = "float32"
    cache_dtype: str = "float32"
    phase: str = "multiply"  # 'multiply' or 'accumulate' (a running sum of ω)
    width: str = "d_r"  # 'd_r', 'head_dim' (the rotary fraction ignored), 'half'
    pairing: str = "config"  # 'config' or 'other'
    offset: int = 0  # positions used: p + offset
    sin_sign: int = 1  # −1: the rotation the other way
    position_rounding: str = "none"  # 'none' or 'floor_half' (p // 2 * 2: a stride slip)
    float64: bool = False  # the whole port in float64 (a correct stack)
    slip: str = ""  # a slip of another schedule's own parameters (:mod:`.schedule_mutants`)


@dataclass(frozen=True)
class Mutant:
    """One generated case: the backend, its configuration and the true cause."""

    seed: int
    kind: str
    config: RopeConfig
    port: Port
    keywords: tuple[str, ...]  # a sentence naming the cause contains one of these
    value: str | None  # the measured value the sentence must show, if nameable

    @property
    def half(self) -> str:
        """'guide' (even seed) or 'measured' (odd seed)."""
        return "guide" if self.seed % 2 == 0 else "measured"

    def backend(self) -> Callable[[Array, Array, RopeConfig], Array]:
        """The mutated port as a rotary backend ``(x, positions, rope) -> (n, head_dim)``."""
        return _backend(self.port)


DTYPES = {
    "float64": np.float64,
    "float32": np.float32,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
}


def _in(values: Array, dtype: str) -> Array:
    """``values`` rounded to ``dtype`` and back to float32 arithmetic."""
    return np.asarray(values).astype(DTYPES[dtype]).astype(np.float32)


def _exponents(port: Port, d: int) -> Array:
    j = np.arange(d // 2, dtype=np.float64)
    return {
        "2j/d": 2 * j / d,
        "2j/(d-2)": 2 * j / (d - 2),
        "2(j+1)/d": 2 * (j + 1) / d,
        "j/d": j / d,
        "2j/(d/2)": 2 * j / (d / 2),
    }[port.exponent]


def _frequencies(port: Port, rope: RopeConfig, d: int) -> tuple[Array, float]:
    """(inverse frequencies in float64, attention factor A) of the port."""
    theta = rope.theta if port.theta_from == "theta" else 10000.0
    if rope.rope_type in schedule_mutants.SCHEDULES:
        return schedule_mutants.port_frequencies(rope, d, _exponents(port, d), theta, port.slip)
    inv = 1.0 / theta ** _exponents(port, d)
    if rope.rope_type == "linear" and rope.factor is not None:
        inv = {"divide": inv / rope.factor, "multiply": inv * rope.factor, "ignore": inv}[
            port.linear
        ]
    if rope.rope_type == "llama3" and port.llama3_scaling:
        inv = _llama3(port, rope, inv)
    return inv, 1.0


def _llama3(port: Port, rope: RopeConfig, inv: Array) -> Array:
    """Llama 3.1's bands: fast pairs kept, slow divided by s, a smooth ramp between."""
    assert rope.factor and rope.low_freq_factor and rope.high_freq_factor
    assert rope.original_max_position_embeddings
    low, high = rope.low_freq_factor, rope.high_freq_factor
    if port.llama3_swap:
        low, high = high, low
    old = rope.original_max_position_embeddings
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv
    out = np.where(wavelen > low_wavelen, inv / rope.factor, inv)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv / rope.factor + smooth * inv
    flip = port.llama3_compare == ">"
    medium = (wavelen <= low_wavelen) & (
        wavelen >= high_wavelen if not flip else wavelen <= high_wavelen
    )
    return np.where(medium, smoothed, out)


def _backend(port: Port) -> Callable[[Array, Array, RopeConfig], Array]:
    def backend(x: Array, positions: Array, rope: RopeConfig) -> Array:
        d = {"d_r": rope.d_r, "head_dim": rope.head_dim, "half": max(2, rope.d_r // 2)}[port.width]
        d -= d % 2
        work = np.float64 if port.float64 else np.float32
        exact, attention = _frequencies(port, rope, d)
        inv = _in(exact, port.inv_freq_dtype).astype(work) if not port.float64 else exact
        p = positions.astype(np.int64) + port.offset
        if port.position_rounding == "floor_half":
            p = p // 2 * 2
        pos = _in(p, port.positions_dtype).astype(work) if not port.float64 else p.astype(work)
        phase: Array
        if port.phase == "accumulate":
            top = int(np.max(p)) + 1
            steps = np.broadcast_to(inv.astype(np.float32), (top, inv.size))
            table = np.cumsum(steps, axis=0, dtype=np.float32) - inv.astype(np.float32)
            phase = table[np.clip(p, 0, top - 1)]
        else:
            phase = pos[:, None] * inv[None, :]
        phase = _in(phase, port.phase_dtype).astype(work) if not port.float64 else phase
        cos = np.cos(phase) * work(attention)
        sin = np.sin(phase) * work(attention) * port.sin_sign
        if not port.float64:
            cos, sin = _in(cos, port.cache_dtype), _in(sin, port.cache_dtype)
        pairing = rope.pairing
        if port.pairing == "other":
            pairing = "interleaved" if rope.pairing == "halves" else "halves"
        return _rotate(x.astype(work), cos, sin, d, pairing)

    backend.pespec_capabilities = {"max_position": 65504}  # type: ignore[attr-defined]
    return backend


def _rotate(x: Array, cos: Array, sin: Array, d: int, pairing: str) -> Array:
    """(a cos − b sin, a sin + b cos) per pair over the first ``d`` columns."""
    half = d // 2
    y: Array = x.copy()
    if pairing == "halves":
        a, b = x[:, :half], x[:, half:d]
        y[:, :half], y[:, half:d] = a * cos - b * sin, a * sin + b * cos
    else:
        a, b = x[:, 0:d:2], x[:, 1:d:2]
        y[:, 0:d:2], y[:, 1:d:2] = a * cos - b * sin, a * sin + b * cos
    return y


def _config(rng: np.random.Generator) -> RopeConfig:
    """A configuration drawn for one seed: schedule, head size, θ, width, pairing."""
    head_dim = int(rng.choice([32, 64, 128]))
    theta = float(rng.choice([10000.0, 500000.0, 1000000.0]))
    pairing = str(rng.choice(["halves", "interleaved"]))
    schedule = str(rng.choice(["default", "linear", "llama3"]))
    rotary = None if rng.random() < 0.6 else head_dim // 2
    extra: dict[str, Any] = {}
    if schedule == "linear":
        extra = {"factor": float(rng.choice([2.0, 4.0, 8.0]))}
    if schedule == "llama3":
        extra = {
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        }
    return RopeConfig(
        head_dim=head_dim,
        rotary_dim=rotary,
        theta=theta,
        rope_type=schedule,
        pairing=pairing,
        **extra,
    )


def _kinds(config: RopeConfig) -> Iterator[tuple[str, Port, tuple[str, ...], str | None]]:
    """(kind, port, keywords, value) for every mutation that applies to ``config``."""
    d = config.d_r
    if config.theta != 10000.0:
        yield "dropped θ", Port(theta_from="default"), ("θ",), "10000"
    if d > 2:
        yield (
            "exponent 2j/(d−2)",
            Port(exponent="2j/(d-2)"),
            ("d = ", "head_dim = "),
            f"d = {d - 2}",
        )
    yield "exponent 2(j+1)/d", Port(exponent="2(j+1)/d"), ("2(j+1)/d", "off by one"), None
    yield "denominator d/2", Port(exponent="2j/(d/2)"), ("d = ", "head_dim = "), f"= {d // 2}"
    yield "exponent j/d", Port(exponent="j/d"), ("d = ", "head_dim = "), f"= {2 * d}"
    if config.rope_type == "linear":
        yield "linear multiplies", Port(linear="multiply"), ("factor", "linear"), None
        yield "linear ignored", Port(linear="ignore"), ("default", "factor"), None
    if config.rope_type == "llama3":
        yield "llama3 comparison flipped", Port(llama3_compare=">"), ("llama3", "pair"), None
        yield "llama3 factors swapped", Port(llama3_swap=True), ("llama3", "factor"), None
        yield "llama3 scaling ignored", Port(llama3_scaling=False), ("default",), None
    for stage in ("inv_freq", "positions", "phase", "cache"):
        for fmt in ("bfloat16", "float16"):
            fields: dict[str, Any] = {f"{stage}_dtype": fmt}
            port = Port(**fields)
            what = {
                "inv_freq": "inverse frequencies",
                "positions": "positions",
                "phase": "phase",
                "cache": "cos/sin cache",
            }[stage]
            yield f"{stage} in {fmt}", port, (what,), fmt
    yield "accumulated phase", Port(phase="accumulate"), ("phase error", "departs"), "∝"
    if config.d_r != config.head_dim:
        yield (
            "rotary fraction ignored",
            Port(width="head_dim"),
            ("rotated width",),
            str(config.head_dim),
        )
    yield "half the width", Port(width="half"), ("rotated width",), str(max(2, d // 2))
    yield "pairing", Port(pairing="other"), ("pairs formed as", "output written"), None
    yield "position offset +1", Port(offset=1), ("shifted",), "+1"
    yield "position offset −1", Port(offset=-1), ("shifted",), "-1"
    yield "sin sign", Port(sin_sign=-1), ("other way",), None
    yield "positions floored to even", Port(position_rounding="floor_half"), ("position",), None


GENERIC_ON_OTHER_SCHEDULES = (
    "dropped θ",
    "exponent 2j/(d−2)",
    "rotary fraction ignored",
    "inv_freq in bfloat16",
    "position offset +1",
)
"""The pipeline kinds also applied to the other schedules (their own slips come first)."""


def configs(seed: int) -> list[RopeConfig]:
    """The seed's configurations: one of default/linear/llama3 (drawn), then one of each
    other schedule (:data:`schedule_mutants.SCHEDULES`, each from its own stream)."""
    out = [_config(np.random.default_rng(seed))]
    for i, schedule in enumerate(schedule_mutants.SCHEDULES):
        out.append(schedule_mutants.config(schedule, np.random.default_rng([seed, i + 1])))
    return out


def _all_kinds(config: RopeConfig) -> Iterator[tuple[str, Port, tuple[str, ...], str | None]]:
    if config.rope_type not in schedule_mutants.SCHEDULES:
        yield from _kinds(config)
        return
    for kind, slip, keywords, value in schedule_mutants.kinds(config):
        yield kind, Port(slip=slip), keywords, value
    for kind, port, keywords, value in _kinds(config):
        lists = config.short_factor is not None  # a per-pair list fixes the width
        if kind in GENERIC_ON_OTHER_SCHEDULES and not (lists and kind == "rotary fraction ignored"):
            yield f"{config.rope_type}: {kind}", port, keywords, value


def mutants(seeds: range = range(8)) -> list[Mutant]:
    """Every mutant of every seed; even seeds are the guide half, odd the measured half."""
    out = []
    for seed in seeds:
        for config in configs(seed):
            for kind, port, keywords, value in _all_kinds(config):
                out.append(Mutant(seed, kind, config, port, keywords, value))
    return out


def correct_stacks(seeds: range = range(8)) -> list[Mutant]:
    """The unmutated float32 and float64 ports of each seed's configurations (no cause)."""
    out = []
    for seed in seeds:
        for config in configs(seed):
            out.append(Mutant(seed, "correct float32", config, Port(), (), None))
            out.append(Mutant(seed, "correct float64", config, Port(float64=True), (), None))
    return out
