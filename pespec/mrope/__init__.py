"""The multi-axis rotary family ``multiaxis-rope``: 1-D rotary sections over k position
axes (Qwen-VL M-RoPE, Qwen3-VL interleaved M-RoPE, Flux; SPEC §9.7).

Modules: :mod:`~pespec.mrope.config` (sections, slots and the published layouts),
:mod:`~pespec.mrope.positions` (the position ids models build), :mod:`~pespec.mrope.presets`,
:mod:`~pespec.mrope.reference` (reference, oracle and bounds from :mod:`pespec.rope`,
section by section), :mod:`~pespec.mrope.run` and :mod:`~pespec.mrope.stages` (the engine's
run), :mod:`~pespec.mrope.report` (report hooks, diagnosis), :mod:`pespec.cli.mrope`.
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
        "PRESETS": "pespec.mrope.presets",
        "MultiAxisRopeConfig": "pespec.mrope.config",
        "RotarySection": "pespec.mrope.config",
        "MRopeSuite": "pespec.mrope.run",
        "check": "pespec.mrope.run",
        "load_mrope_backend": "pespec.mrope.run",
    },
)
