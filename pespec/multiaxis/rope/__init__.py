"""The rotary section kind of the multi-axis combinator, the family ``multiaxis-rope``: 1-D
rotary sections over k position axes (Qwen-VL M-RoPE, Qwen3-VL interleaved M-RoPE, Flux;
SPEC §9.7).

Modules: :mod:`~pespec.multiaxis.rope.config` (sections, slots and the published layouts),
:mod:`~pespec.multiaxis.rope.positions` (the position ids models build),
:mod:`~pespec.multiaxis.rope.presets`, :mod:`~pespec.multiaxis.rope.reference` (reference,
oracle and bounds from :mod:`pespec.rope`, section by section),
:mod:`~pespec.multiaxis.rope.run` and :mod:`~pespec.multiaxis.rope.stages` (the engine's run),
:mod:`~pespec.multiaxis.rope.report` (report hooks, diagnosis), :mod:`pespec.cli.mrope`.
"""

from __future__ import annotations

from pespec._exports import lazy_exports as _lazy_exports

__all__ = [
    "PRESETS",
    "MRopeSuite",
    "MultiAxisRopeConfig",
    "RotarySection",
    "check",
    "load_mrope_backend",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "PRESETS": "pespec.multiaxis.rope.presets",
        "MultiAxisRopeConfig": "pespec.multiaxis.rope.config",
        "RotarySection": "pespec.multiaxis.rope.config",
        "MRopeSuite": "pespec.multiaxis.rope.run",
        "check": "pespec.multiaxis.rope.run",
        "load_mrope_backend": "pespec.multiaxis.rope.run",
    },
)
