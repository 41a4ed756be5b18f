"""tools/merge_table_rows.py: a partial table's rows replace their namesakes, the rest append."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _merge() -> Any:
    spec = importlib.util.spec_from_file_location(
        "merge_rows", ROOT / "tools" / "merge_table_rows.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.merge


def _row(client: str, verdict: str) -> dict[str, Any]:
    return {"client": client, "config": "c", "dtype": "float32", "verdict": verdict}


def test_rows_replace_their_namesakes_in_place_and_new_ones_append() -> None:
    committed = {"schema": "s", "date": "old", "rows": [_row("a", "X"), _row("b", "X")]}
    partial = {"schema": "s", "date": "new", "rows": [_row("c", "N"), _row("a", "Y")]}
    merged = _merge()(committed, partial)
    assert merged["date"] == "old"
    assert [(r["client"], r["verdict"]) for r in merged["rows"]] == [
        ("a", "Y"),
        ("b", "X"),
        ("c", "N"),
    ]
