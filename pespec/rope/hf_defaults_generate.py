"""Write ``hf_defaults.json``: what transformers' configuration classes fill in when a
``config.json`` leaves out a field pespec reads (SPEC Annex E.5).

Run with transformers installed: ``python -m pespec.rope.hf_defaults_generate``. For every
model type pespec reads (:data:`~pespec.rope.hf_models.MODEL_ROTARY`,
:data:`~pespec.rope.hf_models.HALVES_MODEL_TYPES`), it records the configuration class, the
``__init__`` defaults of the keys pespec reads (a default of None, or one computed in
``__init__`` such as ``head_dim = hidden_size // num_attention_heads``, is left out: pespec
computes it the same way), the names the class reads those keys under (its ``attribute_map``:
DbrxConfig's ``max_seq_len``), the default θ and the default rotary block of a bare instance, and,
for a composite class, the model type of its default ``text_config``. The file names the
transformers version; ``tests/rope/test_hf_defaults.py`` checks the reader against it without
transformers and against transformers itself where it is installed.
"""

from __future__ import annotations

import inspect
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from pespec._atomic import write_atomic
from pespec.rope.hf_models import HALVES_MODEL_TYPES, MODEL_ROTARY

__all__ = ["DEFAULTS_PATH", "READ_KEYS", "generate", "model_types"]

DEFAULTS_PATH = Path(__file__).with_name("hf_defaults.json")

READ_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "original_max_position_embeddings",
    "head_dim",
    "qk_rope_head_dim",
    "global_head_dim",
    "kv_channels",
    "attention_head_dim",
    "hidden_size",
    "num_attention_heads",
    "n_embd",
    "n_head",
    "rotary_dim",
    "rotary_pct",
    "partial_rotary_factor",
    "rope_interleave",
    "rope_local_base_freq",
    "rotary_emb_base",
    "rope_theta",
)
"""The config keys :mod:`pespec.rope.hf_fields` reads outside the rotary block."""


def model_types() -> list[str]:
    """Every model type pespec reads, sorted."""
    return sorted(set(MODEL_ROTARY) | HALVES_MODEL_TYPES)


def _plain(value: Any) -> Any:
    """A JSON value (numbers, bools, strings, lists, dicts of them), else None."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        items = [_plain(v) for v in value]
        return None if any(v is None for v in items) else items
    if isinstance(value, dict):
        pairs = {str(k): _plain(v) for k, v in value.items()}
        return None if any(v is None for v in pairs.values()) else pairs
    return None


def _entry(model_type: str) -> dict[str, Any]:
    from transformers import CONFIG_MAPPING

    cls = CONFIG_MAPPING[model_type]
    params = inspect.signature(cls.__init__).parameters
    entry: dict[str, Any] = {"class": cls.__name__}
    renamed = getattr(cls, "attribute_map", {})  # e.g. DbrxConfig: max_seq_len
    aliases = {key: renamed[key] for key in READ_KEYS if key in renamed}
    if aliases:
        entry["aliases"] = aliases
    for key in READ_KEYS:
        name = aliases.get(key, key) if aliases.get(key) in params else key
        default = params[name].default if name in params else None
        if default is not inspect.Parameter.empty and _plain(default) is not None:
            entry[key] = _plain(default)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bare = cls()
    text = getattr(bare, "text_config", None)
    if text is not None and getattr(text, "model_type", None):
        entry["text_config"] = text.model_type
    block = _plain(getattr(bare, "rope_parameters", None))
    if isinstance(block, dict) and block:
        entry["rope_parameters"] = block
    return entry


def generate() -> dict[str, Any]:
    """The defaults of every model type pespec reads, with the transformers version."""
    import transformers

    types = model_types()
    entries = {t: _entry(t) for t in types}
    for entry in list(entries.values()):  # the text model types composite classes use
        text = entry.get("text_config")
        if text is not None and text not in entries:
            entries[text] = _entry(text)
    return {
        "generator": "python -m pespec.rope.hf_defaults_generate",
        "transformers_version": transformers.__version__,
        "model_types": dict(sorted(entries.items())),
    }


def main() -> int:
    """Write the file; 0."""
    text = json.dumps(generate(), indent=1, sort_keys=False) + "\n"
    write_atomic(DEFAULTS_PATH, text)
    print(f"wrote {DEFAULTS_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
