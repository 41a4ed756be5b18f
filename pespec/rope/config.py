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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pespec.rope.schedules.base import SCHEDULE_FIELDS
from pespec.rope.schedules.fields import check_int, check_positive, check_real, factor_list, show
from pespec.rope.schedules.registry import (
    OUTPUT_LAYOUTS,
    PAIRINGS,
    ROPE_TYPES,
    SCHEDULES,
    SEQ_LEN_RULES,
)
from pespec.rope.xpos_fields import checked_xpos

__all__ = [
    "OUTPUT_LAYOUTS",
    "PAIRINGS",
    "ROPE_TYPES",
    "SEQ_LEN_RULES",
    "RopeConfig",
    "pair_layouts",
]


@dataclass(frozen=True)
class RopeConfig:
    """The rotary position embedding of one attention layer (SPEC §8).

    ``head_dim`` is the size of the vector the rotation acts on; the first ``rotary_dim``
    (d_r) components are rotated in d_r/2 pairs formed by ``pairing`` and the rest pass
    through. ``theta`` is the base θ. ``rope_type`` picks the schedule of SPEC §8.3 and the
    remaining fields are its parameters (s = ``factor``, L = ``max_position_embeddings``,
    L0 = ``original_max_position_embeddings``, ℓ = ``seq_len``); unused ones stay ``None``.
    ``output_layout`` ("halves" or "interleaved") says where each pair's two outputs are
    written when that differs from what ``pairing`` implies; ``None`` (the default) means as
    the pairing implies, and a declaration equal to it is stored as ``None``.
    ``seq_len_rule="per-call"`` (dynamic, longrope; ``seq_len`` None) says ℓ is each call's
    largest position + 1, as models run them (SPEC Annex G.1); ``short_mscale`` /
    ``long_mscale`` are longrope's A per regime (PhiMoE).
    ``rotary_dim=None`` means d_r = ``head_dim``. Factor lists are stored as tuples.
    ``context_length`` is the model's context (config.json's ``max_position_embeddings``):
    not part of the rotation, it sets the positions the suite checks by default (SPEC R8.17)
    and is left out of equality, so two configurations that rotate alike are equal.
    ``xpos_*``: the xPos scale of each pair (:mod:`pespec.rope.xpos_fields`), None without.
    """

    head_dim: int
    rotary_dim: int | None = None
    theta: float = 10000.0
    rope_type: str = "default"
    pairing: str = "halves"
    output_layout: str | None = None
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
    rotated_pairs: int | None = None
    omegas: tuple[float, ...] | None = None
    short_mscale: float | None = None
    long_mscale: float | None = None
    seq_len_rule: str | None = None
    xpos_scale_base: float | None = None
    xpos_gamma: float | None = None
    xpos_center: int | None = None
    xpos_role: str | None = None
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

    @property
    def input_pairing(self) -> str:
        """Where pair j is read: "halves" (j, j + d_r/2) or "interleaved" (2j, 2j + 1)."""
        return pair_layouts(self.pairing, self.output_layout)[0]

    @property
    def output_pairing(self) -> str:
        """Where pair j's two outputs are written: "halves" or "interleaved" (SPEC §8.1)."""
        return pair_layouts(self.pairing, self.output_layout)[1]

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
            raise TypeError(f"data must be a mapping; got {show(data)}")
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"data has unknown keys {unknown}; allowed: {sorted(known)}")
        if "head_dim" not in data:
            raise ValueError("data must have the key 'head_dim'")
        return cls(**dict(data))

    @classmethod
    def from_hf(
        cls,
        config: Mapping[str, Any],
        layer_type: str | None = None,
        seq_len: int | str | None = None,
    ) -> RopeConfig:
        """Read a transformers ``config.json`` (as a dict); see :func:`pespec.rope.hf.from_hf`.

        The reading itself (:mod:`pespec.rope.hf_fields`) sits below this module and returns
        the fields; :mod:`pespec.rope.hf` builds on both.
        """
        from pespec.rope.hf_fields import read_fields

        fields, _ = read_fields(config, layer_type=layer_type, seq_len=seq_len)
        return cls(**fields)


def pair_layouts(pairing: str, output_layout: str | None = None) -> tuple[str, str]:
    """(input, output) layout, each "halves" or "interleaved", of ``pairing`` with
    ``output_layout`` (None: as the pairing implies). The one place that knows it (§8.1)."""
    read = "halves" if pairing == "halves" else "interleaved"
    if output_layout is not None:
        return read, output_layout
    return read, "interleaved" if pairing == "interleaved" else "halves"


def _output_layout(config: RopeConfig) -> str | None:
    """The declared output layout, or None where it is what the pairing implies."""
    value = config.output_layout
    if value is None:
        return None
    if value not in OUTPUT_LAYOUTS:
        raise ValueError(
            f"output_layout must be None (as the pairing implies) or one of "
            f"{list(OUTPUT_LAYOUTS)}; got {show(value)}"
        )
    return None if value == pair_layouts(config.pairing)[1] else str(value)


def _validated(config: RopeConfig) -> dict[str, Any]:
    """Every field normalised (ints, floats, tuples, defaults resolved), or raise."""
    out: dict[str, Any] = {}
    head_dim = out["head_dim"] = check_int("head_dim", config.head_dim, 2)
    rotary = (
        head_dim if config.rotary_dim is None else check_int("rotary_dim", config.rotary_dim, 2)
    )
    if rotary % 2 or rotary > head_dim:
        raise ValueError(
            f"rotary_dim must be an even int with 2 <= rotary_dim <= head_dim "
            f"= {head_dim}; got {rotary}"
        )
    out["rotary_dim"] = rotary
    theta = out["theta"] = check_real("theta", config.theta, "a finite real number > 1")
    if theta <= 1:
        raise ValueError(f"theta must be a finite real number > 1; got {theta!r}")
    if config.rope_type not in ROPE_TYPES:
        raise ValueError(
            f"rope_type must be one of {list(ROPE_TYPES)}; got {show(config.rope_type)}"
        )
    if config.pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {list(PAIRINGS)}; got {show(config.pairing)}")
    out["output_layout"] = _output_layout(config)
    schedule = SCHEDULES[config.rope_type]
    per_call = _per_call(config, schedule.uses_seq_len)
    allowed = set(schedule.required) | set(schedule.optional)
    for name in SCHEDULE_FIELDS:
        value = getattr(config, name)
        if value is None:
            if name in schedule.required and not (per_call and name == "seq_len"):
                raise ValueError(f"{name} is required for rope_type {schedule.name!r}; got None")
        elif name not in allowed:
            raise ValueError(
                f"{name} is not a parameter of rope_type {schedule.name!r} (it "
                f"uses {sorted(allowed) or 'none'}); got {show(value)}, "
                "expected None"
            )
    out.update(_schedule_fields(config, rotary))
    out.update(checked_xpos(config))
    if config.context_length is not None:
        out["context_length"] = check_int("context_length", config.context_length, 1)
    return out


def _per_call(config: RopeConfig, uses_seq_len: bool) -> bool:
    """Whether ℓ is per call (``seq_len_rule="per-call"``, SPEC Annex G.1), or raise."""
    rule = config.seq_len_rule
    if rule is None:
        return False
    if rule not in SEQ_LEN_RULES:
        raise ValueError(
            f"seq_len_rule must be None or one of {list(SEQ_LEN_RULES)}; got {show(rule)}"
        )
    if not uses_seq_len:
        users = [name for name, s in SCHEDULES.items() if s.uses_seq_len]
        raise ValueError(
            f"seq_len_rule is used only by rope_types {users}; got {show(rule)} for "
            f"{config.rope_type!r}"
        )
    if config.seq_len is not None:
        raise ValueError(
            f"seq_len must be None with seq_len_rule 'per-call' (ℓ is each call's largest "
            f"position + 1); got {show(config.seq_len)}"
        )
    return True


def _schedule_fields(config: RopeConfig, rotary: int) -> dict[str, Any]:
    """Normalise and check the schedule's fields (SPEC §8.5): the common rules, then the
    schedule's own (:attr:`~pespec.rope.schedules.base.Schedule.check`)."""
    out: dict[str, Any] = {}
    if config.factor is not None:
        factor = check_real("factor", config.factor, "a finite real number >= 1")
        if factor < 1:
            raise ValueError(f"factor must be a finite real number >= 1; got {factor!r}")
        out["factor"] = factor
    for name in ("max_position_embeddings", "original_max_position_embeddings", "seq_len"):
        if getattr(config, name) is not None:
            out[name] = check_int(name, getattr(config, name), 1)
    for name in (
        "attention_factor",
        "mscale",
        "mscale_all_dim",
        "low_freq_factor",
        "high_freq_factor",
        "short_mscale",
        "long_mscale",
    ):
        if getattr(config, name) is not None:
            out[name] = check_positive(name, getattr(config, name))
    out.update(SCHEDULES[config.rope_type].check(config, rotary, out))
    for name in ("short_factor", "long_factor"):
        if getattr(config, name) is not None:
            out[name] = factor_list(name, getattr(config, name), rotary // 2)
    return out
