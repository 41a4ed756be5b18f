"""Score the multi-axis rotary diagnosis on the generated mutants (issue 39 item 2).

``python -m tests.diagnosis.score_multiaxis [--half guide|measured|all] [--seeds N]
[--show] [--sinusoidal]``: every mutant of :mod:`tests.diagnosis.multiaxis_mutants` (with
``--sinusoidal``, :mod:`tests.diagnosis.multiaxis_sin_mutants`) that fails the suite is
diagnosed by the suite's own run; per kind, how many sentences name the cause (a
generator keyword and its value); the correct port must pass with no cause.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import Any

from pespec.multiaxis.rope.run import check
from tests.diagnosis.multiaxis_mutants import AxisMutant, axis_mutants, correct_axes
from tests.diagnosis.multiaxis_sin_mutants import correct_sin_axes, sin_axis_mutants
from tests.diagnosis.score import BAD_RATIO, _shows


def _report(mutant: Any) -> Any:
    """The suite's report on the mutant (rotary: the preset on its grid; sinusoidal: the
    preset, the contract and reference stages as
    tests/multiaxis/sinusoidal/test_diagnosis.py runs)."""
    if isinstance(mutant, AxisMutant):
        return check(mutant.backend(), config=mutant.suite_config())
    from pespec.multiaxis.sinusoidal.run import check as sin_check

    return sin_check(mutant.backend(), config=mutant.preset, stages=["contract", "reference"])


def judge(mutant: Any) -> dict[str, Any]:
    """The mutant's verdict and diagnosis sentence judged against its true cause."""
    report = _report(mutant)
    text = report.diagnosis_sentence or ""
    low = text.lower()
    listed = low.startswith("no neighbouring configuration (")  # the list tried, no cause
    listed = listed or "not explained" in low
    if mutant.keywords:
        named = not listed and any(k.lower() in low for k in mutant.keywords)
        named = named and _shows(text, mutant.value)
    else:
        named = report.conformant and not text
    return {
        "changed": not report.conformant or not mutant.keywords,
        "named": named,
        "bad_ratio": bool(BAD_RATIO.search(text)),
        "sentence": text,
    }


def score(half: str, seeds: range, sinusoidal: bool = False) -> dict[str, Any]:
    """The score by mutation kind on ``half`` (the multi-axis sinusoidal set with
    ``sinusoidal``)."""
    if sinusoidal:
        every: list[Any] = [*sin_axis_mutants(seeds), *correct_sin_axes(seeds)]
    else:
        every = [*axis_mutants(seeds), *correct_axes(seeds)]
    cases = [m for m in every if half in ("all", m.half)]
    kinds: dict[str, dict[str, int]] = defaultdict(
        lambda: {"mutants": 0, "changed": 0, "named": 0, "bad_ratio": 0}
    )
    unnamed = []
    for mutant in cases:
        out = judge(mutant)
        row = kinds[mutant.kind]
        row["mutants"] += 1
        row["bad_ratio"] += out["bad_ratio"]
        if out["changed"]:
            row["changed"] += 1
            row["named"] += out["named"]
            if not out["named"]:
                unnamed.append(
                    {
                        "seed": mutant.seed,
                        "kind": mutant.kind,
                        "preset": mutant.preset,
                        "sentence": out["sentence"],
                    }
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
    parser.add_argument("--sinusoidal", action="store_true", help="the sinusoidal family")
    args = parser.parse_args(argv)
    result = score(args.half, range(args.seeds), args.sinusoidal)
    for kind, row in result["kinds"].items():
        print(f"{kind:28s} named {row['named']:3d}/{row['changed']:3d} (of {row['mutants']})")
    print(
        f"{args.half}: named {result['named']}/{result['changed']} = "
        f"{result['named_fraction']:.3f}; bad ratios {result['bad_ratio_sentences']}; "
        f"correct with a cause {result['correct_stacks_with_a_cause']}"
    )
    if args.show:
        for row in result["unnamed"]:
            print(f"- seed {row['seed']} {row['preset']} {row['kind']}: {row['sentence']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
