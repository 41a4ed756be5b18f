"""What one frequency schedule of SPEC §8.3 is made of: the :class:`Schedule` record.

A schedule module (``default.py``, ``yarn.py``, ...) fills one :class:`Schedule` with every
form of its schedule: the fields it requires and may use and its domain rules (SPEC §8.5),
its exact formula in certified arithmetic (SPEC Annex B.6), its float64 error constant
(SPEC §8.7), how it reads a transformers ``config.json`` block (SPEC Annex E.5), the default
context length it implies (R8.17) and the slips its diagnosis tries (SPEC Annex D.8). The
generic code (``RopeConfig``, the oracle, the error model, the reader, the diagnosis) looks a
schedule up in :mod:`pespec.rope.schedules.registry` and never names one.

The modules here sit below :mod:`pespec.rope.config`: they see a configuration through the
:class:`ScheduleConfig` protocol, and certified arithmetic through :class:`Arith`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "SCHEDULE_FIELDS",
    "THRESHOLD_SLACK",
    "Arith",
    "HfBlock",
    "Schedule",
    "ScheduleConfig",
    "Slip",
    "base_omegas",
    "l_for_l0_slip",
    "plain_omegas",
]

F64 = NDArray[np.float64]

SCHEDULE_FIELDS: Final = (
    "factor",
    "max_position_embeddings",
    "original_max_position_embeddings",
    "seq_len",
    "beta_fast",
    "beta_slow",
    "truncate",
    "attention_factor",
    "mscale",
    "mscale_all_dim",
    "low_freq_factor",
    "high_freq_factor",
    "short_factor",
    "long_factor",
    "rotated_pairs",
    "omegas",
    "short_mscale",
    "long_mscale",
)
"""Every schedule parameter of RopeConfig; those a schedule does not use stay None."""

THRESHOLD_SLACK: Final = 1e-3
"""Relative slack around the llama3 wavelength band and the YaRN ramp: a pair this close to a
branch may take either branch after rounding, so it gets the in-band term (SPEC §8.7)."""


class ScheduleConfig(Protocol):
    """The fields of a rotary configuration that a schedule reads (RopeConfig has them)."""

    @property
    def head_dim(self) -> int: ...
    @property
    def d_r(self) -> int: ...
    @property
    def theta(self) -> float: ...
    @property
    def rope_type(self) -> str: ...
    @property
    def factor(self) -> float | None: ...
    @property
    def max_position_embeddings(self) -> int | None: ...
    @property
    def original_max_position_embeddings(self) -> int | None: ...
    @property
    def seq_len(self) -> int | None: ...
    @property
    def beta_fast(self) -> float | None: ...
    @property
    def beta_slow(self) -> float | None: ...
    @property
    def truncate(self) -> bool | None: ...
    @property
    def attention_factor(self) -> float | None: ...
    @property
    def mscale(self) -> float | None: ...
    @property
    def mscale_all_dim(self) -> float | None: ...
    @property
    def low_freq_factor(self) -> float | None: ...
    @property
    def high_freq_factor(self) -> float | None: ...
    @property
    def short_factor(self) -> tuple[float, ...] | None: ...
    @property
    def long_factor(self) -> tuple[float, ...] | None: ...
    @property
    def rotated_pairs(self) -> int | None: ...
    @property
    def omegas(self) -> tuple[float, ...] | None: ...
    @property
    def short_mscale(self) -> float | None: ...
    @property
    def long_mscale(self) -> float | None: ...


class Arith(Protocol):
    """Certified arithmetic (intervals or exact rationals, :mod:`pespec.rope._exact_schedule`).

    Values are opaque (an mpmath interval or a Fraction); ``positive`` and ``floor`` decide a
    branch on the value of a thunk (or raise ``Undecided`` for a retry at higher precision).
    """

    def q(self, value: Any) -> Any: ...
    def power(self, base: Fraction, exponent: Fraction) -> Any: ...
    def log(self, value: Any) -> Any: ...
    def sqrt(self, value: Any) -> Any: ...
    def pi(self) -> Any: ...
    def positive(self, thunk: Callable[[], Any]) -> bool: ...
    def floor(self, thunk: Callable[[], Any]) -> int: ...


class HfBlock(NamedTuple):
    """What a schedule reads from a config.json: its scaling block, L, L0 and ℓ as found."""

    block: Mapping[str, Any]
    big_l: Any
    """``max_position_embeddings`` (block, then the model; else ``n_positions``)."""
    small_l: Any
    """``original_max_position_embeddings`` (block, then the model)."""
    seq_len: int | None
    head_dim: int | None = None
    """The head size the reader found (before d_r is taken from it)."""


class Slip(NamedTuple):
    """A slip of a schedule's parameters: the configuration ``changes``, the cause, the
    parameters shown in the diagnosis."""

    changes: dict[str, Any]
    text: str
    shown: dict[str, Any]


def base_omegas(config: ScheduleConfig, ar: Arith) -> list[Any]:
    """ω_j = θ^(−2j/d_r), j = 0 .. d_r/2 − 1, in the arithmetic ``ar``."""
    theta = Fraction(config.theta)
    return [ar.power(theta, Fraction(-2 * j, config.d_r)) for j in range(config.d_r // 2)]


def l_for_l0_slip(config: ScheduleConfig) -> list[Slip]:
    """L used where the schedule needs L0 (yarn, llama3), when L is given."""
    big_l = config.max_position_embeddings
    if big_l is None:
        return []
    change = {"original_max_position_embeddings": big_l}
    text = (
        f"L = {big_l} used where the schedule needs L0 = {config.original_max_position_embeddings}"
    )
    return [Slip(change, text, dict(change))]


def _no_check(config: ScheduleConfig, rotary: int, fields: dict[str, Any]) -> dict[str, Any]:
    return {}


def _one(config: ScheduleConfig) -> Fraction | None:
    return Fraction(1)


def _theta(config: ScheduleConfig) -> float:
    return config.theta


def _none(config: ScheduleConfig) -> None:
    return None


def _claims_nothing(block: Mapping[str, Any]) -> bool:
    return False


def _no_slips(config: ScheduleConfig) -> list[Slip]:
    return []


def _no_attention_slips(config: ScheduleConfig, exact: float) -> list[tuple[float, str]]:
    return []


def _no_shape_slips(config: ScheduleConfig) -> list[tuple[F64, str]]:
    return []


def plain_omegas(config: ScheduleConfig) -> F64:
    """θ^(−2j/d_r) in float64, j = 0 … d_r/2 − 1 (the unscaled frequencies a slip starts from)."""
    j = np.arange(config.d_r // 2, dtype=np.float64)
    return np.asarray(config.theta ** (-2.0 * j / config.d_r), dtype=np.float64)


@dataclass(frozen=True)
class Schedule:
    """Every form of one frequency schedule (SPEC §8.3), as data the generic code iterates.

    ``exact(config, ar)`` -> (ω'_j list, A) in certified arithmetic; ``check(config, d_r,
    fields)`` -> normalised fields to add (the schedule's own domain rules, run after the
    common ones on ``fields``); ``exact_attention`` -> A as a rational where it is one by
    construction (asked only when ``attention_factor`` is not given); ``float64_base`` and
    ``constant`` (+ ``band_term(config, e, K, u)``) -> the error constant K_j of SPEC §8.7;
    ``hf_fields`` -> the RopeConfig fields read from a config.json block; ``uses_seq_len``:
    the schedule needs ℓ; ``computed``: ω' goes through pow (else given); ``claims`` -> a
    block of another kind is this schedule's; ``context`` -> the default context length (N,
    why) it implies, or None; ``slips`` / ``attention_slips`` -> the diagnosis candidates of
    its parameters; ``shape_slips`` -> (ω'_j in float64, sentence) of slips that change the
    schedule's shape rather than a parameter (Annex D.8).
    """

    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    exact: Callable[[ScheduleConfig, Arith], tuple[list[Any], Any]]
    constant: float
    hf_fields: Callable[[HfBlock], dict[str, Any]]
    check: Callable[[ScheduleConfig, int, dict[str, Any]], dict[str, Any]] = _no_check
    exact_attention: Callable[[ScheduleConfig], Fraction | None] = _one
    float64_base: Callable[[ScheduleConfig], float] = _theta
    band_term: Callable[[ScheduleConfig, F64, F64, float], F64] | None = None
    uses_seq_len: bool = False
    context: Callable[[ScheduleConfig], tuple[int, str] | None] = _none
    slips: Callable[[ScheduleConfig], list[Slip]] = _no_slips
    attention_slips: Callable[[ScheduleConfig, float], list[tuple[float, str]]] = field(
        default=_no_attention_slips
    )
    shape_slips: Callable[[ScheduleConfig], list[tuple[F64, str]]] = _no_shape_slips
    claims: Callable[[Mapping[str, Any]], bool] = _claims_nothing
    """Whether a config.json block written under another kind is this schedule's."""
    length_threshold: Callable[[ScheduleConfig], int | None] = _none
    """The largest ℓ of the schedule's unscaled regime (L0 for longrope, L for dynamic): the
    per-call ℓ groups of SPEC Annex G.1 sit at it, just past it and at the domain's end."""
    computed: bool = True
    """ω'_j computed through θ^(−2j/d_r) (the base term of SPEC §8.7); False: given, so only
    their rounding to the phase dtype counts (K_j = 1 + ``constant``)."""
