"""SPEC Annex E.8's table: what each surveyed transformers model type's code does with the
rotary dimensions (:mod:`pespec.rope.hf_models`)."""

from __future__ import annotations

from pespec.rope.hf_models import MODEL_ROTARY, UNSUPPORTED_MODEL_TYPES

__all__ = ["model_rotary_table"]


def model_rotary_table() -> str:
    """model_type | pairing | rotated dimensions d_r | source, then the refused types."""
    rows = [
        "| model_type | pairing | rotated dimensions d_r | transformers 5.24 source |",
        "|---|---|---|---|",
    ]
    for name, entry in sorted(MODEL_ROTARY.items()):
        pairing = f"`{entry.pairing}`"
        if entry.switch:
            pairing += f" (`halves` when `{entry.switch}` is false)"
        rotated = entry.rotated
        if entry.fraction is not None:
            rotated += f"; {entry.fraction:g} when the file has no fraction"
        rows.append(f"| `{name}` | {pairing} | {rotated} | {entry.source} |")
    for name, reason in sorted(UNSUPPORTED_MODEL_TYPES.items()):
        rows.append(f"| `{name}` | refused | | {reason} |")
    return "\n".join(rows) + "\n"
