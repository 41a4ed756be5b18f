"""The rotary configuration (SPEC §8.2): an immutable, validated value.

A :class:`RopeConfig` holds exactly the numbers that define the rotary position embedding of
one attention layer: the head and rotary dimensions, the pairing, the base θ and the fields of
one frequency schedule (SPEC §8.3). Every domain rule of SPEC §8.5 is checked when the value
is built; a violation raises ``ValueError`` (``TypeError`` for a wrong type) naming the field,
the value received and what is allowed. Fields that the schedule does not use must be left
``None``, so that two equal configurations have equal dictionaries.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["PAIRINGS", "ROPE_TYPES", "RopeConfig"]

ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "longrope")
"""The frequency schedules of SPEC §8.3, named as transformers names them."""

PAIRINGS = ("halves", "interleaved", "interleaved_in_halves_out")
"""How the rotary dimensions form pairs (SPEC §8.1)."""

# Schedule fields each rope_type requires and may use (SPEC §8.3); anything else must be None.
_REQUIRED: dict[str, tuple[str, ...]] = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor", "max_position_embeddings", "seq_len"),
    "yarn": ("factor", "original_max_position_embeddings"),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor",
               "original_max_position_embeddings"),
    "longrope": ("original_max_position_embeddings", "seq_len", "short_factor", "long_factor"),
}
_OPTIONAL: dict[str, tuple[str, ...]] = {
    "default": (),
    "linear": (),
    "dynamic": (),
    "yarn": ("beta_fast", "beta_slow", "truncate", "attention_factor", "mscale",
             "mscale_all_dim", "max_position_embeddings"),
    "llama3": ("max_position_embeddings",),
    "longrope": ("factor", "attention_factor", "max_position_embeddings"),
}
_SCHEDULE_FIELDS = ("factor", "max_position_embeddings", "original_max_position_embeddings",
                    "seq_len", "beta_fast", "beta_slow", "truncate", "attention_factor",
                    "mscale", "mscale_all_dim", "low_freq_factor", "high_freq_factor",
                    "short_factor", "long_factor")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _int(name: str, value: Any, low: int) -> int:
    allowed = f"an int >= {low}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}; got {_show(value)} "
                        f"(type {type(value).__name__})")
    if int(value) < low:
        raise ValueError(f"{name} must be {allowed}; got {int(value)}")
    return int(value)


def _real(name: str, value: Any, allowed: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {allowed}; got {_show(value)} "
                        f"(type {type(value).__name__})")
    try:
        number = float(value)
    except OverflowError:  # an int beyond float64's range (a 400-digit JSON number)
        raise ValueError(f"{name} must be {allowed}; got an int of {len(str(value))} digits, "
                         "beyond float64's range") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be {allowed}; got {number!r}")
    return number


def _positive(name: str, value: Any) -> float:
    number = _real(name, value, "a finite real number > 0")
    if number <= 0:
        raise ValueError(f"{name} must be a finite real number > 0; got {number!r}")
    return number


@dataclass(frozen=True)
class RopeConfig:
    """The rotary position embedding of one attention layer (SPEC §8).

    ``head_dim`` is the size of the vector the rotation acts on; the first ``rotary_dim``
    (d_r) components are rotated in d_r/2 pairs formed by ``pairing`` and the rest pass
    through. ``theta`` is the base θ. ``rope_type`` picks the schedule of SPEC §8.3 and the
    remaining fields are its parameters (s = ``factor``, L = ``max_position_embeddings``,
    L0 = ``original_max_position_embeddings``, ℓ = ``seq_len``); unused ones stay ``None``.
    ``rotary_dim=None`` means d_r = ``head_dim``. Factor lists are stored as tuples.
    ``context_length`` is the model's context (config.json's ``max_position_embeddings``):
    not part of the rotation, it sets the positions the suite checks by default (SPEC R8.17)
    and is left out of equality, so two configurations that rotate alike are equal.
    """

    head_dim: int
    rotary_dim: int | None = None
    theta: float = 10000.0
    rope_type: str = "default"
    pairing: str = "halves"
    factor: float | None = None
    max_position_embeddings: int | None = None
    original_max_position_embeddings: int | None = None
    seq_len: int | None = None
    beta_fast: float | None = None
    beta_slow: float | None = None
    truncate: bool | None = None
    attention_factor: float | None = None
    mscale: float | None = None
    mscale_all_dim: float | None = None
    low_freq_factor: float | None = None
    high_freq_factor: float | None = None
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None
    context_length: int | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self) -> None:
        values = _validated(self)
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def d_r(self) -> int:
        """The rotary dimension d_r (even, 2 <= d_r <= head_dim)."""
        assert self.rotary_dim is not None  # resolved in __post_init__
        return self.rotary_dim

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the fields that are set (factor lists as lists)."""
        data: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                data[field.name] = list(value) if isinstance(value, tuple) else value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RopeConfig:
        """Rebuild a configuration written by :meth:`to_dict`; unknown keys are an error."""
        if not isinstance(data, Mapping):
            raise TypeError(f"data must be a mapping; got {_show(data)}")
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"data has unknown keys {unknown}; allowed: {sorted(known)}")
        if "head_dim" not in data:
            raise ValueError("data must have the key 'head_dim'")
        return cls(**dict(data))

    @classmethod
    def from_hf(cls, config: Mapping[str, Any], layer_type: str | None = None,
                seq_len: int | None = None) -> RopeConfig:
        """Read a transformers ``config.json`` (as a dict); see :func:`pespec.rope.hf.from_hf`."""
        from pespec.rope.hf import from_hf

        return from_hf(config, layer_type=layer_type, seq_len=seq_len)


def _validated(config: RopeConfig) -> dict[str, Any]:
    """Every field normalised (ints, floats, tuples, defaults resolved), or raise."""
    out: dict[str, Any] = {}
    head_dim = out["head_dim"] = _int("head_dim", config.head_dim, 2)
    rotary = head_dim if config.rotary_dim is None else _int("rotary_dim", config.rotary_dim, 2)
    if rotary % 2 or rotary > head_dim:
        raise ValueError(f"rotary_dim must be an even int with 2 <= rotary_dim <= head_dim "
                         f"= {head_dim}; got {rotary}")
    out["rotary_dim"] = rotary
    theta = out["theta"] = _real("theta", config.theta, "a finite real number > 1")
    if theta <= 1:
        raise ValueError(f"theta must be a finite real number > 1; got {theta!r}")
    if config.rope_type not in ROPE_TYPES:
        raise ValueError(f"rope_type must be one of {list(ROPE_TYPES)}; "
                         f"got {_show(config.rope_type)}")
    if config.pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {list(PAIRINGS)}; got {_show(config.pairing)}")
    kind = config.rope_type
    allowed = set(_REQUIRED[kind]) | set(_OPTIONAL[kind])
    for name in _SCHEDULE_FIELDS:
        value = getattr(config, name)
        if value is None:
            if name in _REQUIRED[kind]:
                raise ValueError(f"{name} is required for rope_type {kind!r}; got None")
        elif name not in allowed:
            raise ValueError(f"{name} is not a parameter of rope_type {kind!r} (it uses "
                             f"{sorted(allowed) or 'none'}); got {_show(value)}, expected None")
    out.update(_schedule_fields(config, rotary))
    if config.context_length is not None:
        out["context_length"] = _int("context_length", config.context_length, 1)
    return out


def _schedule_fields(config: RopeConfig, rotary: int) -> dict[str, Any]:
    """Normalise and check the schedule's fields (SPEC §8.5)."""
    out: dict[str, Any] = {}
    if config.factor is not None:
        factor = _real("factor", config.factor, "a finite real number >= 1")
        if factor < 1:
            raise ValueError(f"factor must be a finite real number >= 1; got {factor!r}")
        out["factor"] = factor
    for name in ("max_position_embeddings", "original_max_position_embeddings", "seq_len"):
        if getattr(config, name) is not None:
            out[name] = _int(name, getattr(config, name), 1)
    for name in ("attention_factor", "mscale", "mscale_all_dim", "low_freq_factor",
                 "high_freq_factor"):
        if getattr(config, name) is not None:
            out[name] = _positive(name, getattr(config, name))
    if config.rope_type == "dynamic" and rotary < 4:
        raise ValueError(f"rotary_dim must be >= 4 for rope_type 'dynamic' (the exponent "
                         f"d_r/(d_r - 2)); got {rotary}")
    if config.rope_type == "yarn":
        out.update(_yarn_fields(config))
    if config.rope_type == "llama3" and out["high_freq_factor"] <= out["low_freq_factor"]:
        raise ValueError(f"high_freq_factor must be > low_freq_factor = "
                         f"{out['low_freq_factor']!r}; got {out['high_freq_factor']!r}")
    for name in ("short_factor", "long_factor"):
        if getattr(config, name) is not None:
            out[name] = _factor_list(name, getattr(config, name), rotary // 2)
    return out


def _yarn_fields(config: RopeConfig) -> dict[str, Any]:
    """β_fast, β_slow (defaults 32 and 1, as transformers) and truncate (default True)."""
    fast = 32.0 if config.beta_fast is None else _positive("beta_fast", config.beta_fast)
    slow = 1.0 if config.beta_slow is None else _positive("beta_slow", config.beta_slow)
    if fast <= slow:
        raise ValueError(f"beta_fast must be > beta_slow = {slow!r}; got {fast!r}")
    truncate = True if config.truncate is None else config.truncate
    if not isinstance(truncate, bool):
        raise TypeError(f"truncate must be a bool; got {_show(truncate)}")
    return {"beta_fast": fast, "beta_slow": slow, "truncate": truncate}


def _factor_list(name: str, values: Any, pairs: int) -> tuple[float, ...]:
    allowed = f"a sequence of {pairs} finite real numbers > 0 (one per pair, d_r/2)"
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be {allowed}; got {_show(values)}")
    if len(values) != pairs:
        raise ValueError(f"{name} must be {allowed}; got {len(values)} entries")
    out = []
    for index, value in enumerate(values):
        number = _real(f"{name}[{index}]", value, "a finite real number > 0")
        if number <= 0:
            raise ValueError(f"{name}[{index}] must be a finite real number > 0; "
                             f"got {number!r}")
        out.append(number)
    return tuple(out)
