"""The engine's contract stage: one for every family, five items, one wording (SPEC §6.2).

A family gives a validated call (its ``output``: shape, dtype and finiteness checked, a
:class:`~pespec.conformance.contract.BackendFailure` of kind ``shape``, ``dtype`` or
``finite`` otherwise) and a small sample of arguments; the engine calls it twice through the
family's guard and judges the items of :data:`CONTRACT_ITEMS`, each its own check
``contract:<item>``: the call's shape, dtype and finiteness, the two outputs bit-identical,
and no array argument changed in place (the guard compares each one before and after the
call). A call that fails another way (raised, timed out, not an array) fails ``shape``; an
item the calls could not reach is failed as not evaluated, naming the item that stopped it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import BackendFailure, GuardedBackend, bit_identical
from pespec.conformance.report import CheckResult
from pespec.numerics.formats import dtype_name

__all__ = ["CONTRACT_ITEMS", "ContractStage", "contract_plan", "validated_output"]

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
