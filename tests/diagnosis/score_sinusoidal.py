"""Score the sinusoidal diagnosis on the generated mutants (issue 39 item 2).

``python -m tests.diagnosis.score_sinusoidal [--half guide|measured|all] [--seeds N]
[--json PATH] [--show]``: every mutant of :mod:`tests.diagnosis.sinusoidal_mutants` whose
table differs from the correct port's is diagnosed (from the callable, or from its saved
table with ``--from-file``: rows 0..511 or 0..2047, d and base drawn per seed, float32);
per kind, how many sentences name the cause (a generator
keyword and its value), how many print a negative or unit ratio, how many contradict
themselves; the correct float32/float64 ports must get no cause.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import Any

import numpy as np

from pespec.sinusoidal.diagnosis import diagnose
from pespec.sinusoidal.filediagnosis import file_diagnosis
from pespec.sinusoidal.properties.base import Level
from tests.diagnosis.score import BAD_RATIO, CONTRADICTIONS, _shows
from tests.diagnosis.sinusoidal_mutants import (
    SinMutant,
    SinPort,
    correct_sinusoidal,
    sinusoidal_mutants,
)

LEVEL = Level("float32", "float32")
PROBES = ((np.arange(0, 4096, 7, dtype=np.float64), 64, 10000.0), (np.arange(0, 64.0), 16, 500.0))
"""The tables compared to tell whether a mutant changes the output (base 500 declared)."""
BASES = (10000.0, 500.0)
NO_CAUSE = ("matches", "conformant", "no bug", "no cause")


def _sentence(mutant: SinMutant) -> str:
    found = diagnose(mutant.encoder(), level=LEVEL, max_position=4096, bases=BASES)
    return str(found.sentence())


def _file_sentence(mutant: SinMutant) -> str:
    """The ``--from-file`` diagnosis line of the mutant's saved (float32) table."""
    positions, d_model, base = mutant.file_request()
    table = np.asarray(mutant.encoder()(positions, d_model, base), dtype=np.float32)
    text = file_diagnosis(table, positions, d_model, base)
    return "no diagnosis line" if text is None else text


def judge(mutant: SinMutant, from_file: bool = False) -> dict[str, Any]:
    """The mutant's sentence (from the callable, or from its saved table) judged against
    its true cause."""
    reference = SinMutant(mutant.seed, "", SinPort(formula=mutant.port.formula), (), None)
    probes = (mutant.file_request(),) if from_file else PROBES
    changed = any(
        not np.array_equal(
            np.asarray(mutant.encoder()(*probe), dtype=np.float32),
            np.asarray(reference.encoder()(*probe), dtype=np.float32),
        )
        for probe in probes
    )
    text = _file_sentence(mutant) if from_file else _sentence(mutant)
    low = text.lower()
    if mutant.keywords:
        named = any(k.lower() in low for k in mutant.keywords) and _shows(text, mutant.value)
    else:
        named = any(k in low for k in NO_CAUSE) and "not explained" not in low
        if from_file:  # a correct table is the canonical convention, no stage named
            named = "the canonical convention within" in low and ";" not in text
    return {
        "changed": changed or not mutant.keywords,
        "named": named,
        "bad_ratio": bool(BAD_RATIO.search(text)),
        "contradiction": any(a in low and b in low for a, b in CONTRADICTIONS),
        "sentence": text,
    }


def score(half: str, seeds: range, from_file: bool = False) -> dict[str, Any]:
    """The score by mutation kind on ``half`` (from the saved tables with ``from_file``)."""
    cases = [
        m for m in sinusoidal_mutants(seeds) + correct_sinusoidal(seeds) if half in ("all", m.half)
    ]
    kinds: dict[str, dict[str, int]] = defaultdict(
        lambda: {"mutants": 0, "changed": 0, "named": 0, "bad_ratio": 0, "contradiction": 0}
    )
    unnamed = []
    for mutant in cases:
        out = judge(mutant, from_file)
        row = kinds[mutant.kind]
        row["mutants"] += 1
        row["bad_ratio"] += out["bad_ratio"]
        row["contradiction"] += out["contradiction"]
        if out["changed"]:
            row["changed"] += 1
            row["named"] += out["named"]
            if not out["named"]:
                unnamed.append(
                    {"seed": mutant.seed, "kind": mutant.kind, "sentence": out["sentence"]}
                )
    mutated = [r for k, r in kinds.items() if not k.startswith("correct")]
    changed = sum(r["changed"] for r in mutated)
    named = sum(r["named"] for r in mutated)
    return {
        "half": half,
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
    """Print the score table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--half", choices=["guide", "measured", "all"], default="measured")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--from-file", action="store_true", help="diagnose saved tables")
    args = parser.parse_args(argv)
    result = score(args.half, range(args.seeds), args.from_file)
    for kind, row in result["kinds"].items():
        print(f"{kind:28s} named {row['named']:3d}/{row['changed']:3d} (of {row['mutants']})")
    print(
        f"{args.half}: named {result['named']}/{result['changed']} = "
        f"{result['named_fraction']:.3f}; bad ratios {result['bad_ratio_sentences']}; "
        f"contradictions {result['contradictions']}; correct with a cause "
        f"{result['correct_stacks_with_a_cause']}"
    )
    if args.show:
        for row in result["unnamed"]:
            print(f"- seed {row['seed']} {row['kind']}: {row['sentence']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
