"""The toy family's configuration: the head counts H whose slopes are checked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["DEFAULT_HEADS", "MAX_HEADS", "THOROUGH_HEADS", "parse_heads"]

DEFAULT_HEADS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
"""The head counts checked by default (profiles ci and dev)."""

THOROUGH_HEADS: tuple[int, ...] = tuple(2**k for k in range(11))
"""The head counts of the thorough profile: 1 .. 1024."""

MAX_HEADS = 2**16
"""The largest head count accepted."""


def _one(value: Any) -> int:
    """One head count: an int, a power of two in 1..MAX_HEADS."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"heads must be ints (powers of two); got {value!r}")
    if not (1 <= value <= MAX_HEADS and value & (value - 1) == 0):
        raise ValueError(f"heads must be powers of two in 1..{MAX_HEADS}; got {value!r}")
    return value


def parse_heads(value: Any) -> tuple[int, ...]:
    """The head counts of ``value``: None (the default), an int, ``"8,16"``, a sequence, or a
    dict ``{"heads": [...]}``; sorted, without repeats. Raises ValueError/TypeError naming
    ``heads``, the value and what is allowed."""
    if value is None:
        return DEFAULT_HEADS
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {"heads"})
        if unknown:
            raise ValueError(f"a toy config must only have the key 'heads'; got {unknown}")
        return parse_heads(value.get("heads"))
    if isinstance(value, str):
        items: Sequence[Any] = [part for part in value.split(",") if part.strip()]
    elif isinstance(value, int) and not isinstance(value, bool):
        items = [value]
    elif isinstance(value, Sequence):
        items = value
    else:
        raise TypeError(f"heads must be an int, 'H1,H2,...' or a list of ints; got {value!r}")
    heads = tuple(sorted({_one(item) for item in items}))
    if not heads:
        raise ValueError(f"heads must name at least one head count; got {value!r}")
    return heads
