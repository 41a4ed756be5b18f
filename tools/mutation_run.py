"""A small deterministic mutation run of pespec's numerical core (issue 42, docs/mutation.md).

What: for each module, every mutation point of its AST is listed in a fixed order (arithmetic
operator swaps, comparison flips, numeric constants ±1, a dropped term of a sum or difference,
an augmented assignment's operator swapped), a sample of them is drawn with a fixed seed, and
each mutant is written into a copy of ``pespec/`` and ``tests/`` and judged by a fast test
subset run in a forked child (third-party modules are imported once by the parent; pespec is
imported fresh from the copy by each child) under a per-mutant timeout. A mutant is killed when
pytest fails, errors or times out. Why: the score of the tests on the certificates, with a
Wilson 95% interval; a run with a mutant not judged (or none) is an error, never a number.

Usage: ``nice -n 10 python tools/mutation_run.py --json benchmarks/results/mutation.json``
(every core module; ``--modules PATH ...``, ``--sample N``, ``--seed S``, ``--update`` to keep
other modules in the file; about 2 CPU s per mutant). Survivors are classified in
tools/mutation_survivors.json (equivalent with the argument, or a known gap); ``--resummarise``
recomputes the scores from the recorded outcomes after a classification changes.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

MODULES = (
    "pespec/numerics/rounding.py",
    "pespec/numerics/turns.py",
    "pespec/sinusoidal/reference/exact.py",
    "pespec/sinusoidal/reference/oracle.py",
    "pespec/rope/_exact_schedule.py",
    "pespec/rope/oracle.py",
    "pespec/numerics/ratio.py",
)

TESTS = (
    "tests/numerics/test_rounding_certificates.py",
    "tests/sinusoidal/reference/test_oracle_certificates.py",
    "tests/rope/test_oracle_certificates.py",
    "tests/sinusoidal/reference/test_exact_domain_ends.py",
)
"""The fast subset every mutant is run against (about 2 CPU s together)."""

EXTRA_TESTS = {
    "pespec/numerics/turns.py": (
        "tests/numerics/test_worst_ratio.py",
        "tests/sinusoidal/reference/test_exact.py",
        "tests/numerics/test_turns_certificates.py",
    ),
    "pespec/sinusoidal/reference/exact.py": (
        "tests/sinusoidal/reference/test_exact.py",
        "tests/sinusoidal/reference/test_exact_budget.py",
    ),
    "pespec/sinusoidal/reference/oracle.py": ("tests/sinusoidal/reference/test_oracle.py",),
    "pespec/numerics/ratio.py": (
        "tests/numerics/test_worst_ratio.py",
        "tests/numerics/test_ratio_edges.py",
    ),
}

_SWAPS: dict[type[ast.AST], tuple[type[ast.AST], ...]] = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.Div,),
    ast.Div: (ast.Mult,),
    ast.FloorDiv: (ast.Div,),
    ast.Pow: (ast.Mult,),
    ast.Mod: (ast.FloorDiv,),
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
}


@dataclass(frozen=True)
class Mutant:
    """One mutation: the ``index``-th node of the module's walk, changed by ``kind``."""

    index: int
    kind: str  # "op:<New>", "const:+1", "const:-1", "drop:left", "drop:right"
    line: int

    @property
    def ident(self) -> str:
        return f"L{self.line}#{self.index}:{self.kind}"


def _skipped(tree: ast.Module) -> set[int]:
    """ids of nodes not to mutate: annotations, docstrings, __all__ and imports."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        parts: list[ast.AST] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts += [
                a.annotation for a in (*node.args.args, *node.args.kwonlyargs) if a.annotation
            ]
            parts += [node.returns] if node.returns else []
        if isinstance(node, ast.AnnAssign):
            parts.append(node.annotation)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            parts.append(node)
        for part in parts:
            skip.update(id(n) for n in ast.walk(part))
    return skip


def enumerate_mutants(source: str) -> list[Mutant]:
    """Every mutation point of ``source``, in the order of ``ast.walk`` (deterministic)."""
    tree = ast.parse(source)
    skip = _skipped(tree)
    found: list[Mutant] = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, (ast.BinOp, ast.AugAssign)):
            for new in _SWAPS.get(type(node.op), ()):
                found.append(Mutant(index, f"op:{new.__name__}", line))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            found += [Mutant(index, "drop:left", line), Mutant(index, "drop:right", line)]
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            for new in _SWAPS.get(type(node.ops[0]), ()):
                found.append(Mutant(index, f"op:{new.__name__}", line))
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)
        ):
            found += [Mutant(index, "const:+1", line), Mutant(index, "const:-1", line)]
    return found


class _Apply(ast.NodeTransformer):
    def __init__(self, mutant: Mutant, target: ast.AST) -> None:
        self.mutant, self.target = mutant, target

    def visit(self, node: ast.AST) -> Any:
        if node is not self.target:
            return self.generic_visit(node)
        kind = self.mutant.kind
        if kind.startswith("op:"):
            new_op = getattr(ast, kind[3:])()
            if isinstance(node, ast.Compare):
                node.ops = [new_op]
            else:
                node.op = new_op  # type: ignore[attr-defined]
            return node
        if kind == "drop:left":  # a + b → b (a − b → −b)
            assert isinstance(node, ast.BinOp)
            if isinstance(node.op, ast.Sub):
                return ast.UnaryOp(op=ast.USub(), operand=node.right)
            return node.right
        if kind == "drop:right":  # a ± b → a
            assert isinstance(node, ast.BinOp)
            return node.left
        assert isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
        node.value = node.value + (1 if kind == "const:+1" else -1)
        return node


def mutate(source: str, mutant: Mutant) -> str:
    """The source of the module with ``mutant`` applied (unparsed: comments are dropped)."""
    tree = ast.parse(source)
    target = list(ast.walk(tree))[mutant.index]
    new = _Apply(mutant, target).visit(tree)
    return ast.unparse(ast.fix_missing_locations(new))


def _preimport() -> None:
    """Third-party modules the tests import, loaded once in the parent (children inherit them)."""
    for name in ("numpy", "gmpy2", "mpmath", "pytest", "hypothesis", "numba", "scipy"):
        try:
            __import__(name)
        except ImportError:
            pass


def _judge(work: Path, tests: tuple[str, ...], timeout: float) -> str:
    """Run ``tests`` in a forked child importing pespec from ``work``: "killed", "survived",
    "killed (timeout)" or "error: ..." (pytest exit 5: nothing collected)."""
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.chdir(work)
            sys.path.insert(0, str(work))
            for name in [
                m for m in sys.modules if m == "pespec" or m.startswith(("pespec.", "tests"))
            ]:
                del sys.modules[name]
            import pytest

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            code = pytest.main(
                ["-q", "-x", "-p", "no:cacheprovider", "-o", "addopts=", "-m", "not slow",
                 "--timeout", str(int(timeout)), *tests]
            )  # fmt: skip
            os._exit(int(code))
        except BaseException:
            os._exit(3)
    deadline = time.monotonic() + timeout + 5
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "killed (timeout)"
        time.sleep(0.05)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return "survived"
    if code == 5:
        return "error: no tests collected"
    return "killed"


def wilson(killed: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a proportion killed/n (95% for the default z)."""
    p = killed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _load_equivalents(path: Path) -> dict[str, dict[str, str]]:
    """{module: {mutant id: argument}} of the survivors judged equivalent in ``path``
    (tools/mutation_survivors.json: {module: {id: {"status": "equivalent" | "gap", "note"}}})."""
    if not path.exists():
        return {}
    data: dict[str, dict[str, dict[str, str]]] = json.loads(path.read_text(encoding="utf-8"))
    return {
        module: {k: v["note"] for k, v in entries.items() if v["status"] == "equivalent"}
        for module, entries in data.items()
    }


def resummarise(path: Path, equivalents: dict[str, dict[str, str]]) -> None:
    """Recompute every module's summary in the results file from its recorded outcomes and the
    current survivor classification (no mutant is rerun)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    for module, result in document["modules"].items():
        summary = summarise(module, result["outcomes"], equivalents.get(module, {}))
        document["modules"][module] = {
            "points": result["points"],
            **summary,
            "outcomes": result["outcomes"],
        }
    tmp_path = path.with_suffix(".json.tmp")
    tmp_path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp_path, path)


def run_module(
    work: Path, module: str, sample: int, seed: int, timeout: float, log: Any
) -> dict[str, Any]:
    """Judge a seeded sample of the module's mutants; raises if any is left unjudged."""
    original = (work / module).read_text(encoding="utf-8")
    mutants = enumerate_mutants(original)
    chosen = sorted(
        random.Random(f"{seed}:{module}").sample(mutants, min(sample, len(mutants))),
        key=lambda m: (m.index, m.kind),
    )
    baseline_text = ast.unparse(ast.parse(original))
    tests = TESTS + EXTRA_TESTS.get(module, ())
    outcomes: dict[str, str] = {}
    try:
        (work / module).write_text(baseline_text, encoding="utf-8")
        status = _judge(work, tests, 900.0)  # the first run compiles numba's kernels
        if status != "survived":
            raise RuntimeError(f"{module}: the tests fail on the unparsed, unmutated module")
        for number, mutant in enumerate(chosen, 1):
            text = mutate(original, mutant)
            if text == baseline_text:
                outcomes[mutant.ident] = "identical"
                continue
            (work / module).write_text(text, encoding="utf-8")
            outcomes[mutant.ident] = _judge(work, tests, timeout)
            print(f"{module} {number}/{len(chosen)} {mutant.ident}: {outcomes[mutant.ident]}",
                  file=log, flush=True)  # fmt: skip
    finally:
        (work / module).write_text(original, encoding="utf-8")
    errors = [k for k, v in outcomes.items() if v.startswith("error")]
    if len(outcomes) != len(chosen) or errors or not chosen:
        raise RuntimeError(f"{module}: partial run ({len(outcomes)}/{len(chosen)}; {errors})")
    return {"points": len(mutants), "outcomes": outcomes}


def summarise(module: str, outcomes: dict[str, str], equivalent: dict[str, str]) -> dict[str, Any]:
    """run, killed, equivalent, score (killed / non-equivalent), Wilson 95% interval, survivors."""
    judged = {k: v for k, v in outcomes.items() if v != "identical"}
    killed = sum(v.startswith("killed") for v in judged.values())
    survivors = sorted(k for k, v in judged.items() if v == "survived")
    equivalents = [k for k in survivors if k in equivalent]
    denominator = len(judged) - len(equivalents)
    if denominator <= 0:
        raise RuntimeError(f"{module}: no non-equivalent mutant was judged: no score")
    low, high = wilson(killed, denominator)
    return {
        "run": len(judged),
        "killed": killed,
        "equivalent": len(equivalents),
        "score": round(killed / denominator, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "survivors": [k for k in survivors if k not in equivalent],
        "equivalents": equivalents,
    }


def _copy_tree(work: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    shutil.copytree(ROOT / "pespec", work / "pespec", ignore=ignore)
    shutil.copytree(ROOT / "tests", work / "tests", ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", work / "pyproject.toml")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Deterministic mutation run of pespec's core.")
    parser.add_argument("--modules", nargs="*", default=list(MODULES))
    parser.add_argument("--sample", type=int, default=100, help="mutants per module (at most)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per mutant")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument(
        "--update", action="store_true", help="keep the other modules already in --json"
    )
    parser.add_argument(
        "--survivors", type=Path, default=ROOT / "tools" / "mutation_survivors.json"
    )
    parser.add_argument(
        "--resummarise", action="store_true",
        help="recompute the scores in --json from its outcomes and --survivors (no run)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.resummarise:
        resummarise(args.json, _load_equivalents(args.survivors))
        return 0
    unknown = sorted(set(args.modules) - set(MODULES))
    if unknown or args.sample < 1:
        print(f"unknown modules {unknown} or a sample < 1", file=sys.stderr)
        return 2
    equivalents = _load_equivalents(args.survivors)
    _preimport()
    with tempfile.TemporaryDirectory(prefix="pespec-mutation-") as tmp:
        work = Path(tmp)
        _copy_tree(work)  # one copy for every module: numba's cache (keyed by path) is reused
        for module in args.modules:
            try:
                raw = run_module(work, module, args.sample, args.seed, args.timeout, sys.stderr)
                summary = summarise(module, raw["outcomes"], equivalents.get(module, {}))
            except RuntimeError as exc:
                print(f"error: {exc}; no score printed", file=sys.stderr)
                return 1
            print(f"{module}: {summary['killed']}/{summary['run'] - summary['equivalent']} "
                  f"killed = {summary['score']:.1%} (95% CI {summary['ci95'][0]:.1%}–"
                  f"{summary['ci95'][1]:.1%}), {summary['equivalent']} equivalent, "
                  f"{len(summary['survivors'])} survivors", flush=True)  # fmt: skip
            if args.json is not None:  # each module as it completes: a cut run keeps those
                result = {"points": raw["points"], **summary, "outcomes": raw["outcomes"]}
                if not _write(args, module, result):
                    return 1
    return 0


def _write(args: argparse.Namespace, module: str, result: dict[str, Any]) -> bool:
    """Add one module's result to the JSON file (atomic; other modules kept with --update or
    from earlier modules of this run)."""
    document: dict[str, Any] = {
        "tool": "tools/mutation_run.py (AST operators: arithmetic swaps, comparison flips, "
        "constants ±1, dropped terms of a sum or difference)",
        "seed": args.seed,
        "sample_per_module": args.sample,
        "tests": list(TESTS),
        "modules": {},
    }
    path: Path = args.json
    if path.exists() and (args.update or module != args.modules[0]):
        kept = json.loads(path.read_text(encoding="utf-8"))
        if (kept.get("seed"), kept.get("sample_per_module")) != (args.seed, args.sample):
            print("error: --update needs the same --seed and --sample", file=sys.stderr)
            return False
        document["modules"] = kept["modules"]
    document["modules"][module] = result
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = path.with_suffix(".json.tmp")
    tmp_path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp_path, path)
    return True


if __name__ == "__main__":
    sys.exit(main())
