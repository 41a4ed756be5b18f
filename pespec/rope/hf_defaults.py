"""The values transformers fills in for a ``config.json`` that leaves a field out (SPEC
Annex E.5), read from ``hf_defaults.json`` (written by :mod:`pespec.rope.hf_defaults_generate`
from transformers' configuration classes; the file names the version).

:func:`model_defaults` gives one model type's defaults as a config layer: the ``__init__``
defaults of the keys pespec reads, ``rope_theta`` (the default block's θ; for a block per layer
type, the full-attention θ, and the sliding one as ``rope_local_base_freq``) and
``rope_parameters`` (the default block, used only when the file has no rotary key). A composite
class (Gemma 3, Aria) gives its default text model's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["DEFAULTS_FILE", "key_aliases", "model_defaults", "transformers_version"]

DEFAULTS_FILE = Path(__file__).with_name("hf_defaults.json")


@cache
def _table() -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(DEFAULTS_FILE.read_text(encoding="utf-8"))
    return data


def transformers_version() -> str:
    """The transformers version the defaults were read from."""
    return str(_table()["transformers_version"])


def model_defaults(model_type: str) -> tuple[str, dict[str, Any]]:
    """(configuration class name, defaults layer) of ``model_type``; ("", {}) when pespec has
    no defaults for it."""
    types: Mapping[str, Any] = _table()["model_types"]
    entry = types.get(model_type)
    if entry is None:
        return "", {}
    text = entry.get("text_config")
    if text in types and "rope_parameters" not in entry:
        entry = types[text]
    layer = {k: v for k, v in entry.items() if k not in ("class", "text_config", "aliases")}
    block = entry.get("rope_parameters")
    if isinstance(block, Mapping):
        full, sliding = block.get("full_attention"), block.get("sliding_attention")
        if isinstance(full, Mapping):
            layer.setdefault("rope_theta", full.get("rope_theta"))
            if isinstance(sliding, Mapping):
                layer.setdefault("rope_local_base_freq", sliding.get("rope_theta"))
        else:
            layer.setdefault("rope_theta", block.get("rope_theta"))
    return str(entry["class"]), layer


def key_aliases(model_type: str) -> Mapping[str, str]:
    """{key pespec reads: the name the model type's configuration class stores it under}
    (its ``attribute_map``: ``max_position_embeddings`` is DbrxConfig's ``max_seq_len``)."""
    entry = _table()["model_types"].get(model_type) or {}
    aliases: Mapping[str, str] = entry.get("aliases", {})
    return aliases
