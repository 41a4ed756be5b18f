"""The diagnosis scores on the measured halves of the generated sets (issue 39; SPEC Annex D.11).

``python -m tests.diagnosis.all_scores --json benchmarks/results/diagnosis-scores.json``
runs the scorers on their measured halves (odd seeds of 0..SEEDS − 1): rotary
:mod:`.score`, sinusoidal :mod:`.score_sinusoidal` from the callable and from saved
tables, multi-axis rotary and sinusoidal :mod:`.score_multiaxis`. It writes, per family
and mutation kind, the mutants, those that change the output and those named (the
sentences are in each scorer's ``--show``). Deterministic: the same seeds give the same
file, which ``tools/docgen/diagnosis_scores.py`` renders into SPEC Annex D.11 and which a
slow test compares with a fresh run.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tests.diagnosis import score, score_multiaxis, score_sinusoidal

SEEDS = {
    "rotary": 12,
    "sinusoidal": 12,
    "sinusoidal-from-file": 12,
    "multiaxis-rope": 12,
    "multiaxis-sinusoidal": 12,
}


def _kinds(result: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {
        kind: {"mutants": r["mutants"], "changed": r["changed"], "named": r["named"]}
        for kind, r in result["kinds"].items()
    }


def _summary(result: dict[str, Any], seeds: int) -> dict[str, Any]:
    return {
        "seeds": seeds,
        "named": result["named"],
        "changed": result["changed"],
        "bad_ratio_sentences": result["bad_ratio_sentences"],
        "contradictions": result.get("contradictions", 0),
        "correct_stacks_with_a_cause": result["correct_stacks_with_a_cause"],
        "kinds": _kinds(result),
    }


def all_scores() -> dict[str, Any]:
    """Every family's measured-half score."""
    return {
        "half": "measured",
        "families": {
            "rotary": _summary(score.score("measured", range(SEEDS["rotary"])), SEEDS["rotary"]),
            "sinusoidal": _summary(
                score_sinusoidal.score("measured", range(SEEDS["sinusoidal"])),
                SEEDS["sinusoidal"],
            ),
            "sinusoidal-from-file": _summary(
                score_sinusoidal.score(
                    "measured", range(SEEDS["sinusoidal-from-file"]), from_file=True
                ),
                SEEDS["sinusoidal-from-file"],
            ),
            "multiaxis-rope": _summary(
                score_multiaxis.score("measured", range(SEEDS["multiaxis-rope"])),
                SEEDS["multiaxis-rope"],
            ),
            "multiaxis-sinusoidal": _summary(
                score_multiaxis.score(
                    "measured", range(SEEDS["multiaxis-sinusoidal"]), sinusoidal=True
                ),
                SEEDS["multiaxis-sinusoidal"],
            ),
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Write the scores as JSON (atomically)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", required=True)
    args = parser.parse_args(argv)
    from pespec._atomic import write_atomic

    text = json.dumps(all_scores(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    write_atomic(args.json, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
