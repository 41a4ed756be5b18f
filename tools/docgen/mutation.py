"""Generated blocks of docs/mutation.md (tools/generate_docs.py): the committed mutation run.

* :func:`mutation_scores_table`: per module, the mutants judged, killed and equivalent, the
  score and its Wilson 95% interval, from ``benchmarks/results/mutation.json``
  (``tools/mutation_run.py``).
* :func:`mutation_survivors_table`: every surviving mutant with its classification (equivalent,
  with the argument, or a known gap) from ``tools/mutation_survivors.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pespec._markdown import cell

__all__ = ["RESULTS_FILE", "SURVIVORS_FILE", "mutation_scores_table", "mutation_survivors_table"]

ROOT = Path(__file__).resolve().parents[2]
RESULTS_FILE = ROOT / "benchmarks" / "results" / "mutation.json"
SURVIVORS_FILE = ROOT / "tools" / "mutation_survivors.json"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def mutation_scores_table() -> str:
    """One row per module of the committed run."""
    results = _load(RESULTS_FILE)
    lines = [
        f"Seed {results['seed']}, at most {results['sample_per_module']} mutants per module.",
        "",
        "| module | mutation points | judged | killed | equivalent | score | 95% interval "
        "| with tests added after the run | 95% interval |",
        "|---|---:|---:|---:|---:|---:|---|---:|---|",
    ]
    notes = _load(SURVIVORS_FILE) if SURVIVORS_FILE.exists() else {}
    for module, r in sorted(results["modules"].items()):
        low, high = r["ci95"]
        later = sum(
            notes.get(module, {}).get(k, {}).get("status") == "killed-after-run"
            for k in r["survivors"]
        )
        n = r["run"] - r["equivalent"]
        after_low, after_high = _wilson(r["killed"] + later, n)
        lines.append(
            f"| `{module}` | {r['points']} | {r['run']} | {r['killed']} | {r['equivalent']} | "
            f"{r['score']:.1%} | {low:.1%}–{high:.1%} | {(r['killed'] + later) / n:.1%} | "
            f"{after_low:.1%}–{after_high:.1%} |"
        )
    return "\n".join(lines) + "\n"


def _wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson 95% interval of k successes in n (as tools/mutation_run.py's)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mutation_survivors_table() -> str:
    """Every survivor of the committed run and what it is."""
    results = _load(RESULTS_FILE)
    notes = _load(SURVIVORS_FILE) if SURVIVORS_FILE.exists() else {}
    lines = ["| module | mutant | status | argument |", "|---|---|---|---|"]
    for module, r in sorted(results["modules"].items()):
        for ident in sorted(r["survivors"] + r["equivalents"]):
            entry = notes.get(module, {}).get(ident, {"status": "unclassified", "note": ""})
            note = cell(entry["note"])
            lines.append(f"| `{module}` | `{ident}` | {entry['status']} | {note} |")
    if len(lines) == 2:
        lines.append("| (none) | | | |")
    return "\n".join(lines) + "\n"
