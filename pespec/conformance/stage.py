"""The engine's contract stage: one for every family, five items, one wording (SPEC §6.2).

A family gives a validated call (its ``output``: shape, dtype and finiteness checked, a
:class:`~pespec.conformance.contract.BackendFailure` of kind ``shape``, ``dtype`` or
``finite`` otherwise) and a small sample of arguments; the engine calls it twice through the
family's guard and judges the items of :data:`CONTRACT_ITEMS`, each its own check
``contract:<item>``: the call's shape, dtype and finiteness, the two outputs bit-identical,
and no array argument changed in place (the guard compares each one before and after the
call). A call that fails another way (raised, timed out, not an array) fails ``shape``; an
item the calls could not reach is failed as not evaluated, naming the item that stopped it.

:class:`ProbedContract` is the same stage on probes a family chooses from what a backend
declares: each probe called twice on fresh copies of its arrays, every problem of every call
kept under its item, and a failed item given the reproduction of the first probe it failed on.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import BackendFailure, GuardedBackend, bit_identical
from pespec.conformance.report import CheckResult
from pespec.numerics.formats import dtype_name

__all__ = [
    "CONTRACT_ITEMS",
    "ContractStage",
    "ProbedContract",
    "contract_plan",
    "validated_output",
]

CONTRACT_ITEMS: dict[str, str] = {
    "shape": "returns an array of the expected shape",
    "dtype": "output dtype is float64, float32, float16 or bfloat16 and stays the same",
    "finite": "every value is finite",
    "deterministic": "two calls with the same inputs are bit-identical",
    "input-unchanged": "the inputs are not modified",
}
"""The contract items, in order, with the rule each checks (a family may word a rule for its
shapes, :func:`contract_plan`'s ``rules``; the ids are the engine's)."""

_ORDER = ("shape", "dtype", "finite")
"""The validated call's checks, in the order it makes them: a failure of one means the ones
before it passed and the ones after it were not reached."""


def validated_output(
    out: NDArray[Any],
    shape: tuple[int, ...],
    *,
    allowed: Collection[str],
    seen: str | None,
    where: str,
    first: Callable[[str], None] | None = None,
    row: Callable[[int], str] | None = None,
) -> str:
    """The dtype name of ``out``, a backend's output of the call described by ``where``,
    after the checks every family makes of a call, in this order and one wording: ``shape``,
    a dtype of ``allowed``, the dtype ``seen`` in earlier calls (None: this is the first
    call, and ``first(name)`` records it before the next check), every value finite (the
    first non-finite one named by its row, ``row(r)`` saying which input that row is);
    :class:`~pespec.conformance.contract.BackendFailure` (kind ``shape``, ``dtype`` or
    ``finite``) otherwise."""
    if out.shape != shape:
        raise BackendFailure("shape", f"returned shape {out.shape}, not {shape}")
    name = dtype_name(out.dtype)
    if name is None or name not in allowed:
        raise BackendFailure("dtype", f"returned dtype {out.dtype}, not one of {sorted(allowed)}")
    if seen is not None and name != seen:
        raise BackendFailure("dtype", f"returned {name} after {seen}")
    if seen is None and first is not None:
        first(name)
    finite = np.isfinite(out.astype(np.float64))
    if not np.all(finite):
        at = tuple(int(i) for i in np.argwhere(~finite)[0])
        which = "" if row is None else f" ({row(at[0])})"
        place = f"row {at[0]}{which}, column {at[1]}" if len(at) == 2 else f"index {list(at)}"
        raise BackendFailure(
            "finite", f"returned a non-finite value {float(out[at])!r} at {place} ({where})"
        )
    return name


def contract_plan(section: str, rules: Mapping[str, str] | None = None) -> list[PlannedCheck]:
    """The contract stage's checks ``contract:<item>`` in :data:`CONTRACT_ITEMS` order."""
    unknown = sorted(set(rules or {}) - set(CONTRACT_ITEMS))
    if unknown:
        raise ValueError(f"rules must name contract items {list(CONTRACT_ITEMS)}; got {unknown}")
    words = {**CONTRACT_ITEMS, **(rules or {})}
    return [PlannedCheck(f"contract:{item}", "contract", words[item], section) for item in words]


class ContractStage:
    """The contract stage of one run: evaluated once, on its first check."""

    def __init__(
        self, guard: GuardedBackend, call: Callable[..., NDArray[Any]], *args: Any
    ) -> None:
        self.guard, self.call, self.args = guard, call, args
        self.items: dict[str, tuple[bool, str]] | None = None

    def result(self, planned: PlannedCheck) -> CheckResult:
        """The result of the planned check ``contract:<item>``."""
        if self.items is None:
            self.items = self.evaluate()
        passed, message = self.items[planned.id.partition(":")[2]]
        return planned.result("passed" if passed else "failed", message)

    def evaluate(self) -> dict[str, tuple[bool, str]]:
        """{item: (passed, message)} from two calls on the sample (watched for changes)."""
        outputs: list[NDArray[Any]] = []
        failure: BackendFailure | None = None
        changed: list[str] = []
        self.guard.watched = changed
        try:
            for _ in range(2):
                outputs.append(self.call(*self.args))
        except BackendFailure as exc:
            failure = exc
        finally:
            self.guard.watched = None
        items = {item: (True, rule) for item, rule in CONTRACT_ITEMS.items()}
        if failure is not None:
            kind = failure.kind if failure.kind in _ORDER else "shape"
            items[kind] = (False, failure.message)
            for item in (*_ORDER[_ORDER.index(kind) + 1 :], "deterministic"):
                items[item] = (False, f"not evaluated: contract:{kind} failed")
            if failure.kind not in _ORDER:  # no output: the inputs were not seen after a call
                items["input-unchanged"] = (False, f"not evaluated: contract:{kind} failed")
        elif not bit_identical(outputs[0], outputs[1]):
            items["deterministic"] = (False, "two calls with the same inputs differ")
        if changed:
            items["input-unchanged"] = (False, "; ".join(dict.fromkeys(changed)))
        return items


class ProbedContract(ContractStage):
    """The contract stage on a family's probes (see the module docstring), evaluated once.

    The family subclasses it with its content: :meth:`probes` (from what the backend
    declares), :meth:`arguments` of a probe's call, :meth:`output_problems` of one output,
    the wording of a changed input (:meth:`changed`) and of two differing calls
    (:meth:`differ`), and optionally :meth:`reproduction`, :meth:`failed` (a call's
    BackendFailure) and :meth:`finish` (what the run learns from the evaluation). Each item
    fails with its distinct problems joined by ``; ``; without output (:meth:`called`) every
    item but ``shape`` fails as :attr:`not_evaluated`. The dtypes of all calls must be one,
    the guard's ``expected_dtype`` when it is set.
    """

    not_evaluated = "not evaluated: the backend produced no output"
    record_after_calls = False
    """Judge a probe's outputs after both its calls (else each after its call): the order of
    the problems of one item."""

    def __init__(self, run: Any, rules: Mapping[str, str] | None = None) -> None:
        """``run``: the family's run, whose ``guard`` calls the backend (read at each
        evaluation); ``rules``: the family's wording of items (:func:`contract_plan`)."""
        self.run = run
        self.rules = {p.id.partition(":")[2]: p.title for p in contract_plan("", rules)}
        self.items: dict[str, tuple[bool, str]] | None = None
        self.failed_on: dict[str, Any] = {}
        """The first probe each failed item failed on."""
        self.output_dtype: str | None = None
        """The one dtype name of every output, or None (none, or several)."""

    @property
    def guard(self) -> GuardedBackend:  # type: ignore[override]
        """The run's guard."""
        guard: GuardedBackend = self.run.guard
        return guard

    # -- the family's content -------------------------------------------------------------

    def probes(self) -> Sequence[Any]:
        """The probes, narrowed to what the backend declares."""
        raise NotImplementedError

    def arguments(self, probe: Any) -> tuple[Any, ...]:
        """The backend's arguments for ``probe`` (array arguments are copied for each call)."""
        raise NotImplementedError

    def changed(self, probe: Any, given: tuple[Any, ...]) -> str | None:
        """What a call changed of the copies ``given`` of ``probe``'s arguments, or None."""
        raise NotImplementedError

    def output_problems(self, output: NDArray[Any], probe: Any) -> list[tuple[str, str]]:
        """(item, message) of what is wrong with one output of ``probe`` (shape, dtype,
        finite)."""
        raise NotImplementedError

    def differ(self, probe: Any) -> str:
        """The message of two calls on ``probe`` that gave different outputs."""
        raise NotImplementedError

    def called(self, problems: Mapping[str, list[str]], dtypes: set[str], returned: bool) -> bool:
        """Whether the calls gave output to judge (default: some call returned)."""
        return returned

    def expected_dtype(self) -> str | None:
        """The dtype every output must have, when known (default: the guard's)."""
        return self.guard.expected_dtype

    def failed(self, failure: BackendFailure) -> None:
        """Note a call's BackendFailure (default: nothing)."""

    def reproduction(self, probe: Any) -> str | None:
        """A one-line reproduction of the call on ``probe`` (default: none)."""
        return None

    def finish(self) -> None:
        """What the run learns from the evaluation (default: nothing)."""

    # -- the engine's part ----------------------------------------------------------------

    def result(self, planned: PlannedCheck) -> CheckResult:
        """The result of ``contract:<item>``, with the reproduction of a failed item."""
        passed, message = self.evaluated()[planned.id.partition(":")[2]]
        probe = None if passed else self.failed_on.get(planned.id.partition(":")[2])
        reproduction = None if probe is None else self.reproduction(probe)
        return planned.result("passed" if passed else "failed", message, reproduction=reproduction)

    def evaluated(self) -> dict[str, tuple[bool, str]]:
        """{item: (passed, message)}, evaluated on the first use (then :meth:`finish`)."""
        if self.items is None:
            self.items = self.evaluate()
            self.finish()
        return self.items

    def evaluate(self) -> dict[str, tuple[bool, str]]:
        """Call every probe twice and judge the items."""
        problems: dict[str, list[str]] = {item: [] for item in self.rules}
        dtypes: set[str] = set()
        probes, returned = self.probes(), False
        for probe in probes:
            counts = {item: len(found) for item, found in problems.items()}
            outputs = self._call_twice(probe, problems, dtypes)
            returned = returned or bool(outputs)
            if len(outputs) == 2 and not bit_identical(outputs[0], outputs[1]):
                problems["deterministic"].append(self.differ(probe))
            for item, found in problems.items():
                if len(found) > counts[item]:
                    self.failed_on.setdefault(item, probe)
        expected = self.expected_dtype()
        if len(dtypes) > 1:
            problems["dtype"].append(f"output dtype changes between calls: {sorted(dtypes)}")
        if expected is not None and dtypes and dtypes != {expected}:
            problems["dtype"].append(
                f"output dtype must be {expected} (the level tested); got {sorted(dtypes)}"
            )
        if probes and problems["dtype"]:  # found after the calls: the last probe shows it
            self.failed_on.setdefault("dtype", probes[-1])
        self.output_dtype = next(iter(dtypes)) if len(dtypes) == 1 else None
        return self._results(problems, self.called(problems, dtypes, returned))

    def _call_twice(
        self, probe: Any, problems: dict[str, list[str]], dtypes: set[str]
    ) -> list[NDArray[Any]]:
        """The outputs of two calls on fresh copies of ``probe``'s arguments (fewer when a
        call fails, a ``shape`` problem), each judged; a changed copy is ``input-unchanged``."""
        outputs: list[NDArray[Any]] = []
        for _ in range(2):
            given = tuple(
                np.array(a, copy=True) if isinstance(a, np.ndarray) else a
                for a in self.arguments(probe)
            )
            try:
                output = self.guard.raw_call(*given)
            except BackendFailure as failure:
                problems["shape"].append(failure.message)
                self.failed(failure)
                break
            change = self.changed(probe, given)
            if change is not None:
                problems["input-unchanged"].append(change)
            if not self.record_after_calls:
                self._record(output, probe, problems, dtypes)
            outputs.append(output)
        if self.record_after_calls:
            for output in outputs:
                self._record(output, probe, problems, dtypes)
        return outputs

    def _record(
        self, output: NDArray[Any], probe: Any, problems: dict[str, list[str]], dtypes: set[str]
    ) -> None:
        for item, message in self.output_problems(output, probe):
            problems[item].append(message)
        name = dtype_name(output.dtype)
        if name is not None:
            dtypes.add(name)

    def _results(self, problems: dict[str, list[str]], called: bool) -> dict[str, tuple[bool, str]]:
        """{item: (passed, message)}: the item's distinct problems, else its rule; without
        output every item but shape fails as not evaluated (on the probe shape failed on)."""
        results: dict[str, tuple[bool, str]] = {}
        for item, rule in self.rules.items():
            found = list(dict.fromkeys(problems[item]))
            if found:
                results[item] = (False, "; ".join(found))
            elif item != "shape" and not called:
                results[item] = (False, self.not_evaluated)
                if "shape" in self.failed_on:
                    self.failed_on.setdefault(item, self.failed_on["shape"])
            else:
                results[item] = (True, rule)
        return results
