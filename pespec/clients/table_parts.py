"""The conformance table in parts: ``pespec table --shard K/N`` runs one part of the rows and
``pespec table --merge PARTS... --json OUT`` assembles a table from parts run anywhere (CI jobs,
a GPU machine), the way wpt and dEQP split their conformance runs.

A row belongs to shard ``1 + (sha256("client|config|dtype") mod N)``: the partition depends on
the row alone, not on which clients a machine has, so shards of one selection are disjoint and
together hold every row. A merge refuses parts whose pespec version, SPEC version or fixtures
MANIFEST differ (their verdicts are not comparable), and two parts that both ran one row; a row
one part did not run ("not run") and another ran takes the run row (GPU rows from another
machine).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["IDENTITY", "in_shard", "merge_tables", "parse_shard"]

IDENTITY = ("schema", "pespec_version", "spec_version", "manifest_sha256")
"""The header fields every merged part must share."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` → (K, N) with 1 ≤ K ≤ N; ValueError naming the option otherwise."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        raise ValueError(f"--shard must be K/N with 1 <= K <= N (e.g. 2/3); got {text!r}")
    return k, n


def in_shard(row: Mapping[str, Any], shard: tuple[int, int]) -> bool:
    """Whether ``row`` (a planned or finished row) belongs to ``shard`` = (K, N)."""
    k, n = shard
    key = f"{row['client']}|{row['config']}|{row['dtype']}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % n == k - 1


def _check_identity(parts: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    first_name, first = parts[0]
    for name, part in parts[1:]:
        for field in IDENTITY:
            if part.get(field) != first.get(field):
                raise ValueError(
                    f"--merge: {name!r} has {field} {part.get(field)!r} but {first_name!r} has "
                    f"{first.get(field)!r}; parts of one table must come from the same pespec, "
                    "SPEC and fixtures MANIFEST (rerun the older part)"
                )
    shards = [str(p.get("shard", "")) for _, p in parts]
    sizes = {s.split("/")[1] for s in shards if "/" in s}
    if len(sizes) == 1 and all(shards):
        n = int(sizes.pop())
        missing = sorted(set(range(1, n + 1)) - {int(s.split("/")[0]) for s in shards})
        if missing:
            raise ValueError(
                f"--merge: shards {', '.join(f'{k}/{n}' for k in missing)} are missing"
            )


def merge_tables(
    parts: Sequence[tuple[str, Mapping[str, Any]]], order: Sequence[tuple[str, str, str]] = ()
) -> dict[str, Any]:
    """One table of ``parts`` ((name, table) pairs); rows in ``order`` (row keys: the
    catalog's order), then any others sorted. ValueError on parts that do not belong together."""
    if not parts:
        raise ValueError("--merge needs at least one part")
    _check_identity(parts)
    rows: dict[tuple[str, str, str], tuple[str, Mapping[str, Any]]] = {}
    for name, part in parts:
        for row in part["rows"]:
            key = (row["client"], row["config"], row["dtype"])
            if key in rows and row["verdict"] != "not run":
                if rows[key][1]["verdict"] != "not run":
                    raise ValueError(
                        f"--merge: {name!r} and {rows[key][0]!r} both ran {' '.join(key)}"
                    )
            if key not in rows or row["verdict"] != "not run":
                rows[key] = (name, row)
    rank = {key: i for i, key in enumerate(order)}
    keys = sorted(rows, key=lambda k: (rank.get(k, len(rank)), k))
    first = parts[0][1]
    return {
        **{field: first.get(field) for field in IDENTITY},
        "date": max(str(p.get("date", "")) for _, p in parts),
        "environment": first.get("environment", {}),
        "duration_s": max(float(p.get("duration_s", 0.0)) for _, p in parts),
        "parts": [
            {
                "name": name,
                "shard": p.get("shard"),
                "date": p.get("date"),
                "environment": p.get("environment"),
                "duration_s": p.get("duration_s"),
                "rows": len(p["rows"]),
            }
            for name, p in parts
        ],
        "rows": [dict(rows[k][1]) for k in keys],
    }
