"""The toy family's run for pespec's engine: plan, dispatch, report, diagnosis.

Everything here uses pespec's public engine names only: :class:`EngineRun` (backend loading
with this family's capabilities type and entry-point group, profile, stages, level claim,
guarded call with its timeout, the suite factory and check function), the engine's contract
stage and validated call (:mod:`pespec.conformance.stage`), :class:`PlannedCheck` and the one
:class:`Report`.

Stages: ``contract`` (the engine's five items on a call with H = 8) and ``reference`` (every
slope of each H within one unit roundoff-pair of the exact slope: |x - y| ≤ 2^(1-p)·y, p the
precision of the level's dtype; one ulp, which any faithful pow/exp2 meets; decided exactly
by :func:`toyfamily.reference.within`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import BackendCapabilities
from pespec.conformance.chores import EngineRun, dtype_levels
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.guard import CallingConvention
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.stage import ContractStage, contract_plan
from toyfamily.config import THOROUGH_HEADS, parse_heads
from toyfamily.reference import slope, within

__all__ = ["PRECISION", "ToyCapabilities", "ToyRun", "ToySuite", "check", "load_toy_backend"]

PRECISION = {"float64": 53, "float32": 24}
"""The levels (the output dtype) and their precision p: the bound is 2^(1-p)·y."""


@dataclass(frozen=True)
class ToyCapabilities(BackendCapabilities):
    """What a toy backend declares: the shared fields and ``heads`` (the head counts it
    supports; None: any)."""

    heads: tuple[int, ...] | None = None
    calling_convention: ClassVar[CallingConvention] = CallingConvention(
        "backend(heads) -> array", (8,), "wrap it in a function (heads) -> array of the H slopes"
    )

    def check_fields(self) -> None:
        if self.heads is not None:
            object.__setattr__(self, "heads", parse_heads(self.heads))

    def check_level(self) -> None:
        if self.level is not None:
            dtype_levels(PRECISION).parse(self.level)

    def to_dict(self) -> dict[str, Any]:
        heads = None if self.heads is None else list(self.heads)
        return {**super().to_dict(), "heads": heads}


class ToyRun(EngineRun):
    """The toy family's run for one backend: the engine's chores and the slopes."""

    family = "toy"
    all_stages = ("contract", "reference")
    capabilities_type = ToyCapabilities
    entry_point_group = "toyfamily.backends"
    levels = dtype_levels(PRECISION)
    output_dtypes = tuple(PRECISION)

    def __init__(self, backend: Any, *, heads: Any = None, **options: Any) -> None:
        super().__init__(backend, describe=lambda h: f"heads={h!r}", **options)
        declared = self.backend.capabilities.heads  # type: ignore[attr-defined]
        wanted = parse_heads(heads or (THOROUGH_HEADS if self.profile == "thorough" else None))
        self.heads = tuple(h for h in wanted if declared is None or h in declared)
        if not self.heads:
            raise ValueError(f"heads {list(wanted)} are none of the declared {declared}")
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
        self.validated(out, (heads,), where=f"heads={heads}")
        return out

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        """Every slope of H against the exact one, within 2^(1-p)·y (decided exactly)."""
        heads = int(planned.payload)
        out = self.slopes(heads).astype(np.float64)
        r = Fraction(2, 2 ** PRECISION[self.level or "float64"])
        bad = [h for h in range(1, heads + 1) if not within(float(out[h - 1]), h, heads, r)]
        h = max(
            range(1, heads + 1), key=lambda h: abs(out[h - 1] - slope(h, heads)) / slope(h, heads)
        )
        ref = slope(h, heads)
        fields = {
            "max_error": abs(float(out[h - 1]) - ref),
            "bound": float(r) * ref,
            "worst_column": h - 1,
        }
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


ToySuite, check, load_toy_backend = ToyRun.suite, ToyRun.check, ToyRun.load
