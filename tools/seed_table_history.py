"""Seed results/history/ with snapshots of the committed table's past versions (issue 40).

Walks ``git log`` of results/conformance-table.json (oldest first) and writes one snapshot per
commit (:func:`pespec.tablepage.history.snapshot_of`, named DATE-COMMIT), whose provenance
names this tool, the commit, its time and the path. Existing snapshots are rewritten with the
same bytes (the output depends on the commits only)::

    python tools/seed_table_history.py                 # every commit of the table
    python tools/seed_table_history.py --since 9ab0bfc # that commit and later ones
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from pespec.tablepage.history import snapshot_of, write_snapshot

ROOT = Path(__file__).resolve().parents[1]
TABLE = "results/conformance-table.json"


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout


def commits(path: str = TABLE) -> list[tuple[str, str]]:
    """(full hash, committer time ISO 8601) of every commit that changed ``path``, oldest first."""
    lines = _git("log", "--reverse", "--format=%H %cI", "--", path).split("\n")
    return [(line.split()[0], line.split()[1]) for line in lines if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "results" / "history"))
    parser.add_argument("--since", help="start at this commit (a prefix of its hash)")
    args = parser.parse_args(argv)
    found = commits()
    if args.since:
        starts = [i for i, (sha, _) in enumerate(found) if sha.startswith(args.since)]
        if not starts:
            print(f"--since {args.since!r} is not a commit of {TABLE}", file=sys.stderr)
            return 2
        found = found[starts[0] :]
    for sha, time in found:
        table = json.loads(_git("show", f"{sha}:{TABLE}"))
        provenance = {"tool": "tools/seed_table_history.py", "commit": sha, "time": time}
        provenance["path"] = TABLE
        path = write_snapshot(args.out, snapshot_of(table, sha[:7], provenance))
        print(f"{path.name}: {len(table['rows'])} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
