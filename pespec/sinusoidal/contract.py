"""The sinusoidal family's contract stage (SPEC §6.2, stage 1).

:func:`contract_probes` narrows the probes to what a backend declares;
:class:`SinusoidalContract` is the engine's contract stage
(:class:`~pespec.conformance.stage.ProbedContract`) on them: each called twice through the
engine's guard, the items of :data:`CONTRACT_ITEMS` judged (shape, dtype, finiteness,
determinism, input not mutated), a failed item given the reproduction of its call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.contract import BackendFailure, GuardedBackend
from pespec.conformance.guard import protocol_error
from pespec.conformance.stage import ProbedContract
from pespec.sinusoidal.call import SINUSOIDAL_CALL, validate_output
from pespec.sinusoidal.capabilities import Capabilities
from pespec.sinusoidal.properties.base import level_for_dtype
from pespec.sinusoidal.properties.output import output_problems

__all__ = [
    "CONTRACT_ITEMS",
    "ContractProbe",
    "SinusoidalContract",
    "contract_probes",
    "output_problems",
    "probe_base",
    "returned_misfit",
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
"""The contract items, in order, with the one-line rule each checks (the family's wording of
the engine's items, :data:`pespec.conformance.stage.CONTRACT_ITEMS`)."""


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


class SinusoidalContract(ProbedContract):
    """The engine's contract stage on the sinusoidal probes (:func:`contract_probes`) of
    ``run`` (a :class:`~pespec.sinusoidal.run.SinusoidalRun`): each failed item carries the
    reproduction of the call it failed on; the evaluation fixes the run's output dtype and its
    level (the default of that dtype unless one was given or claimed)."""

    not_evaluated = "not evaluated: the backend produced no output (see shape)"
    record_after_calls = True

    def __init__(self, run: Any) -> None:
        super().__init__(run, CONTRACT_ITEMS)
        self.failures: list[BackendFailure] = []

    def probes(self) -> list[ContractProbe]:
        caps = self.run.backend.capabilities
        return contract_probes(caps, base=probe_base(caps.bases))

    def arguments(self, probe: ContractProbe) -> tuple[Any, ...]:
        return (probe.positions, probe.d_model, probe.base)

    def changed(self, probe: ContractProbe, given: tuple[Any, ...]) -> str | None:
        positions = given[0]
        if positions.dtype != probe.positions.dtype or not np.array_equal(
            positions, probe.positions
        ):
            return f"positions {probe.positions.tolist()} became {positions.tolist()}"
        return None

    def output_problems(self, output: NDArray[Any], probe: ContractProbe) -> list[tuple[str, str]]:
        where = f"(d_model={probe.d_model}, {probe.positions.shape[0]} positions)"
        return [
            (problem.kind, f"{problem.message} {where}")
            for problem in output_problems(output, probe.positions, probe.d_model)
        ]

    def differ(self, probe: ContractProbe) -> str:
        return f"two calls with d_model={probe.d_model}, base={probe.base!r} gave different outputs"

    def called(self, problems: Mapping[str, list[str]], dtypes: set[str], returned: bool) -> bool:
        return not problems["shape"] or bool(dtypes)

    def failed(self, failure: BackendFailure) -> None:
        self.failures.append(failure)

    def reproduction(self, probe: ContractProbe) -> str | None:
        reproduction: str = self.run.reproductions.for_call(
            probe.positions, probe.d_model, probe.base
        )
        return reproduction

    def finish(self) -> None:
        """A first call that shows the object is no backend is a usage error (exit 2);
        else the run's output dtype, its level, and the dtype the guard expects."""
        run = self.run
        if self.output_dtype is None and self.failures:
            misfit = returned_misfit(run.backend.fn, self.failures[0])
            if misfit is not None:
                self.items = None  # not evaluated: every later check says so again
                raise protocol_error(run.backend.name, misfit, SINUSOIDAL_CALL)
        run.output_dtype = self.output_dtype
        if run.level is None and run.output_dtype is not None:
            run.level = level_for_dtype(run.backend_dtype())
        if run.level is not None:
            run.guard.expected_dtype = run.level.output_dtype


def returned_misfit(fn: Any, failure: BackendFailure) -> str | None:
    """Why the first contract probe shows that ``fn`` is no backend, or None.

    A call that returned a callable object (a module) instead of an array, or a class whose
    call (its construction) gave no array: the object needs an adapter, it is not a backend
    that computes a wrong encoding.
    """
    if failure.kind == "type" and callable(failure.result):
        return (
            f"calling it returned a {type(failure.result).__name__} object (callable), not an array"
        )
    if isinstance(fn, type) and failure.kind in ("type", "raised"):
        first = failure.message.splitlines()[0] if failure.message else ""
        first = first if len(first) <= 160 else f"{first[:160]}..."
        return (
            f"it is a class, and calling {fn.__name__}(positions, d_model, base) constructs "
            f"one, which gave no array ({first})"
        )
    return None


def probe_base(bases: tuple[float, ...] | None) -> float:
    """The base used by the contract probes: 10000, or the first base the backend supports."""
    if bases is None or 10000.0 in bases:
        return 10000.0
    return bases[0]
