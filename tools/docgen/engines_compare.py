"""docs/engines.md's compare views (issue 35): ``pespec table --compare-engines CONFIG`` of the
models the issue names, rendered from the committed ``results/conformance-table.json``."""

from __future__ import annotations

import json
from pathlib import Path

from pespec.clients.compare_engines import render_compare

TABLE = Path(__file__).resolve().parents[2] / "results" / "conformance-table.json"
CONFIGS = (
    "Llama-3.1-8B",
    "Qwen2.5-7B-Instruct",
    "gpt-oss-20b",
    "DeepSeek-V3",
    "DeepSeek-V3-interleaved-outputs",
    "Phi-3.5-mini-instruct-seq-len-4096",
    "Phi-3.5-mini-instruct-seq-len-131072",
    "qwen2.5-vl-7b",
    "qwen3-vl-4b",
    "qwen2.5-vl-vision",
)


def engines_compare_table() -> str:
    """One compare view per configuration of :data:`CONFIGS`."""
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    return "\n".join(render_compare(table, config) for config in CONFIGS)
