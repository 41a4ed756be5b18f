"""Generated block of SPEC Annex D.11 (tools/generate_docs.py): the diagnosis's scores.

:func:`diagnosis_scores_table` renders ``benchmarks/results/diagnosis-scores.json``
(``python -m tests.diagnosis.all_scores --json …``; the generated mutant sets' measured
halves) as one table per family: per mutation kind, the mutants, those that change the
output (or fail the suite) and those whose sentence names the mutated step; then the bars
of issue 39 (negative or unit ratios, contradicting causes, correct stacks given a cause).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["RESULTS_FILE", "diagnosis_scores_table"]

ROOT = Path(__file__).resolve().parents[2]
RESULTS_FILE = ROOT / "benchmarks" / "results" / "diagnosis-scores.json"
TITLES = {
    "rotary": "Rotary (`tests/diagnosis/mutants.py`, `schedule_mutants.py`)",
    "sinusoidal": "Sinusoidal, from the callable (`tests/diagnosis/sinusoidal_mutants.py`)",
    "sinusoidal-from-file": "Sinusoidal, from a saved float32 table (`--from-file`)",
    "multiaxis-rope": "Multi-axis rotary (`tests/diagnosis/multiaxis_mutants.py`)",
    "multiaxis-sinusoidal": "Multi-axis sinusoidal (`tests/diagnosis/multiaxis_sin_mutants.py`)",
}


def _family(name: str, r: dict[str, Any]) -> list[str]:
    share = r["named"] / r["changed"] if r["changed"] else 1.0
    lines = [
        f"**{TITLES.get(name, name)}**: named {r['named']} of {r['changed']} ({share:.1%}) "
        f"on the measured half (odd seeds of 0–{r['seeds'] - 1}); negative or unit ratios "
        f"{r['bad_ratio_sentences']}, contradicting causes {r['contradictions']}, correct "
        f"stacks given a cause {r['correct_stacks_with_a_cause']}.",
        "",
        "| mutation kind | mutants | change the output | named |",
        "|---|---:|---:|---:|",
    ]
    for kind, k in sorted(r["kinds"].items()):
        if kind.startswith("correct"):
            continue
        lines.append(f"| {kind} | {k['mutants']} | {k['changed']} | {k['named']} |")
    return [*lines, ""]


def diagnosis_scores_table() -> str:
    """One table per family of the committed scores."""
    data = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    lines: list[str] = []
    families = data["families"]
    for name in sorted(families, key=lambda n: (list(TITLES).index(n) if n in TITLES else 99, n)):
        lines += _family(name, families[name])
    return "\n".join(lines).rstrip() + "\n"
