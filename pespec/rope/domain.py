"""The position domain a rotary conformance claim covers (SPEC §8.8, R8.17–R8.19).

By default the rotary suite checks integer positions 0 … N − 1, N the configuration's context
length (:func:`context_length`), sent as int64: the positions a model built for that context
ever rotates, and all a cache of N rows (HF GPT-J's ``embed_positions``, a vLLM cos/sin
cache) can look up. Larger or fractional positions are checked only when the backend claims
them (capabilities ``max_position`` / ``fractional_positions``, or the run's arguments).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.schedules.registry import SCHEDULES
from pespec.rope.xpos import xpos_context

__all__ = ["DEFAULT_CONTEXT", "PositionDomain", "context_length", "position_domain"]

DEFAULT_CONTEXT: Final = 2**20
"""N when a configuration names no context length (a hand-made RopeConfig): 2^20 positions,
the largest context of the presets rounded up to a power of two, as far as the suite used to
check every configuration."""


def context_length(config: RopeConfig) -> tuple[int, str]:
    """N and where it comes from (SPEC R8.17), in this order: the model's context length
    (``context_length``, config.json's ``max_position_embeddings``); else the schedule's L
    (``max_position_embeddings``); else, for yarn and llama3, s·L0; for longrope, L0; else
    :data:`DEFAULT_CONTEXT`. For dynamic and longrope N is at least ℓ (``seq_len``): a
    sequence of length ℓ has positions up to ℓ − 1. The schedule's own default is its
    :attr:`~pespec.rope.schedules.base.Schedule.context`."""
    implied = SCHEDULES[config.rope_type].context(config)
    if config.context_length is not None:
        n, why = config.context_length, "the configuration's context length"
    elif config.max_position_embeddings is not None:
        n, why = config.max_position_embeddings, "the schedule's max_position_embeddings"
    elif implied is not None:
        n, why = implied
    elif config.xpos_scale_base is not None:
        n, why = xpos_context(config)
    else:
        n, why = DEFAULT_CONTEXT, "no context length in the configuration: the default 2^20"
    if config.seq_len is not None and config.seq_len > n:
        n, why = config.seq_len, "the sequence length ℓ"
    return n, why


@dataclass(frozen=True)
class PositionDomain:
    """Positions 0 … ``max_position`` (inclusive), integers only unless ``fractional``.

    ``declared`` says where a claim came from (``None``: the default domain of the
    configuration); ``default_max`` is the default domain's largest position, kept so that a
    backend failing only beyond it can be told what to declare.
    """

    max_position: int
    fractional: bool
    default_max: int
    source: str
    declared: str | None = None

    @property
    def is_default(self) -> bool:
        return self.declared is None

    def describe(self) -> str:
        """``integer positions 0..4095`` or ``positions in [0, 1048576], fractional``."""
        if self.is_default:
            return f"integer positions 0..{self.max_position}"
        kind = "fractional" if self.fractional else "integers only"
        return f"positions in [0, {self.max_position}], {kind}"

    def admits(self, positions: NDArray[Any]) -> NDArray[np.bool_]:
        """Mask of the positions inside the domain (finite, 0 ≤ p ≤ max, integer unless
        fractional)."""
        p = np.asarray(positions, dtype=np.float64)
        keep = np.isfinite(p) & (p >= 0) & (p <= self.max_position)
        if not self.fractional:
            keep &= p == np.round(p)
        mask: NDArray[np.bool_] = keep
        return mask

    def to_dict(self) -> dict[str, Any]:
        """JSON form (report schema 1.3, ``domain``)."""
        return {
            "min_position": 0,
            "max_position": self.max_position,
            "fractional": self.fractional,
            "default": self.is_default,
            "default_max_position": self.default_max,
            "source": self.source,
            "declared": self.declared,
            "description": self.describe(),
        }


def _check_max(value: Any, name: str) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(float(value))
        or not 0 <= float(value) <= 2**40
    ):
        raise ValueError(
            f"{name} must be a number in 0..2**40 (the largest position claimed); got {value!r}"
        )
    return math.floor(float(value))


def position_domain(
    config: RopeConfig,
    caps: Any,
    *,
    max_position: Any = None,
    fractional_positions: bool | None = None,
) -> PositionDomain:
    """The domain a run checks: the run's arguments, else the backend's capabilities
    (``max_position``, ``fractional_positions``), else the configuration's default."""
    n, why = context_length(config)
    default_max = n - 1
    declared: list[str] = []
    top = default_max
    if max_position is not None:
        top = _check_max(max_position, "max_position")
        declared.append(f"max_position={top} (run argument)")
    elif getattr(caps, "max_position", None) is not None:
        top = _check_max(caps.max_position, "capabilities max_position")
        declared.append(f"max_position={top} (capabilities)")
    if fractional_positions is not None and not isinstance(fractional_positions, bool):
        raise TypeError(
            f"fractional_positions must be a bool or None; got {fractional_positions!r}"
        )
    fractional = (
        bool(getattr(caps, "fractional_positions", False))
        if fractional_positions is None
        else fractional_positions
    )
    if fractional:
        declared.append(
            "fractional_positions"
            + (" (run argument)" if fractional_positions is not None else " (capabilities)")
        )
    return PositionDomain(
        top, fractional, default_max, f"N = {n}: {why}", "; ".join(declared) or None
    )
