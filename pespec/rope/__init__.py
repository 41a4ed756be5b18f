"""Rotary position embeddings (RoPE): the definition of SPEC §8, part 1.

``pespec.rope`` holds the configuration (:class:`RopeConfig`, validated and immutable), the
reader of transformers ``config.json`` files (:func:`from_hf`), the frequency schedules
(:func:`frequencies`, certified), presets of real models (``PRESETS``), the exact float64
reference (:func:`cos_sin`, :func:`rotate`, :func:`rotation_bound`) and the certified oracle
(:mod:`pespec.rope.oracle`), and the conformance suite (:func:`check`, :class:`RopeSuite`,
:class:`RopeLevel`, :class:`RopeCapabilities`; SPEC §8.7–§8.8; :func:`check_file` for a
saved output, R8.16).
Nothing is imported with the package; each name loads on first use (the registry entry
:mod:`pespec.rope.family` is read by ``pespec --help``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pespec._exports import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from pespec.rope.backends import RopeCapabilities, load_rope_backend
    from pespec.rope.config import PAIRINGS, ROPE_TYPES, RopeConfig
    from pespec.rope.errormodel import RopeLevel, element_bound
    from pespec.rope.fromfile import check_file
    from pespec.rope.hf import from_hf
    from pespec.rope.presets import PRESET_SOURCES, PRESETS, PresetSource
    from pespec.rope.reference import cos_sin, rotate, rotation_bound
    from pespec.rope.schedules import frequencies, yarn_correction_dims
    from pespec.rope.suite import RopeSuite, check

__all__ = [
    "PAIRINGS",
    "PRESETS",
    "PRESET_SOURCES",
    "ROPE_TYPES",
    "PresetSource",
    "RopeCapabilities",
    "RopeConfig",
    "RopeLevel",
    "RopeSuite",
    "check",
    "check_file",
    "cos_sin",
    "element_bound",
    "frequencies",
    "from_hf",
    "load_rope_backend",
    "rotate",
    "rotation_bound",
    "yarn_correction_dims",
]

_LAZY = {
    "PAIRINGS": "pespec.rope.config",
    "ROPE_TYPES": "pespec.rope.config",
    "RopeConfig": "pespec.rope.config",
    "check": "pespec.rope.suite",
    "RopeSuite": "pespec.rope.suite",
    "check_file": "pespec.rope.fromfile",
    "RopeLevel": "pespec.rope.errormodel",
    "element_bound": "pespec.rope.errormodel",
    "RopeCapabilities": "pespec.rope.backends",
    "load_rope_backend": "pespec.rope.backends",
    "cos_sin": "pespec.rope.reference",
    "rotate": "pespec.rope.reference",
    "rotation_bound": "pespec.rope.reference",
    "from_hf": "pespec.rope.hf",
    "frequencies": "pespec.rope.schedules",
    "yarn_correction_dims": "pespec.rope.schedules",
    "PRESETS": "pespec.rope.presets",
    "PRESET_SOURCES": "pespec.rope.presets",
    "PresetSource": "pespec.rope.presets",
}


__getattr__, __dir__ = _lazy_exports(__name__, _LAZY)
del TYPE_CHECKING
