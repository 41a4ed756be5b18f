"""Read a transformers ``config.json`` into a :class:`RopeConfig` (SPEC Annex E.5).

The reading is :func:`pespec.rope.hf_fields.read_fields` (the layouts transformers has used,
the model defaults, each schedule's own keys); this module builds the validated
:class:`RopeConfig` from it and keeps the public names of the reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pespec.rope.config import RopeConfig
from pespec.rope.hf_fields import NO_ROTARY_MODEL_TYPES, ConfigArgumentError, read_fields

__all__ = ["NO_ROTARY_MODEL_TYPES", "ConfigArgumentError", "ConfigReading", "from_hf", "read_hf"]


@dataclass(frozen=True)
class ConfigReading:
    """A config.json as read: the :class:`RopeConfig` and notes on what was not in the file
    but filled in (``θ defaulted to 10000: no rope_theta in the config``)."""

    config: RopeConfig
    notes: tuple[str, ...] = ()


def from_hf(
    config: Mapping[str, Any], layer_type: str | None = None, seq_len: int | str | None = None
) -> RopeConfig:
    """The :class:`RopeConfig` of a transformers ``config.json`` (parsed into a dict).

    ``layer_type`` picks ``"full_attention"`` or ``"sliding_attention"`` where the rotary
    parameters differ per layer type (Gemma 3); ``seq_len`` is the sequence length ℓ that the
    ``dynamic`` and ``longrope`` schedules require (SPEC §8.4), or ``"per-call"`` (ℓ is each
    call's largest position + 1, SPEC Annex G.1), and must be None otherwise.
    A model type known to have no rotary embedding (:data:`NO_ROTARY_MODEL_TYPES`) is a
    ValueError. :func:`read_hf` also returns what was filled in by default.
    """
    return read_hf(config, layer_type, seq_len).config


def read_hf(
    config: Mapping[str, Any], layer_type: str | None = None, seq_len: int | str | None = None
) -> ConfigReading:
    """:func:`from_hf` with its notes: the values the file left out and that were defaulted."""
    fields, notes = read_fields(config, layer_type, seq_len)
    return ConfigReading(RopeConfig(**fields), notes)
