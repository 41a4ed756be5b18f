"""tools/splice_table_rows.py (issue 36): a client's rows replaced, the rest kept, the order
the catalog plans, the same result whatever the order of the inputs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from paths import ROOT

_SPEC = importlib.util.spec_from_file_location("splice", ROOT / "tools" / "splice_table_rows.py")
assert _SPEC is not None and _SPEC.loader is not None
splice_module = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(splice_module)


def _row(client: str, config: str, dtype: str, verdict: str) -> dict[str, Any]:
    return {"client": client, "config": config, "dtype": dtype, "verdict": verdict}


def test_splice_replaces_a_clients_rows_and_orders_them() -> None:
    table = {
        "schema": "pespec-conformance-table/1",
        "rows": [
            _row("keras-hub:RotaryEmbedding", "Llama-2-7B", "float32", "old"),
            _row("transformers:llama", "Llama-2-7B", "float32", "kept"),
            _row("someone:else", "x", "float32", "unknown client, kept last"),
        ],
    }
    part = {
        "rows": [
            _row("keras-hub:RotaryEmbedding", "Llama-2-7B-dynamic-4-seq-len-4096", "float32", "b"),
            _row("keras-hub:RotaryEmbedding", "Llama-2-7B", "float32", "a"),
        ]
    }
    other = {"rows": [_row("mlx-lm:phi3", "Phi-3.5-mini-instruct-seq-len-4096", "float32", "c")]}
    out = splice_module.splice(table, [part, other])
    assert [r["verdict"] for r in out["rows"]] == [
        "kept",  # transformers' clients come first in the catalog
        "c",
        "a",  # keras-hub's rows in the order of its configurations
        "b",
        "unknown client, kept last",
    ]
    assert splice_module.splice(table, [other, part]) == out


def test_main_writes_in_place(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"schema": "s", "rows": []}), encoding="utf-8")
    part = tmp_path / "p.json"
    part.write_text(json.dumps({"schema": "other", "rows": []}), encoding="utf-8")
    assert splice_module.main([str(path), str(part)]) == 2  # not the table's schema
    part.write_text(json.dumps({"schema": "s", "rows": [_row("a:b", "c", "d", "e")]}), "utf-8")
    assert splice_module.main([str(path), str(part)]) == 0
    assert json.loads(path.read_text(encoding="utf-8"))["rows"] == [_row("a:b", "c", "d", "e")]
