"""The toy family's run for pespec's engine: contract, plan, dispatch, diagnosis.

Everything here uses pespec's public engine names only: :class:`Suite` and its
:class:`FamilyRun` protocol, the guarded call (:class:`GuardedBackend`: timeout, host
conversion, call counts), :func:`load_backend` with this family's capabilities type and
entry-point group, :class:`PlannedCheck` and the one :class:`Report`.

Stages: ``contract`` (the call returns a 1-D float64/float32 array of H finite values, the
same twice) and ``reference`` (every slope of each H within one unit roundoff-pair of the
exact slope: |x - y| ≤ 2^(1-p)·y, p the precision of the level's dtype; one ulp, which any
faithful pow/exp2 meets; decided exactly by :func:`toyfamily.reference.within`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend, BackendCapabilities
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import GuardedBackend
from pespec.conformance.engine import DEFAULT_TIMEOUT, Suite, select_stages
from pespec.conformance.guard import CallingConvention
from pespec.conformance.loading import load_backend
from pespec.conformance.profiles import resolve_profile
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.stage import ContractStage, contract_plan, validated_output
from toyfamily.config import THOROUGH_HEADS, parse_heads
from toyfamily.reference import slope, within

__all__ = [
    "ENTRY_POINT_GROUP",
    "FAMILY",
    "PRECISION",
    "STAGES",
    "TOY_CALL",
    "ToyCapabilities",
    "ToyRun",
    "ToySuite",
    "check",
    "load_toy_backend",
]

FAMILY = "toy"
STAGES = ("contract", "reference")
ENTRY_POINT_GROUP = "toyfamily.backends"
PRECISION = {"float64": 53, "float32": 24}
"""The levels (the output dtype) and their precision p: the bound is 2^(1-p)·y."""

TOY_CALL = CallingConvention(
    "backend(heads) -> array", (8,), "wrap it in a function (heads) -> array of the H slopes"
)


@dataclass(frozen=True)
class ToyCapabilities(BackendCapabilities):
    """What a toy backend declares: the shared fields and ``heads`` (the head counts it
    supports; None: any)."""

    heads: tuple[int, ...] | None = None
    calling_convention: ClassVar[CallingConvention] = TOY_CALL

    def check_fields(self) -> None:
        if self.heads is not None:
            object.__setattr__(self, "heads", parse_heads(self.heads))

    def check_level(self) -> None:
        if self.level is not None and self.level not in PRECISION:
            raise ValueError(f"level must be one of {sorted(PRECISION)}; got {self.level!r}")

    def to_dict(self) -> dict[str, Any]:
        heads = None if self.heads is None else list(self.heads)
        return {**super().to_dict(), "heads": heads}


def load_toy_backend(spec: str | Backend | Callable[..., Any]) -> Backend:
    """A toy backend from ``module:attr``, ``file.py:attr``, an entry point of
    :data:`ENTRY_POINT_GROUP`, a callable or a Backend (pespec's loader, this family's types)."""
    return load_backend(spec, capabilities_type=ToyCapabilities, group=ENTRY_POINT_GROUP)


def _describe(heads: Any) -> str:
    return f"heads={heads!r}"


class ToyRun:
    """The toy family's :class:`~pespec.conformance.engine.FamilyRun` for one backend."""

    family = FAMILY
    all_stages = STAGES

    def __init__(
        self,
        backend: str | Backend | Callable[..., Any],
        *,
        heads: Any = None,
        level: str | None = None,
        profile: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        stages: Sequence[str] = STAGES,
    ) -> None:
        self.backend = load_toy_backend(backend)
        self.profile = resolve_profile(profile)
        self.stages = select_stages(stages, STAGES)
        caps = self.backend.capabilities
        assert isinstance(caps, ToyCapabilities)
        default = THOROUGH_HEADS if self.profile == "thorough" else None
        wanted = parse_heads(heads if heads is not None else default)
        self.heads = tuple(h for h in wanted if caps.heads is None or h in caps.heads)
        if not self.heads:
            raise ValueError(f"heads {list(wanted)} are none of the declared {caps.heads}")
        claim = level if level is not None else caps.level
        if claim is not None and claim not in PRECISION:
            raise ValueError(f"level must be one of {sorted(PRECISION)}; got {claim!r}")
        self.requested_level = claim
        self.level: str | None = claim
        self.output_dtype: str | None = None
        self.guard = GuardedBackend(self.backend, timeout=timeout, describe=_describe)
        self.contract = ContractStage(self.guard, self.slopes, 8)

    def plan(self) -> list[PlannedCheck]:
        planned = []
        if "contract" in self.stages:
            planned += contract_plan("toy §1", {"shape": "returns the H slopes, shape (H,)"})
        if "reference" in self.stages:
            planned += [
                PlannedCheck(f"reference:heads-{h}", "reference", f"the {h} slopes", "toy §2", h)
                for h in self.heads
            ]
        return planned

    def slopes(self, heads: int) -> NDArray[Any]:
        """The backend's slopes for ``heads``, validated (BackendFailure otherwise)."""
        out = self.guard.raw_call(heads)
        seen, where, first = self.output_dtype, _describe(heads), self._first
        validated_output(out, (heads,), allowed=PRECISION, seen=seen, where=where, first=first)
        return out

    def _first(self, name: str) -> None:
        self.output_dtype, self.level = name, self.level or name

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        return self.compare(planned, int(planned.payload))

    def compare(self, planned: PlannedCheck, heads: int) -> CheckResult:
        """Every slope of ``heads`` against the exact one, within 2^(1-p)·y (decided exactly)."""
        out = self.slopes(heads).astype(np.float64)
        r = Fraction(2, 2 ** PRECISION[self.level or "float64"])
        worst: tuple[float, int, float, float] | None = None  # (ratio, h, error, bound)
        bad = [h for h in range(1, heads + 1) if not within(float(out[h - 1]), h, heads, r)]
        for h in range(1, heads + 1):
            ref = slope(h, heads)
            error, bound = abs(float(out[h - 1]) - ref), float(r) * ref
            if worst is None or error / bound > worst[0]:
                worst = (error / bound, h, error, bound)
        assert worst is not None
        _, h, error, bound = worst
        fields: dict[str, Any] = {"max_error": error, "bound": bound, "worst_column": h - 1}
        if bad:
            message = f"{len(bad)} of {heads} slopes off by more than 2^(1-p)·m_h; first h={bad[0]}"
            return planned.result("failed", message, **fields)
        return planned.result("passed", f"all {heads} slopes within 2^(1-p)·m_h", **fields)

    def report_fields(self) -> dict[str, Any]:
        from toyfamily.report import report_fields

        return report_fields(self.heads, self.output_dtype, self.level)

    def diagnose(self, report: Report) -> None:
        """Try the slips a slope table is known for, through the guarded call."""
        from toyfamily.report import diagnose

        diagnose(self, report)


def ToySuite(backend: str | Backend | Callable[..., Any], **options: Any) -> Suite:
    """The engine's Suite on a :class:`ToyRun` (the family's suite factory)."""
    return Suite(ToyRun(backend, **options))


def check(backend: str | Backend | Callable[..., Any], **options: Any) -> Report:
    """Run the toy suite on ``backend`` in this process and return the report."""
    return ToySuite(backend, **options).run()
