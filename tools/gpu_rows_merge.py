"""Join the GPU rows of several environments into one table document (tools/gpu-rows).

    python tools/gpu_rows_merge.py OUT.json PART.json [PART.json ...]

Each PART.json is ``pespec table --device cuda --all --json PART.json`` run in one GPU
environment (vLLM and SGLang pin different CUDA builds of torch, so they cannot share one).
Every part plans the same rows; each client's rows are taken from the first part in which
they ran, i.e. not all "not run" because a package is missing (``not installed: ...``), else
from the first part. The header is the first part's; rows keep the first part's order.
Written atomically.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pespec._atomic import write_atomic


def _missing(rows: list[dict[str, Any]]) -> bool:
    """Whether every row of a client says a package it needs is not installed there."""
    return all(str(r.get("why", "")).startswith("not installed") for r in rows)


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The first part with each client's rows from the first part where they ran."""
    if not parts:
        raise ValueError("merge needs at least one table document")
    chosen: dict[str, list[dict[str, Any]]] = {}
    for part in parts:
        grouped: dict[str, list[dict[str, Any]]] = {}
        for row in part["rows"]:
            grouped.setdefault(row["client"], []).append(row)
        for client, rows in grouped.items():
            if client not in chosen or (_missing(chosen[client]) and not _missing(rows)):
                chosen[client] = rows
    order = list(dict.fromkeys(r["client"] for part in parts for r in part["rows"]))
    return {**parts[0], "rows": [row for client in order for row in chosen[client]]}


def main(argv: list[str]) -> int:
    """Merge ``argv[1:]`` into ``argv[0]`` (exit 2 on a usage error)."""
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    parts = [json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[1:]]
    out = merge(parts)
    write_atomic(argv[0], json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"{argv[0]}: {len(out['rows'])} GPU rows from {len(parts)} environment(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
