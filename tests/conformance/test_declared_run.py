"""What a family declares as data instead of writing it (issue 38): the capabilities type made
from :attr:`EngineRun.declares`, the stages planned from ``contract_args`` and
:class:`~pespec.conformance.chores.PerItem`, the report hooks, ``Family(run=...)``, and the
engine's :class:`~pespec.conformance.stage.ProbedContract` (probes, one message per item,
not-evaluated items, a reproduction per failed item).

The backends are small functions written here; each expected value is stated from the
contract's rules, not read from the code under test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pytest
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.chores import EngineRun, PerItem, dtype_levels
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import GuardedBackend
from pespec.conformance.family import CHECK_COMMAND, Family
from pespec.conformance.guard import CallingConvention
from pespec.conformance.report import CheckResult
from pespec.conformance.stage import CONTRACT_ITEMS, ProbedContract


def _sizes(value: Any) -> tuple[int, ...]:
    return tuple(sorted({int(v) for v in value}))


class SquareRun(EngineRun):
    """A declared family: backend(n) -> the squares 1..n (float64)."""

    family = "square"
    entry_point_group = "square.backends"
    levels = dtype_levels(("float64",))
    declares: ClassVar = {"sizes": _sizes}
    calling_convention = CallingConvention("backend(n) -> array", (3,), "squares of 1..n")
    contract_args = (3,)
    contract_section = "sq §1"
    checks = (PerItem("reference:n-{}", "the {} squares", "sq §2", "sizes"),)
    hooks = __name__

    def __init__(self, backend: Any, **options: Any) -> None:
        super().__init__(backend, **options)
        self.sizes = self.backend.capabilities.sizes or (1, 4)  # type: ignore[attr-defined]

    def output_shape(self, *args: Any) -> tuple[int, ...]:
        return (int(args[0]),)

    def check_reference(self, planned: PlannedCheck) -> CheckResult:
        n = int(planned.payload)
        ok = np.array_equal(self.call(n), np.arange(1, n + 1, dtype=np.float64) ** 2)
        return planned.result("passed" if ok else "failed", f"n={n}")


def report_fields(run: Any) -> dict[str, Any]:
    """The hook SquareRun names: a field only this module writes."""
    fields = {"level": run.level, "output_dtype": run.output_dtype, "working_dtype": None}
    return {**fields, "judged": "squares"}


def squares(n: int) -> NDArray[np.float64]:
    return np.arange(1, n + 1, dtype=np.float64) ** 2


def test_the_capabilities_type_is_made_from_the_declared_fields() -> None:
    caps = SquareRun.capabilities_type.from_mapping({"sizes": [3, 2, 3], "level": "float64"})
    assert type(caps).__name__ == "SquareCapabilities"
    assert caps.sizes == (2, 3)  # type: ignore[attr-defined]  # read by its parser
    assert caps.to_dict()["sizes"] == [2, 3] and caps.to_dict()["level"] == "float64"
    assert SquareRun.capabilities_type().sizes is None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"level must be one of \['float64'\]; got 'float32'"):
        SquareRun.capabilities_type.from_mapping({"level": "float32"})
    assert SquareRun.capabilities_type.calling_convention.call == "backend(n) -> array"


def test_the_declared_stages_are_planned_and_judged() -> None:
    assert SquareRun.all_stages == ("contract", "reference")
    squares.pespec_capabilities = {"sizes": [2, 5]}  # type: ignore[attr-defined]
    try:
        report = SquareRun.check(squares)
    finally:
        del squares.pespec_capabilities  # type: ignore[attr-defined]
    ids = [c.id for c in report.checks]
    assert ids == [*(f"contract:{i}" for i in CONTRACT_ITEMS), "reference:n-2", "reference:n-5"]
    assert report.get("reference:n-5").title == "the 5 squares"
    assert report.get("reference:n-5").section == "sq §2"
    assert report.get("contract:shape").section == "sq §1"
    assert report.conformant and report.judged == "squares"  # the hook's field


def test_a_wrong_backend_fails_the_declared_call() -> None:
    report = SquareRun.check(lambda n: np.ones(n + 1))  # one value too many
    assert report.get("contract:shape").status == "failed"
    assert report.get("reference:n-4").message == "returned shape (5,), not (4,)"


def test_a_family_named_by_its_run() -> None:
    family = Family("square", "squares", run=f"{__name__}:SquareRun")
    assert family.suite == f"{__name__}:SquareRun.suite"
    assert family.load("check") == SquareRun.check and family.load("load_backend") == SquareRun.load
    assert family.command == family.check_file == CHECK_COMMAND
    given = Family("square", "squares", suite="m:S", run=f"{__name__}:SquareRun")
    assert given.suite == "m:S" and given.check == f"{__name__}:SquareRun.check"


class Probed(ProbedContract):
    """A probed contract over backend(a) -> a (n,) of two probes a = [1, 2] and [3]."""

    def probes(self) -> list[NDArray[np.float64]]:
        return [np.array([1.0, 2.0]), np.array([3.0])]

    def arguments(self, probe: NDArray[np.float64]) -> tuple[Any, ...]:
        return (probe,)

    def changed(self, probe: NDArray[np.float64], given: tuple[Any, ...]) -> str | None:
        return None if np.array_equal(given[0], probe) else f"{probe.tolist()} changed"

    def output_problems(self, output: NDArray[Any], probe: Any) -> list[tuple[str, str]]:
        found = [] if output.shape == probe.shape else [("shape", f"shape {output.shape}")]
        if not np.all(np.isfinite(output)):
            found.append(("finite", f"not finite for {probe.tolist()}"))
        return found

    def differ(self, probe: Any) -> str:
        return f"differ on {probe.tolist()}"

    def reproduction(self, probe: Any) -> str:
        return f"backend({probe.tolist()})"


def _probed(fn: Any, rules: Mapping[str, str] | None = None) -> dict[str, CheckResult]:
    run = type("R", (), {})()
    run.guard = GuardedBackend(Backend("b", fn), timeout=10.0)
    stage = Probed(run, rules)
    return {
        item: stage.result(PlannedCheck(f"contract:{item}", "contract", rule, "§"))
        for item, rule in stage.rules.items()
    }


def test_a_probed_contract_passes_a_correct_backend_with_its_rules() -> None:
    results = _probed(lambda a: np.array(a), {"shape": "returns (n,)"})
    assert {r.status for r in results.values()} == {"passed"}
    assert results["shape"].message == "returns (n,)"
    assert results["finite"].message == CONTRACT_ITEMS["finite"]


def test_a_probed_contract_keeps_each_problem_under_its_item_with_its_call() -> None:
    def nan_for_three(a: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.array(a)
        out[out == 3.0] = np.nan
        a += 1.0  # every call changes its argument
        return out

    results = _probed(nan_for_three)
    assert results["finite"].message == "not finite for [3.0]"
    assert results["finite"].reproduction == "backend([3.0])"  # the probe it failed on
    assert results["input-unchanged"].message == "[1.0, 2.0] changed; [3.0] changed"
    assert results["input-unchanged"].reproduction == "backend([1.0, 2.0])"
    assert results["shape"].status == results["deterministic"].status == "passed"
    assert results["shape"].reproduction is None


def test_a_probed_contract_without_output_fails_the_rest_as_not_evaluated() -> None:
    def raises(a: NDArray[np.float64]) -> NDArray[np.float64]:
        raise RuntimeError("no kernel")

    results = _probed(raises)
    assert results["shape"].status == "failed" and "no kernel" in results["shape"].message
    for item in ("dtype", "finite", "deterministic", "input-unchanged"):
        assert results[item].message == "not evaluated: the backend produced no output"
        assert results[item].reproduction == "backend([1.0, 2.0])"


def test_a_probed_contract_finds_differing_calls_and_dtypes() -> None:
    calls = iter(range(100))

    def flips(a: NDArray[np.float64]) -> NDArray[Any]:
        return np.array(a, dtype=np.float32 if next(calls) % 2 else np.float64)

    results = _probed(flips)
    assert results["dtype"].message == "output dtype changes between calls: ['float32', 'float64']"
    assert results["deterministic"].message == "differ on [1.0, 2.0]; differ on [3.0]"
