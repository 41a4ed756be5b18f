"""Calling a backend safely, and the contract stage of the suite (SPEC §6.2, stage 1).

:class:`GuardedBackend` runs every call in a worker thread with a per-call timeout, moves
the result to host memory and validates it (type, shape, dtype, finiteness, input not
mutated); any misbehaviour becomes a :class:`BackendFailure` that the runner turns into a
failed check, so a broken backend never crashes the suite. A call that times out leaves its
thread running; the backend is then marked hung and later calls fail at once instead of
hanging again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend, Capabilities
from pespec.conformance.host import to_host
from pespec.properties.base import dtype_name
from pespec.properties.output import OutputProblem, first_non_finite, output_problems

__all__ = [
    "CONTRACT_ITEMS",
    "BackendFailure",
    "ContractProbe",
    "GuardedBackend",
    "OutputProblem",
    "bit_identical",
    "contract_probes",
    "first_non_finite",
    "output_problems",
    "probe_base",
    "run_contract",
    "validate_output",
]

CONTRACT_ITEMS: dict[str, str] = {
    "shape": "returns an array of shape (n, d_model)",
    "dtype": "output dtype is float64, float32, float16 or bfloat16 and stays the same",
    "finite": "every value is finite",
    "deterministic": "two calls with the same input are bit-identical",
    "input-unchanged": "the positions array is not modified",
}
"""The contract items, in order, with the one-line rule each checks."""


class BackendFailure(Exception):
    """The backend misbehaved; ``kind`` says how (raised, timeout, hung, type, shape, ...)."""

    def __init__(self, kind: str, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.result = result  # what the backend returned, when it was no array (kind "type")


def _describe_positions(positions: NDArray[Any]) -> str:
    if positions.size <= 6:
        return f"positions {positions.tolist()}"
    return f"{positions.size} positions {positions[0].item()!r}..{positions[-1].item()!r}"


class GuardedBackend:
    """A :class:`Backend` called with a timeout and with its output validated.

    ``expected_dtype`` (a pespec dtype name) is enforced once known. Calling it returns the
    host array of shape (n, d_model) or raises :class:`BackendFailure`. It is an
    :data:`~pespec.properties.base.Encoder`, so property checks can call it directly.
    ``describe``: the call's arguments in words for messages, for a family whose backends
    take other arguments (default: the sinusoidal ``(positions, d_model, base)``); such a
    family validates with its own function over :meth:`raw_call`.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        timeout: float,
        expected_dtype: str | None = None,
        check_finite: bool = True,
        describe: Callable[..., str] | None = None,
    ) -> None:
        self.backend = backend
        self.describe = describe
        self.timeout = timeout
        self.expected_dtype = expected_dtype
        self.check_finite = check_finite
        self.hung = False
        self.hung_message: str | None = None  # the call that timed out, in words
        self.calls = 0  # backend calls made, and rows (positions) requested, for the report
        self.rows = 0

    def raw_call(self, *args: Any) -> NDArray[Any]:
        """Call the backend on ``args`` (positions, d_model, base) with the timeout; host
        array, unvalidated."""
        if self.hung:
            raise BackendFailure(
                "hung",
                f"not called: the backend hung in an earlier call (timeout {self.timeout:g} s)",
            )
        box: dict[str, Any] = {}
        self.calls += 1
        first = np.asarray(args[0])  # positions (n,), or a rotary family's x (n, head_dim)
        self.rows += int(first.shape[0]) if first.ndim else 1

        def target() -> None:
            try:
                raw = self.backend.fn(*args)
            except BaseException as exc:  # a backend may raise anything, even SystemExit
                box["error"] = exc
                return
            box["raw"] = raw
            try:
                box["value"] = to_host(raw)
            except BaseException as exc:  # the result, not the backend, is the problem
                box["convert"] = exc

        worker = threading.Thread(target=target, name="pespec-backend-call", daemon=True)
        worker.start()
        worker.join(self.timeout)
        where = self.describe_call(*args)
        if worker.is_alive():
            self.hung = True
            self.hung_message = f"the backend did not return within {self.timeout:g} s ({where})"
            raise BackendFailure("timeout", self.hung_message)
        if "convert" in box:
            exc = box["convert"]
            if isinstance(exc, TypeError) and "must return an array" in str(exc):
                raise BackendFailure("type", f"{exc} ({where})", box.get("raw"))
            raise BackendFailure(
                "type",
                f"the backend's result could not be copied to a NumPy array: "
                f"{type(exc).__name__}: {exc} ({where})",
                box.get("raw"),
            )
        if "error" in box:
            exc = box["error"]
            raise BackendFailure(
                "raised", f"the backend raised {type(exc).__name__}: {exc} ({where})"
            )
        value: NDArray[Any] = box["value"]
        return value

    def describe_call(self, *args: Any) -> str:
        """The call's arguments in words, for messages (``describe`` when given)."""
        if self.describe is not None:
            return self.describe(*args)
        positions, d_model, base = args
        return f"{_describe_positions(positions)}, d_model={d_model}, base={base!r}"

    def validate(
        self, output: NDArray[Any], positions: NDArray[Any], d_model: int, base: float
    ) -> NDArray[Any]:
        """:func:`validate_output` with this guard's expected dtype and finiteness setting."""
        return validate_output(
            output,
            positions,
            d_model,
            base,
            expected_dtype=self.expected_dtype,
            check_finite=self.check_finite,
        )

    def __call__(self, positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        given = np.array(positions, copy=True)
        output = self.raw_call(given, d_model, base)
        if given.dtype != positions.dtype or not np.array_equal(given, positions):
            raise BackendFailure("mutated", "the backend modified its positions argument")
        return self.validate(output, positions, d_model, base)


def validate_output(
    output: NDArray[Any],
    positions: NDArray[Any],
    d_model: int,
    base: float,
    *,
    expected_dtype: str | None = None,
    check_finite: bool = True,
) -> NDArray[Any]:
    """Raise BackendFailure for the first of :func:`output_problems` (shape (n, d_model), a
    known dtype, equal to ``expected_dtype`` when given, with ``check_finite`` only finite
    values), naming the call; else return ``output``."""
    for problem in output_problems(
        output, positions, d_model, expected_dtype=expected_dtype, check_finite=check_finite
    ):
        where = f"{_describe_positions(positions)}, d_model={d_model}, base={base!r}"
        raise BackendFailure(problem.kind, f"{problem.message} ({where})")
    return output


@dataclass(frozen=True)
class ContractProbe:
    """One probe configuration of the contract stage."""

    positions: NDArray[Any]
    d_model: int
    base: float


def contract_probes(capabilities: Capabilities, *, base: float) -> list[ContractProbe]:
    """The contract probes, narrowed to what the backend declares.

    n ≠ d_model in every probe so that a transposed output shows as a wrong shape; position 0
    is included (sin 0 = 0, cos 0 = 1 are the values most often special-cased).
    """
    max_d_model = capabilities.max_d_model
    d_first = 16 if max_d_model is None else min(16, max_d_model)
    d_second = 6 if max_d_model is None else min(6, max_d_model)
    ints = np.arange(0, 48, dtype=np.int64)
    probes = [ContractProbe(ints[capabilities.admits(ints)], d_first, base)]
    if not capabilities.integer_positions_only:
        fractional = np.array([0.5, -3.25, 1000.75, 0.0, 12345.5, 2.0**-20], dtype=np.float64)
        probes.append(ContractProbe(fractional[capabilities.admits(fractional)], d_second, base))
    return probes


def run_contract(
    guard: GuardedBackend,
    probes: list[ContractProbe],
    where: dict[str, ContractProbe] | None = None,
    failures: list[BackendFailure] | None = None,
) -> tuple[dict[str, tuple[bool, str]], str | None]:
    """Evaluate every contract item on ``probes``.

    Returns ({item: (passed, message)}, output dtype name or None). Each probe is called
    twice with a fresh writable copy of its positions. ``where``, when given, receives for
    each failed item the first probe it failed on (for a reproduction of that very call);
    ``failures``, when given, every call's BackendFailure in order.
    """
    problems: dict[str, list[str]] = {item: [] for item in CONTRACT_ITEMS}
    dtypes: set[str] = set()
    failed_on: dict[str, ContractProbe] = {}
    for probe in probes:
        counts = {item: len(found) for item, found in problems.items()}
        _run_probe(guard, probe, problems, dtypes, failures)
        for item, found in problems.items():
            if len(found) > counts[item]:
                failed_on.setdefault(item, probe)
    problems["dtype"].extend(_dtype_problems(dtypes, guard.expected_dtype))
    if probes and problems["dtype"]:  # found after the calls: the last probe shows it
        failed_on.setdefault("dtype", probes[-1])
    called = not problems["shape"] or bool(dtypes)
    results = _item_results(problems, called, failed_on)
    if where is not None:
        where.update(failed_on)
    output_dtype = next(iter(dtypes)) if len(dtypes) == 1 else None
    return results, output_dtype


def _run_probe(
    guard: GuardedBackend,
    probe: ContractProbe,
    problems: dict[str, list[str]],
    dtypes: set[str],
    failures: list[BackendFailure] | None,
) -> None:
    """Call the backend twice on ``probe`` and add what is wrong to ``problems`` (by item)."""
    outputs = _call_twice(guard, probe, problems, failures)
    for output in outputs:
        _record_output_problems(output, probe, problems, dtypes)
    if len(outputs) == 2 and not bit_identical(outputs[0], outputs[1]):
        problems["deterministic"].append(
            f"two calls with d_model={probe.d_model}, base={probe.base!r} gave different outputs"
        )


def _call_twice(
    guard: GuardedBackend,
    probe: ContractProbe,
    problems: dict[str, list[str]],
    failures: list[BackendFailure] | None,
) -> list[NDArray[Any]]:
    """The outputs of two calls on fresh copies of the positions (fewer when a call fails,
    which is a shape problem); a modified positions array is an input-unchanged problem."""
    outputs: list[NDArray[Any]] = []
    for _ in range(2):
        given = np.array(probe.positions, copy=True)
        try:
            output = guard.raw_call(given, probe.d_model, probe.base)
        except BackendFailure as failure:
            problems["shape"].append(failure.message)
            if failures is not None:
                failures.append(failure)
            break
        if given.dtype != probe.positions.dtype or not np.array_equal(given, probe.positions):
            problems["input-unchanged"].append(
                f"positions {probe.positions.tolist()} became {given.tolist()}"
            )
        outputs.append(output)
    return outputs


def _dtype_problems(dtypes: set[str], expected: str | None) -> list[str]:
    """What is wrong with the output dtypes seen over all calls: a change, or not ``expected``."""
    found = []
    if len(dtypes) > 1:
        found.append(f"output dtype changes between calls: {sorted(dtypes)}")
    if expected is not None and dtypes and dtypes != {expected}:
        found.append(f"output dtype must be {expected} (the level tested); got {sorted(dtypes)}")
    return found


def _item_results(
    problems: dict[str, list[str]], called: bool, failed_on: dict[str, ContractProbe]
) -> dict[str, tuple[bool, str]]:
    """{item: (passed, message)}; without any output (``called`` false) every item but shape
    fails as not evaluated, on the probe shape failed on (added to ``failed_on``)."""
    results: dict[str, tuple[bool, str]] = {}
    for item, rule in CONTRACT_ITEMS.items():
        found = _unique(problems[item])
        if found:
            results[item] = (False, "; ".join(found))
        elif item != "shape" and not called:
            results[item] = (False, "not evaluated: the backend produced no output (see shape)")
            if "shape" in failed_on:
                failed_on.setdefault(item, failed_on["shape"])
        else:
            results[item] = (True, rule)
    return results


def _record_output_problems(
    output: NDArray[Any],
    probe: ContractProbe,
    problems: dict[str, list[str]],
    dtypes: set[str],
) -> None:
    """Add the problems of one probe's output to ``problems`` (by kind) and its dtype name."""
    for problem in output_problems(output, probe.positions, probe.d_model):
        problems[problem.kind].append(
            f"{problem.message} (d_model={probe.d_model}, {probe.positions.shape[0]} positions)"
        )
    name = dtype_name(output.dtype)
    if name is not None:
        dtypes.add(name)


def bit_identical(first: NDArray[Any], second: NDArray[Any]) -> bool:
    """Whether two outputs have the same shape, dtype and bytes (the determinism check)."""
    if first.shape != second.shape or first.dtype != second.dtype:
        return False
    return bool(np.ascontiguousarray(first).tobytes() == np.ascontiguousarray(second).tobytes())


def _unique(messages: list[str]) -> list[str]:
    return list(dict.fromkeys(messages))


def probe_base(bases: tuple[float, ...] | None) -> float:
    """The base used by the contract probes: 10000, or the first base the backend supports."""
    if bases is None or 10000.0 in bases:
        return 10000.0
    return bases[0]
