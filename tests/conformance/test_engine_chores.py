"""The engine owns the chores that do not depend on what is encoded (issue 38, design note
rule 1): stage selection (:func:`pespec.conformance.engine.select_stages`) and timeout
validation (:func:`pespec.conformance.contract.check_timeout`, in every guard).

* every registered family, and the third-party toy family, refuses the same bad timeouts
  (``-1.0`` was accepted by both multi-axis runs before) and unknown stages, with one
  wording;
* a walk over every family's modules fails if one writes its own copy of a chore the engine
  owns (a second timeout check, a second stage selection, a second contract stage planning
  its own ``contract:*`` checks);
* the contract stage has one set of ids for every family: the engine's
  (:data:`pespec.conformance.stage.CONTRACT_ITEMS`), planned in that order.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from pespec.families import FAMILIES

THIRDPARTY = Path(__file__).resolve().parents[1] / "thirdparty"


def _toy() -> Any:
    if str(THIRDPARTY) not in sys.path:
        sys.path.insert(0, str(THIRDPARTY))
    return importlib.import_module("toyfamily.family").FAMILY


def _cases() -> dict[str, tuple[Any, Any, dict[str, Any]]]:
    """family name -> (Family, a backend, the options a run needs)."""
    from pespec.multiaxis.rope.presets import PRESETS as MROPE
    from tests.fourier import ports as fourier_ports
    from tests.multiaxis.rope import ports as mrope_ports
    from tests.multiaxis.sinusoidal import ports as multiaxis_ports

    qwen = MROPE["qwen3-vl-4b"]
    small = {"config": qwen.config.to_dict(), "ids": qwen.ids, "grid": [1, 2, 2]}
    small.update({"text_before": 1, "text_after": 1})
    toy_examples = importlib.import_module("toyfamily.examples") if _toy() else None
    return {
        "sinusoidal": (FAMILIES["sinusoidal"], "numpy", {}),
        "rope": (FAMILIES["rope"], "numpy", {"config": "Llama-2-7B"}),
        "multiaxis": (FAMILIES["multiaxis"], multiaxis_ports.correct, {"config": "mae-vit-b-16"}),
        "multiaxis-rope": (
            FAMILIES["multiaxis-rope"],
            mrope_ports.numpy_mrope(5e6, (24, 20, 20), True),
            {"config": small},
        ),
        "fourier": (FAMILIES["fourier"], fourier_ports.nerf_code, {"config": "nerf"}),
        "toy": (_toy(), toy_examples.correct if toy_examples else None, {}),
    }


FAMILY_NAMES = ("sinusoidal", "rope", "multiaxis", "multiaxis-rope", "fourier", "toy")


def test_every_built_in_family_is_covered() -> None:
    assert set(FAMILIES) <= set(FAMILY_NAMES)


@pytest.mark.parametrize("family", FAMILY_NAMES)
@pytest.mark.parametrize("timeout", [-1.0, 0, 0.0, True, "5", float("nan")])
def test_every_family_refuses_a_bad_timeout(family: str, timeout: Any) -> None:
    entry, backend, options = _cases()[family]
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds; got"):
        entry.load("suite")(backend, timeout=timeout, **options)


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_every_family_takes_a_good_timeout(family: str) -> None:
    entry, backend, options = _cases()[family]
    suite = entry.load("suite")(backend, timeout=5, **options)
    assert suite.family_run.guard.timeout == 5.0


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_every_family_refuses_an_unknown_stage_in_one_wording(family: str) -> None:
    entry, backend, options = _cases()[family]
    with pytest.raises(ValueError, match=r"stages must be a subset of \[.*\]; got \['nonesuch'\]"):
        entry.load("suite")(backend, stages=["contract", "nonesuch"], **options)
    suite = entry.load("suite")(backend, stages=["contract"], **options)
    assert suite.family_run.stages == ("contract",)


OWN_CONTRACT: dict[str, str] = {}
"""Families that still plan their own contract checks (with the engine's five ids), and why;
the list only shrinks (an entry no longer needed fails). Empty since the sinusoidal and
rotary families run the engine's :class:`~pespec.conformance.stage.ProbedContract`."""

CHORE_WORDS = ("timeout must be", "stages must be a subset")
"""The engine's wordings: a family module holding one has written the chore again."""


def chore_copies(source: str) -> list[str]:
    """The chores ``source`` writes again: a string of :data:`CHORE_WORDS`, a check id
    ``contract:...`` planned by hand (``PlannedCheck("contract:...", ...)``), or a comparison
    ordering ``timeout`` (``timeout > 0``; ``timeout is None`` is no check) outside the engine."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"{node.lineno}: {w!r}" for w in CHORE_WORDS if w in node.value]
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("PlannedCheck"):
            first = ast.unparse(node.args[0]) if node.args else ""
            if first.lstrip("f").strip("'\"").startswith("contract:"):
                found.append(f"{node.lineno}: a contract check planned by hand")
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) for op in node.ops
        ):
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if "timeout" in names:
                found.append(f"{node.lineno}: a comparison of timeout")
    return found


def _family_modules(entry: Any) -> list[Path]:
    """The source files of the package that holds ``entry``'s suite (its folder)."""
    package = entry.suite.partition(":")[0].rsplit(".", 1)[0]
    module = importlib.import_module(package)
    folder = Path(module.__file__ or "").parent
    return sorted(folder.rglob("*.py"))


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_no_family_writes_a_chore_of_the_engine_again(family: str) -> None:
    entry = _toy() if family == "toy" else FAMILIES[family]
    problems = [
        f"{path.name}:{problem}"
        for path in _family_modules(entry)
        for problem in chore_copies(path.read_text(encoding="utf-8"))
    ]
    own = [p for p in problems if "contract check planned by hand" in p]
    if family in OWN_CONTRACT:
        assert own, f"{family} no longer plans its own contract: drop it from OWN_CONTRACT"
        problems = [p for p in problems if p not in own]
    assert not problems, f"{family} repeats an engine chore:\n" + "\n".join(problems)


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_every_family_plans_the_five_contract_ids(family: str) -> None:
    from pespec.conformance.stage import CONTRACT_ITEMS

    entry, backend, options = _cases()[family]
    suite = entry.load("suite")(backend, stages=["contract"], **options)
    assert [p.id for p in suite.plan()] == [f"contract:{item}" for item in CONTRACT_ITEMS]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('raise ValueError(f"timeout must be > 0; got {t}")\n', 1),
        ("if not timeout > 0:\n    pass\n", 1),
        ("if timeout is None:\n    pass\n", 0),
        ('raise ValueError(f"stages must be a subset of {S}")\n', 1),
        ("self.stages = select_stages(stages, STAGES)\nguard(timeout=timeout)\n", 0),
        ('PlannedCheck("contract:call", "contract", t, s)\n', 1),
        ('PlannedCheck(f"contract:{item}", "contract", t, s)\n', 1),
        ('PlannedCheck(f"reference:{i}", "reference", t, s)\n', 0),
    ],
)
def test_the_walk_finds_a_copied_chore(source: str, expected: int) -> None:
    assert len(chore_copies(source)) == expected


OWN_COMMAND: dict[str, str] = {
    "sinusoidal": "its command draws the progress bar and the error picture beside the report",
    "rope": "its command reads client configs with their notes and the q·k-scores mode",
}
"""Families whose check command still runs the supervised or in-process check itself (not
through :func:`pespec.cli.family_check.run_backend`), and why; the list only shrinks."""


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_no_family_writes_a_second_check_command(family: str) -> None:
    entry = _toy() if family == "toy" else FAMILIES[family]
    module = importlib.import_module(entry.command.partition(":")[0])
    calls = {
        ast.unparse(node.func)
        for node in ast.walk(ast.parse(Path(module.__file__ or "").read_text("utf-8")))
        if isinstance(node, ast.Call)
    }
    own = {"run_checked", "check_writable"} & calls
    if module.__name__ == "pespec.cli.family_check":
        return
    if family in OWN_COMMAND:
        assert own, f"{family} no longer runs its own check: drop it from OWN_COMMAND"
        return
    assert not own, f"{family}'s command {module.__name__} calls {sorted(own)} itself"


@pytest.mark.parametrize(
    ("family", "argv"),
    [
        ("sinusoidal", ["numpy"]),
        ("rope", ["numpy", "--config", "Llama-2-7B"]),
        ("multiaxis", ["tests.multiaxis.sinusoidal.ports:correct", "--config", "mae-vit-b-16"]),
        ("fourier", ["tests.fourier.ports:nerf_code", "--config", "nerf"]),
    ],
)
def test_every_family_refuses_an_unwritable_report_path_before_the_run(
    family: str, argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the rotary front end checked report paths before (issue 38): now ``pespec check``
    does, for every family (exit 2, the option named, no run)."""
    from pespec.cli import main

    (tmp_path / "a-file").write_text("", "utf-8")
    bad = str(tmp_path / "a-file" / "r.json")
    code = main(["check", "--family", family, *argv, "--json", bad, "--in-process"])
    assert code == 2
    assert "--json" in capsys.readouterr().err
