"""The frequency schedules of SPEC §8.3, one module each, and their registry.

Each module (``default``, ``linear``, ``dynamic``, ``yarn``, ``llama3``, ``longrope``) holds
every form of its schedule in one :class:`~pespec.rope.schedules.base.Schedule`;
:mod:`pespec.rope.schedules.registry` lists them. This package also keeps the old public
names of ``pespec.rope.schedules``: :func:`frequencies` (the certified ω'_j and A, from
:mod:`pespec.rope.oracle`, loaded on first use) and :func:`yarn_correction_dims`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pespec.rope.schedules.yarn import yarn_correction_dims

if TYPE_CHECKING:
    from pespec.rope.oracle import frequencies

__all__ = ["frequencies", "yarn_correction_dims"]


def __getattr__(name: str) -> Any:
    if name == "frequencies":
        from pespec.rope.oracle import frequencies

        return frequencies
    raise AttributeError(f"module 'pespec.rope.schedules' has no attribute {name!r}")
