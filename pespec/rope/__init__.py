"""Rotary position embeddings (RoPE): the definition of SPEC §12, part 1.

``pespec.rope`` holds the configuration (:class:`RopeConfig`, validated and immutable), the
reader of transformers ``config.json`` files (:func:`from_hf`), the frequency schedules
(:func:`frequencies`, a plain float64 evaluation) and presets of real models (``PRESETS``).
Only the configuration module is imported with the package; the rest loads on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pespec.rope.config import PAIRINGS, ROPE_TYPES, RopeConfig

if TYPE_CHECKING:
    from pespec.rope.hf import from_hf
    from pespec.rope.presets import PRESET_SOURCES, PRESETS, PresetSource, preset_table
    from pespec.rope.schedules import frequencies, yarn_correction_dims

__all__ = [
    "PAIRINGS",
    "PRESETS",
    "PRESET_SOURCES",
    "ROPE_TYPES",
    "PresetSource",
    "RopeConfig",
    "frequencies",
    "from_hf",
    "preset_table",
    "yarn_correction_dims",
]

_LAZY = {
    "from_hf": "pespec.rope.hf",
    "frequencies": "pespec.rope.schedules",
    "yarn_correction_dims": "pespec.rope.schedules",
    "PRESETS": "pespec.rope.presets",
    "PRESET_SOURCES": "pespec.rope.presets",
    "PresetSource": "pespec.rope.presets",
    "preset_table": "pespec.rope.presets",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pespec.rope' has no attribute {name!r}")
