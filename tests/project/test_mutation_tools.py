"""The mutation tools of issue 42 (tools/mutation_run.py, tools/mutation_sentinels.py): fast
checks that need no mutant run. The sentinels' fragments must each occur exactly once in the
current sources (a stale sentinel is an error, never a silent pass); the runner's mutant list
is deterministic and each mutant changes the code; its score interval is Wilson's; a run with
nothing judged refuses to give a score."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_every_sentinel_fragment_occurs_once() -> None:
    sentinels = _tool("mutation_sentinels")
    assert len(sentinels.SENTINELS) >= 20
    for sentinel in sentinels.SENTINELS:
        text = (ROOT / sentinel.path).read_text(encoding="utf-8")
        assert text.count(sentinel.old) == 1, sentinel.ident
        assert sentinel.old != sentinel.new
        for test in sentinel.tests:
            assert (ROOT / test).is_file(), test


def test_mutants_are_deterministic_and_change_the_code() -> None:
    runner = _tool("mutation_run")
    source = "def f(x: int) -> int:\n    '''doc'''\n    return x + 2 if x < 3 else x * 4\n"
    mutants = runner.enumerate_mutants(source)
    assert mutants == runner.enumerate_mutants(source)
    kinds = sorted(m.kind for m in mutants)
    # x + 2: Sub, drop either side; x < 3: LtE, Gt; x * 4: Div; constants 2, 3, 4: ±1 each
    assert kinds == sorted(
        ["op:Sub", "drop:left", "drop:right", "op:LtE", "op:Gt", "op:Div"]
        + ["const:+1", "const:-1"] * 3
    )
    baseline = ast.unparse(ast.parse(source))
    texts = {runner.mutate(source, m) for m in mutants}
    assert baseline not in texts and len(texts) == len(mutants)
    assert "return x - 2 if x < 3 else x * 4" in {
        line.strip() for t in texts for line in t.splitlines()
    }


def test_wilson_interval_and_refusals() -> None:
    """Wilson's 95% interval of 95/100 is [0.8882, 0.9784] (p̂ = 0.95, z = 1.96); a module
    whose mutants were all identical (nothing judged) gets no score."""
    runner = _tool("mutation_run")
    low, high = runner.wilson(95, 100)
    assert low == pytest.approx(0.8882, abs=1e-4) and high == pytest.approx(0.9784, abs=1e-4)
    with pytest.raises(RuntimeError, match="no score"):
        runner.summarise("m.py", {"L1#1:const:+1": "identical"}, {})
    summary = runner.summarise(
        "m.py", {"a": "killed", "b": "survived", "c": "survived"}, {"c": "x"}
    )
    assert (summary["run"], summary["killed"], summary["equivalent"]) == (3, 1, 1)
    assert summary["score"] == 0.5 and summary["survivors"] == ["b"]
