"""The conformance table as a page people browse (``pespec table --html DIR``).

:func:`write_page` writes ``DIR/index.html``: one self-contained file (no network, works from
``file://`` and any static host) built from a table JSON document and, optionally, the dated
snapshots of :mod:`pespec.tablepage.history`. Nothing here imports a client or a library.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["load_table", "write_page"]


def load_table(path: str | Path, option: str = "--from") -> dict[str, Any]:
    """The table JSON document at ``path``; ValueError naming ``option`` when it is not one."""
    from pespec.clients.table import TABLE_SCHEMA

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{option} {str(path)!r} is not a readable table: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != TABLE_SCHEMA:
        raise ValueError(f"{option} {str(path)!r} is not a {TABLE_SCHEMA} document")
    return data


def write_page(
    table: Mapping[str, Any], folder: str | Path, snapshots: Sequence[Mapping[str, Any]] = ()
) -> Path:
    """Write the page of ``table`` (with its history ``snapshots``, oldest first) as
    ``folder/index.html`` (atomically) and return that path."""
    from pespec._atomic import write_atomic
    from pespec.tablepage.model import cells_of
    from pespec.tablepage.render import render_page

    path = Path(folder) / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, render_page(table, cells_of(table, snapshots), snapshots))
    return path
