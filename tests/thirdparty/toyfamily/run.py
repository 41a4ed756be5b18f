"""The toy family's run for pespec's engine: what it checks, the rest declared as data.

Everything here uses pespec's public engine names only: :class:`EngineRun` does the chores
(backend loading with the capabilities type it makes from :attr:`ToyRun.declares`, profile,
stages, level claim, the guarded and validated call, the engine's contract stage on
``contract_args``, a check per item of each of ``checks``, the suite factory, check function and
loader named by :mod:`toyfamily.family`); the report fields and diagnosis are
:mod:`toyfamily.report`'s.

Stages: ``contract`` (the engine's five items on a call with H = 8) and ``reference`` (every
slope of each H within one unit roundoff-pair of the exact slope: |x - y| ≤ 2^(1-p)·y, p the
precision of the level's dtype; one ulp, which any faithful pow/exp2 meets; decided exactly
by :func:`toyfamily.reference.within`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from pespec.conformance.chores import EngineRun, PerItem, dtype_levels
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.guard import CallingConvention
from pespec.conformance.report import CheckResult
from toyfamily.config import THOROUGH_HEADS, parse_heads
from toyfamily.reference import slope, within

__all__ = ["PRECISION", "ToyRun"]

PRECISION = {"float64": 53, "float32": 24}
"""The levels (the output dtype) and their precision p: the bound is 2^(1-p)·y."""


class ToyRun(EngineRun):
    """The toy family's run for one backend: the slopes of the head counts ``heads`` (default:
    the profile's, narrowed to the backend's declared ``heads``)."""

    family = "toy"
    entry_point_group = "toyfamily.backends"
    levels = dtype_levels(PRECISION)
    output_dtypes = tuple(PRECISION)
    declares: ClassVar = {"heads": parse_heads}  # a capability: the head counts it supports
    calling_convention = CallingConvention(
        "backend(heads) -> array",
        (8,),
        "wrap it in a function (heads) -> array of the H slopes",
        describe=lambda h: f"heads={h!r}",
    )
    contract_args = (8,)  # the engine's contract stage on backend(8)
    contract_section = "toy §1"
    contract_rules: ClassVar = {"shape": "returns the H slopes, shape (H,)"}
    checks = (PerItem("reference:heads-{}", "the {} slopes", "toy §2", "heads"),)
    hooks = "toyfamily.report"

    def __init__(self, backend: Any, *, heads: Any = None, **options: Any) -> None:
        super().__init__(backend, **options)
        declared = self.backend.capabilities.heads  # type: ignore[attr-defined]
        wanted = parse_heads(heads or (THOROUGH_HEADS if self.profile == "thorough" else None))
        self.heads = tuple(h for h in wanted if declared is None or h in declared)
        if not self.heads:
            raise ValueError(f"heads {list(wanted)} are none of the declared {declared}")

    def output_shape(self, *args: Any) -> tuple[int, ...]:
        return (int(args[0]),)  # the H slopes of backend(H)

    def check_reference(self, planned: PlannedCheck) -> CheckResult:
        """Every slope of H against the exact one, within 2^(1-p)·y (decided exactly)."""
        heads = int(planned.payload)
        out = self.call(heads).astype(np.float64)
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
