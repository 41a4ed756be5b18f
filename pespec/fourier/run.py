"""The Fourier family's run for the engine (SPEC §10.7): contract, golden, reference, property.

A backend is called ``backend(x, config) -> (n, D)``: x an (n, k) float64 array of real inputs
(k = ``config.in_dims``), ``config`` the :class:`~pespec.fourier.convention.FourierConvention`
judged; it returns float64, float32, float16 or bfloat16 (the level claimed, unless ``--level`` says
more; float16 and bfloat16 are a float32 table cast, SPEC §10.4 F6).

Stages: ``contract`` (shape, dtype, finite, the same twice, x unchanged), ``golden`` (the
preset's certified set, SPEC §10.8, when the convention is a preset's), ``reference`` (every
element of the suite's inputs within the error model's tolerance of the certified oracle,
SPEC §10.4-§10.5) and ``property`` (SPEC §10.6).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend, BackendCapabilities
from pespec.conformance.chores import EngineRun, dtype_levels
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.guard import CallingConvention
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.stage import ContractStage, contract_plan
from pespec.fourier.convention import FourierConvention
from pespec.fourier.errormodel import LEVELS, tolerance
from pespec.fourier.inputs import ROWS, suite_inputs
from pespec.fourier.oracle import oracle_encode
from pespec.fourier.presets import convention_from
from pespec.fourier.properties import PROPERTIES, applicable, evaluate

__all__ = [
    "ENTRY_POINT_GROUP",
    "FAMILY",
    "FOURIER_CALL",
    "STAGES",
    "FourierCapabilities",
    "FourierRun",
    "FourierSuite",
    "check",
    "compare",
    "load_fourier_backend",
]

FAMILY = "fourier"
STAGES = ("contract", "golden", "reference", "property")
ENTRY_POINT_GROUP = "pespec.fourier_backends"
F64 = NDArray[np.float64]

FOURIER_CALL = CallingConvention(
    "backend(x, config) -> array",
    (np.zeros((2, 1)), "config"),
    "wrap it in a function (x (n, k) float64, config) -> (n, D) array",
)


@dataclass(frozen=True)
class FourierCapabilities(BackendCapabilities):
    """What a Fourier backend declares: the shared fields and ``config`` (the convention it
    implements, a preset name or a dict; None: the one ``--config`` names)."""

    config: Any = None
    calling_convention: ClassVar[CallingConvention] = FOURIER_CALL

    def check_level(self) -> None:
        if self.level is not None and self.level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {self.level!r}")

    def to_dict(self) -> dict[str, Any]:
        config = (
            self.config.to_dict() if isinstance(self.config, FourierConvention) else self.config
        )
        return {**super().to_dict(), "config": config}


def _describe(x: Any, conv: Any) -> str:
    shape = getattr(x, "shape", None)
    return f"x of shape {shape}, config {getattr(conv, 'name', conv)!r}"


def compare(out: F64, want: F64, bound: F64) -> dict[str, Any]:
    """The worst element of |out − want| against ``bound`` (all (n, D)): its fields for a
    :class:`CheckResult` and the count of violations."""
    error = np.abs(out - want)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(error == 0, 0.0, error / bound)
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    return {
        "max_error": float(error[r, c]),
        "bound": float(bound[r, c]),
        "worst_position": int(r),
        "worst_column": int(c),
        "details": {"max_ratio": float(ratio[r, c]), "violations": int(np.sum(error > bound))},
    }


class FourierRun(EngineRun):
    """The Fourier family's run for one backend: the engine's chores (:class:`EngineRun`)
    and the convention."""

    family = FAMILY
    all_stages = STAGES
    capabilities_type = FourierCapabilities
    entry_point_group = ENTRY_POINT_GROUP
    levels = dtype_levels(LEVELS)
    output_dtypes = tuple(LEVELS)

    def __init__(
        self, backend: str | Backend | Callable[..., Any], *, config: Any = None, **options: Any
    ) -> None:
        """``options``: the engine's (level, profile, timeout, stages; :class:`EngineRun`)."""
        super().__init__(backend, describe=_describe, **options)
        caps = self.backend.capabilities
        assert isinstance(caps, FourierCapabilities)
        chosen = config if config is not None else caps.config
        if chosen is None:
            raise ValueError("config is needed: a fourier preset name, a dict or a JSON file")
        self.conv = convention_from(chosen)
        self.x = suite_inputs(self.conv, ROWS.get(self.profile, 64))
        self.contract = ContractStage(self.guard, self.encode, self.x[:8])
        self._want: F64 | None = None

    def plan(self) -> list[PlannedCheck]:
        planned = []
        if "contract" in self.stages:
            planned += contract_plan("§10.7", CONTRACT_RULES)
        if "golden" in self.stages:
            from pespec.fourier.golden import fixture_for

            fixture = fixture_for(self.conv)
            if fixture is not None:
                title = f"the certified set {fixture.name}"
                planned.append(
                    PlannedCheck(f"golden:{fixture.name}", "golden", title, "§10.8", fixture)
                )
        if "reference" in self.stages:
            title = f"{len(self.x)} inputs in {list(self.conv.domain)} against the oracle"
            planned.append(PlannedCheck("reference:domain", "reference", title, "§10.4"))
        if "property" in self.stages:
            planned += [
                PlannedCheck(f"property:{p}", "property", PROPERTIES[p].statement, "§10.6", p)
                for p in applicable(self.conv)
            ]
        return planned

    def encode(self, x: F64) -> F64:
        """The backend's output at ``x``, validated (BackendFailure otherwise), as float64."""
        sent = np.array(x, dtype=np.float64)
        out = self.guard.raw_call(sent, self.conv)
        self.validated(out, (x.shape[0], self.conv.width), where=_describe(sent, self.conv))
        return np.asarray(out, dtype=np.float64)

    def want(self) -> F64:
        """The oracle's values at the suite's inputs (computed once)."""
        if self._want is None:
            self._want = oracle_encode(self.x, self.conv)
        return self._want

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        if planned.stage == "golden":
            fixture = planned.payload
            return self.judge(planned, fixture.x, fixture.values)
        if planned.stage == "reference":
            return self.judge(planned, self.x, self.want())
        return self.judge_property(planned, str(planned.payload))

    def judge(self, planned: PlannedCheck, x: F64, want: F64) -> CheckResult:
        """Every element at ``x`` against ``want`` within the tolerance (SPEC §10.4)."""
        out = self.encode(x)
        fields = compare(out, want, tolerance(x, self.conv, self.level or "float64", want))
        bad = fields["details"]["violations"]
        if bad:
            message = f"{bad} of {out.size} elements beyond the error bound"
            return planned.result("failed", message, **fields)
        return planned.result("passed", f"all {out.size} elements within the bound", **fields)

    def judge_property(self, planned: PlannedCheck, name: str) -> CheckResult:
        """Property ``name`` on the backend's output at the suite's inputs."""
        out = self.encode(self.x)
        holds, residual, bound, where = evaluate(
            name, out, self.x, self.conv, self.level or "float64"
        )
        fields: dict[str, Any] = {"max_error": residual, "bound": bound}
        if where is not None:
            fields["worst_position"] = where[0]
        if holds:
            return planned.result("passed", f"holds (worst residual {residual:.3g})", **fields)
        return planned.result("failed", f"fails: residual {residual:.3g} > {bound:.3g}", **fields)

    def report_fields(self) -> dict[str, Any]:
        from pespec.fourier.report import report_fields

        return report_fields(self.conv, self.output_dtype, self.level)

    def diagnose(self, report: Report) -> None:
        """Name the convention axis the backend's values follow instead (SPEC §10.9)."""
        from pespec.fourier.diagnosis import diagnose

        diagnose(self, report)


CONTRACT_RULES = {
    "shape": "returns an array of shape (n, D)",
    "dtype": "output dtype is a level's (float64, float32, float16, bfloat16) and stays the same",
}


FourierSuite, check, load_fourier_backend = FourierRun.suite, FourierRun.check, FourierRun.load
"""The family's suite factory, check function and backend loader (the engine's, on a
:class:`FourierRun`)."""
