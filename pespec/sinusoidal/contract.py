"""The sinusoidal family's contract stage (SPEC §6.2, stage 1).

:func:`contract_probes` narrows the probes to what a backend declares; :func:`run_contract`
calls each twice through the engine's guard
(:class:`~pespec.conformance.contract.GuardedBackend`) and judges the items of
:data:`CONTRACT_ITEMS`: shape, dtype, finiteness, determinism, input not mutated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.contract import BackendFailure, GuardedBackend, bit_identical
from pespec.sinusoidal.call import SINUSOIDAL_CALL, validate_output
from pespec.sinusoidal.capabilities import Capabilities
from pespec.sinusoidal.properties.base import dtype_name
from pespec.sinusoidal.properties.output import output_problems

__all__ = [
    "CONTRACT_ITEMS",
    "ContractProbe",
    "contract_probes",
    "output_problems",
    "probe_base",
    "run_contract",
    "sinusoidal_guard",
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


def sinusoidal_guard(
    backend: Backend, *, timeout: float, expected_dtype: str | None = None
) -> GuardedBackend:
    """The guarded sinusoidal backend: ``guard(positions, d_model, base)`` -> validated host
    array (the family's calling convention describes and validates each call)."""
    return GuardedBackend(
        backend,
        timeout=timeout,
        expected_dtype=expected_dtype,
        describe=SINUSOIDAL_CALL.describe,
        validate=SINUSOIDAL_CALL.validate,
    )


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


def _unique(messages: list[str]) -> list[str]:
    return list(dict.fromkeys(messages))


def probe_base(bases: tuple[float, ...] | None) -> float:
    """The base used by the contract probes: 10000, or the first base the backend supports."""
    if bases is None or 10000.0 in bases:
        return 10000.0
    return bases[0]
