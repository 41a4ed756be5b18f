"""Score the rotary diagnosis on the generated mutants (issue 39 item 1).

``python -m tests.diagnosis.score [--half guide|measured|all] [--seeds N] [--json PATH]``
diagnoses every mutant of :mod:`tests.diagnosis.mutants` whose output differs from the
correct port's, and reports per mutation kind how many got a sentence that names the cause
(one of the generator's keywords and, where the generator knows it, the measured value),
how many printed a negative or unit "× too slow/fast" ratio, and how many printed causes
that contradict each other; the correct float32/float64 stacks must get no cause.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from pespec.rope.diagnosis import diagnose
from pespec.rope.diagnosis.probes import POSITION_GROUPS, probe_inputs
from tests.diagnosis.mutants import Mutant, Port, correct_stacks, mutants

BAD_RATIO = re.compile(r"(?:[−-][0-9.e]+|(?<![0-9.])1(?:\.0*)?)× too (?:slow|fast)")
"""A '× too slow/fast' ratio that is negative or prints as 1."""

CONTRADICTIONS = (
    ("ignored", "× too"),  # a scaling ignored while pairs are off by a factor
    ("shifted by", "constant phase offset"),  # one offset named two ways
    ("no bug found", "the cause is"),
    ("returns x unchanged", "pairs formed as"),
)
"""Pairs of phrases one sentence must not hold together (two explanations of one fact)."""


@dataclass
class Outcome:
    """One mutant's diagnosis, judged."""

    mutant: Mutant
    changed: bool
    sentence: str
    named: bool
    bad_ratio: bool
    contradiction: bool


def _output(backend: Any, mutant: Mutant) -> np.ndarray:
    positions = [p for p in POSITION_GROUPS[0] if p <= 4097]
    x, p = probe_inputs(positions, mutant.config.head_dim)
    return np.asarray(backend(x, p, mutant.config), dtype=np.float64)


NUMBER = re.compile(r"[-+−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _shows(text: str, value: str | None) -> bool:
    """Whether ``text`` shows ``value``: a number written in any form (1.00000e4 is 10000),
    else the phrase itself."""
    if value is None:
        return True
    try:
        want = float(value)
    except ValueError:
        return value.lower() in text.lower()
    found = (float(n.replace("−", "-")) for n in NUMBER.findall(text))
    return any(abs(v - want) <= 1e-4 * max(abs(want), 1.0) for v in found)


def judge(mutant: Mutant) -> Outcome:
    """Diagnose ``mutant`` and judge the sentence against its true cause."""
    backend = mutant.backend()
    reference = Mutant(mutant.seed, "", mutant.config, Port(), (), None).backend()
    changed = not np.array_equal(_output(backend, mutant), _output(reference, mutant))
    text = diagnose(backend, mutant.config).sentence
    low = text.lower()
    named = any(k.lower() in low for k in mutant.keywords) and _shows(text, mutant.value)
    if not mutant.keywords:  # a correct stack: named means no cause
        named = "no bug found" in low
    bad = bool(BAD_RATIO.search(text))
    contradiction = any(a in low and b in low for a, b in CONTRADICTIONS)
    return Outcome(mutant, changed, text, named, bad, contradiction)


def score(half: str, seeds: range) -> dict[str, Any]:
    """The score by mutation kind on ``half`` ('guide', 'measured' or 'all')."""
    cases = [m for m in mutants(seeds) + correct_stacks(seeds) if half in ("all", m.half)]
    kinds: dict[str, dict[str, int]] = defaultdict(
        lambda: {"mutants": 0, "changed": 0, "named": 0, "bad_ratio": 0, "contradiction": 0}
    )
    unnamed = []
    for mutant in cases:
        out = judge(mutant)
        row = kinds[mutant.kind]
        row["mutants"] += 1
        row["bad_ratio"] += out.bad_ratio
        row["contradiction"] += out.contradiction
        if out.changed or not mutant.keywords:
            row["changed"] += 1
            row["named"] += out.named
            if not out.named:
                unnamed.append({"seed": mutant.seed, "kind": mutant.kind, "sentence": out.sentence})
    mutated = [r for k, r in kinds.items() if not k.startswith("correct")]
    changed = sum(r["changed"] for r in mutated)
    named = sum(r["named"] for r in mutated)
    return {
        "half": half,
        "seeds": [seeds.start, seeds.stop],
        "named_fraction": named / changed if changed else 1.0,
        "named": named,
        "changed": changed,
        "bad_ratio_sentences": sum(r["bad_ratio"] for r in kinds.values()),
        "contradictions": sum(r["contradiction"] for r in kinds.values()),
        "correct_stacks_with_a_cause": sum(
            r["changed"] - r["named"] for k, r in kinds.items() if k.startswith("correct")
        ),
        "kinds": dict(sorted(kinds.items())),
        "unnamed": unnamed,
    }


def main(argv: list[str] | None = None) -> int:
    """Print the score table (and write it as JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=["guide", "measured", "all"], default="measured")
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--json", default=None)
    parser.add_argument("--show", action="store_true", help="print the unnamed sentences")
    args = parser.parse_args(argv)
    result = score(args.half, range(args.seeds))
    for kind, row in result["kinds"].items():
        print(f"{kind:32s} named {row['named']:3d}/{row['changed']:3d} (of {row['mutants']})")
    print(
        f"{args.half}: named {result['named']}/{result['changed']} = "
        f"{result['named_fraction']:.3f}; bad ratios {result['bad_ratio_sentences']}; "
        f"contradictions {result['contradictions']}; correct stacks with a cause "
        f"{result['correct_stacks_with_a_cause']}"
    )
    if args.show:
        for row in result["unnamed"]:
            print(f"- seed {row['seed']} {row['kind']}: {row['sentence']}")
    if args.json:
        from pespec._atomic import write_atomic  # atomic, like every write

        write_atomic(args.json, json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
