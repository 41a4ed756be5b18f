"""Generated mutants of the other rotary schedules (issue 39 item 1, continued).

Plain float64 ports of yarn, dynamic, ntk, longrope and proportional written from the
published formulas (transformers' ``_compute_*_parameters``; SPEC §8.3 states the same),
each with the ways people slip on that schedule's own parameters: YaRN's β_fast/β_slow
swapped, ``truncate`` ignored, the ramp reversed, L0 replaced by L, the attention factor
(mscale) dropped or read as g(s, 1); dynamic NTK's exponent d/(d−2) dropped, its
comparison ℓ > L flipped, −(s − 1) dropped, ℓ and L swapped; LongRoPE's short/long choice
rule flipped (the other list, ``>`` read as ``>=`` at ℓ = L0), factors multiplied, the
list reversed, A dropped; NTK's exponent dropped; proportional's k off by one and s
ignored. :func:`port_frequencies` is the port (mutated by ``slip``); :func:`kinds` the
slips that apply to a configuration with the true cause's keywords and value. The
diagnosis code never reads this module.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig

Array = NDArray[Any]
SCHEDULES = ("yarn", "dynamic", "ntk", "longrope", "proportional")


def _g(s: float, m: float) -> float:
    """YaRN's g(s, m) = 0.1·m·ln s + 1 (1 for s ≤ 1)."""
    return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0


def _yarn(rope: RopeConfig, inv: Array, d: int, theta: float, slip: str) -> tuple[Array, float]:
    """YaRN: r_j ramps from 0 (j ≤ low, ω kept) to 1 (j ≥ high, ω/s); A = g ratio."""
    s = rope.factor
    l0 = rope.original_max_position_embeddings
    assert s is not None and l0 is not None
    if slip == "yarn L0 as L":
        l0 = int(s * l0)
    fast = 32.0 if rope.beta_fast is None else rope.beta_fast
    slow = 1.0 if rope.beta_slow is None else rope.beta_slow
    if slip == "yarn betas swapped":
        fast, slow = slow, fast
    truncate = True if rope.truncate is None else rope.truncate
    if slip == "yarn truncate ignored":
        truncate = not truncate

    def dim(beta: float) -> float:
        return d * math.log(l0 / (beta * 2 * math.pi)) / (2 * math.log(theta))

    low, high = dim(fast), dim(slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    if slip == "yarn ramp reversed":
        ramp = 1 - ramp
    out = inv / s * ramp + inv * (1 - ramp)
    if slip == "yarn scaling ignored":
        out = inv
    if rope.mscale and rope.mscale_all_dim:
        attention = _g(s, rope.mscale) / _g(s, rope.mscale_all_dim)
    else:
        attention = _g(s, 1.0)
    if slip == "yarn mscale read as g(s, 1)":
        attention = _g(s, 1.0)
    if slip == "yarn attention factor dropped":
        attention = 1.0
    return out, attention


def _dynamic(rope: RopeConfig, d: int, exponents: Array, theta: float, slip: str) -> Array:
    """Dynamic NTK: θ' = θ·(s·ℓ/L − (s − 1))^(d/(d − 2)) once ℓ > L."""
    s, big_l, length = rope.factor, rope.max_position_embeddings, rope.seq_len
    assert s is not None and big_l is not None and length is not None
    scaled = length > big_l if slip != "dynamic comparison flipped" else length <= big_l
    if slip == "dynamic collapsed to ℓ = s·L":
        scaled, length = True, int(s * big_l)
    if not scaled:
        return 1.0 / theta**exponents
    ratio = s * length / big_l - (s - 1)
    if slip == "dynamic −(s − 1) dropped":
        ratio = s * length / big_l
    if slip == "dynamic ℓ and L swapped":
        ratio = s * big_l / length - (s - 1)
    power = d / (d - 2) if slip != "dynamic exponent dropped" else 1.0
    with np.errstate(invalid="ignore", divide="ignore"):  # a ratio ≤ 0: NaN or inf, as
        scaled_base = np.float64(ratio) ** power  # torch's pow gives
        return np.asarray(1.0 / (theta * scaled_base) ** exponents, dtype=np.float64)


def _ntk(rope: RopeConfig, d: int, exponents: Array, theta: float, slip: str) -> Array:
    """Static NTK: θ' = θ·s^(d/(d − 2))."""
    s = rope.factor
    assert s is not None
    power = d / (d - 2) if slip != "ntk exponent dropped" else 1.0
    return np.asarray(1.0 / (theta * s**power) ** exponents, dtype=np.float64)


def _longrope(rope: RopeConfig, inv: Array, slip: str) -> tuple[Array, float]:
    """LongRoPE: ω_j/f_j with f = long_factor when ℓ > L0, else short_factor."""
    l0, length = rope.original_max_position_embeddings, rope.seq_len
    assert l0 is not None and length is not None
    assert rope.short_factor is not None and rope.long_factor is not None
    long = length > l0
    if slip == "longrope choice flipped":
        long = not long
    if slip == "longrope > read as >=":
        long = length >= l0
    factors = np.array(rope.long_factor if long else rope.short_factor, dtype=np.float64)
    if slip == "longrope list reversed":
        factors = factors[::-1]
    out = inv * factors if slip == "longrope factors multiply" else inv / factors
    s = rope.factor
    if s is None:
        assert rope.max_position_embeddings is not None
        s = rope.max_position_embeddings / l0
    attention = math.sqrt(1 + math.log(s) / math.log(l0)) if s > 1 else 1.0
    if slip == "longrope attention factor dropped":
        attention = 1.0
    return out, attention


def _proportional(rope: RopeConfig, inv: Array, slip: str) -> Array:
    """Gemma 4: ω_j/s for j < k, 0 (pass-through) for the rest."""
    k = rope.rotated_pairs
    assert k is not None
    if slip == "proportional k + 1":
        k += 1
    s = 1.0 if rope.factor is None or slip == "proportional factor ignored" else rope.factor
    out = inv / s
    out[k:] = 0.0
    return out


def port_frequencies(
    rope: RopeConfig, d: int, exponents: Array, theta: float, slip: str
) -> tuple[Array, float]:
    """(ω_j in float64, A) of the port for ``rope`` over ``d`` columns, mutated by ``slip``."""
    inv = 1.0 / theta**exponents
    kind = rope.rope_type
    if kind == "yarn":
        return _yarn(rope, inv, d, theta, slip)
    if kind == "dynamic":
        return _dynamic(rope, d, exponents, theta, slip), 1.0
    if kind == "ntk":
        return _ntk(rope, d, exponents, theta, slip), 1.0
    if kind == "longrope":
        return _longrope(rope, inv, slip)
    if kind == "proportional":
        return _proportional(rope, inv, slip), 1.0
    raise ValueError(f"rope_type must be one of {SCHEDULES}; got {kind!r}")


def config(schedule: str, rng: np.random.Generator) -> RopeConfig:
    """A configuration of ``schedule`` drawn for one seed (published shapes and values)."""
    head_dim = int(rng.choice([64, 128]))
    theta = float(rng.choice([10000.0, 500000.0, 1000000.0]))
    pairing = str(rng.choice(["halves", "interleaved"]))
    rotary = None if rng.random() < 0.7 else head_dim // 2
    d = rotary or head_dim
    extra: dict[str, Any] = {}
    if schedule == "yarn":
        factor = float(rng.choice([4.0, 8.0, 16.0, 32.0, 40.0]))
        l0 = int(rng.choice([2048, 4096, 8192]))
        extra = {
            "factor": factor,
            "original_max_position_embeddings": l0,
            "max_position_embeddings": int(factor * l0),
            "truncate": bool(rng.random() < 0.7),
        }
        if rng.random() < 0.4:  # DeepSeek-V3's pair: A = g(s, 1)/g(s, 1) = 1
            extra.update(mscale=1.0, mscale_all_dim=1.0)
    elif schedule == "dynamic":
        big_l = int(rng.choice([2048, 4096]))
        extra = {
            "factor": float(rng.choice([2.0, 4.0])),
            "max_position_embeddings": big_l,
            "seq_len": int(big_l * float(rng.choice([0.5, 1.5, 3.0]))),
        }
    elif schedule == "ntk":
        extra = {"factor": float(rng.choice([2.0, 4.0, 8.0]))}
    elif schedule == "longrope":
        l0 = 4096
        half = d // 2
        ramp = np.linspace(0.0, 1.0, half)
        extra = {
            "original_max_position_embeddings": l0,
            "max_position_embeddings": 131072,
            "seq_len": int(rng.choice([l0 // 2, l0, 2 * l0])),
            "short_factor": tuple(float(v) for v in np.round(1.0 + 0.1 * ramp**2, 4)),
            "long_factor": tuple(float(v) for v in np.round(1.0 + 40.0 * ramp**3, 4)),
        }
    elif schedule == "proportional":
        rotary = None
        extra = {"rotated_pairs": head_dim // 8, "factor": float(rng.choice([1.0, 8.0]))}
    return RopeConfig(
        head_dim=head_dim,
        rotary_dim=rotary,
        theta=theta,
        rope_type=schedule,
        pairing=pairing,
        **extra,
    )


def kinds(rope: RopeConfig) -> Iterator[tuple[str, str, tuple[str, ...], str | None]]:
    """(kind, slip, keywords, value) for each slip of ``rope``'s own schedule."""
    kind = rope.rope_type
    if kind == "yarn":
        yield "yarn betas swapped", "yarn betas swapped", ("beta", "β"), None
        yield "yarn truncate ignored", "yarn truncate ignored", ("truncate",), None
        yield "yarn ramp reversed", "yarn ramp reversed", ("ramp", "reversed"), None
        yield "yarn L0 as L", "yarn L0 as L", ("L0",), str(rope.max_position_embeddings)
        yield "yarn scaling ignored", "yarn scaling ignored", ("yarn scaling ignored",), None
        yield "yarn A dropped", "yarn attention factor dropped", ("attention factor",), None
        if rope.mscale and rope.mscale_all_dim:
            yield "yarn mscale as g(s,1)", "yarn mscale read as g(s, 1)", ("mscale",), None
    elif kind == "dynamic":
        named = ("θ", "ratio", "dynamic")
        yield "dynamic exponent dropped", "dynamic exponent dropped", named, None
        yield "dynamic comparison flipped", "dynamic comparison flipped", named, None
        yield "dynamic −(s−1) dropped", "dynamic −(s − 1) dropped", named, None
        yield "dynamic ℓ and L swapped", "dynamic ℓ and L swapped", named, None
        yield "dynamic collapsed", "dynamic collapsed to ℓ = s·L", ("ℓ",), None
    elif kind == "ntk":
        yield "ntk exponent dropped", "ntk exponent dropped", ("θ",), None
    elif kind == "longrope":
        yield "longrope choice flipped", "longrope choice flipped", ("_factor",), None
        yield "longrope > as >=", "longrope > read as >=", ("_factor",), None
        yield "longrope factors multiply", "longrope factors multiply", ("factor",), None
        yield "longrope list reversed", "longrope list reversed", ("factor", "reverse"), None
        yield "longrope A dropped", "longrope attention factor dropped", ("attention",), None
    elif kind == "proportional":
        k = int(rope.rotated_pairs or 0)
        yield "proportional k+1", "proportional k + 1", ("rotated",), str(k + 1)
        if rope.factor not in (None, 1.0):
            yield (
                "proportional s ignored",
                "proportional factor ignored",
                ("factor", "s measured"),
                "1",
            )
