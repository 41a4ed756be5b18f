"""The sinusoidal conformance suite: plan, run, verdict (SPEC §6.2–§6.3).

Stages, in order:

1. ``contract``: shape, dtype, finiteness, determinism, input not mutated;
2. ``golden``: the frozen golden fixtures, the primary verdict;
3. ``property``: the Hypothesis properties of :mod:`pespec.sinusoidal.properties` at the backend's
   level (derandomized in the ``ci`` profile);
4. ``large``: large configurations (L up to 131072, d_model up to 4096) compared in row
   blocks against the exact float64 reference, with bounded memory.

:func:`Suite` builds the engine's :class:`~pespec.conformance.engine.Suite` on this family's
run, :class:`SinusoidalRun`: it plans the checks (stable ids such as ``golden:tiny`` or
``property:norm``), runs one (the contract probes, level resolution, golden/property/large
dispatch) and diagnoses a failed run, so the CLI, the pytest plugin and :func:`check` run
exactly the same checks and reach the same verdict. The engine runs the plan (a misbehaving
backend gives a failed check, Ctrl-C a partial report); the plan is
:mod:`~pespec.sinusoidal.suite_plan`, the checks :mod:`~pespec.sinusoidal.comparison_stages`
and :mod:`~pespec.sinusoidal.property_stage`, their one-line reproductions
:mod:`~pespec.sinusoidal.reproductions`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.engine import (
    DEFAULT_TIMEOUT,
    INTERRUPTED,
    Interrupted,
    Progress,
    check_timeout,
    select_stages,
)
from pespec.conformance.engine import Suite as EngineSuite
from pespec.conformance.guard import BACKEND_ERRORS
from pespec.conformance.profiles import resolve_profile
from pespec.conformance.report import CheckResult, Report
from pespec.numerics.validation import check_non_negative_int
from pespec.sinusoidal.comparison_stages import golden_check, large_check
from pespec.sinusoidal.contract import SinusoidalContract, sinusoidal_guard
from pespec.sinusoidal.failure_named import name_failures
from pespec.sinusoidal.loading import load_backend
from pespec.sinusoidal.properties.base import Level, check_claimable, parse_level
from pespec.sinusoidal.property_stage import PropertyStage
from pespec.sinusoidal.reference.conventions import CANONICAL, Convention
from pespec.sinusoidal.reference.validation import check_d_model
from pespec.sinusoidal.report import report_fields
from pespec.sinusoidal.reproductions import Reproductions
from pespec.sinusoidal.suite_plan import make_plan

__all__ = [
    "DEFAULT_TIMEOUT",
    "INTERRUPTED",
    "LARGE_SIZES",
    "STAGES",
    "Interrupted",
    "PlannedCheck",
    "SinusoidalRun",
    "Suite",
    "check",
]

STAGES: tuple[str, ...] = ("contract", "golden", "property", "large")
"""The suite's stages, in the order they run."""

LARGE_SIZES: dict[str, tuple[tuple[int, int], ...]] = {
    "ci": ((131072, 64), (8192, 4096)),
    "dev": ((131072, 64), (8192, 4096)),
    "thorough": ((131072, 4096),),
}
"""(L, d_model) of the large stage per profile: positions 0 .. L−1, base 10000 (SPEC §6.2)."""

# ---------------------------------------------------------------------------------------------
# The suite


class SinusoidalRun:
    """The sinusoidal family's run for the engine's Suite: one backend's plan and checks.

    ``backend``: a spec string, a callable or a :class:`Backend`. ``level``: force a level
    (``"float16"``, ``"float16@float64"``); default: the backend's claimed level, else the
    default level of its output dtype. ``profile``: ``ci`` (default, derandomized), ``dev`` or
    ``thorough``. ``timeout``: seconds per backend call. ``stages``: a subset of
    :data:`STAGES`. ``examples``: override the profile's Hypothesis example count.
    ``large_sizes``: override the (L, d_model) list of the large stage. ``shrink``: let
    Hypothesis shrink a failing property example to a minimal one (slower on failure).
    ``fail_fast``: after a failed output contract (shape, dtype, finite values) run no
    property or large check (SPEC R6.14; ``pespec check`` does, unless ``--no-fail-fast``).
    ``convention``: the convention to judge against (a preset name, a JSON file of
    ``Convention.to_dict()``, or a Convention); default: the backend's declared
    ``convention`` capability, else canonical (SPEC §6.1).
    """

    family = "sinusoidal"
    all_stages = STAGES

    def __init__(
        self,
        backend: str | Backend | Callable[..., Any],
        *,
        level: str | Level | None = None,
        profile: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        stages: Sequence[str] = STAGES,
        examples: int | None = None,
        large_sizes: Sequence[tuple[int, int]] | None = None,
        shrink: bool = True,
        convention: str | Convention | None = None,
        fail_fast: bool = False,
    ) -> None:
        from pespec.sinusoidal.declared import resolve_convention

        self.backend = load_backend(backend)
        declared = convention if convention is not None else self.backend.capabilities.convention
        self.convention_declared = declared is not None
        self.convention: Convention = (
            CANONICAL if declared is None else resolve_convention(declared)
        )
        self.shrink = bool(shrink)
        self.fail_fast = bool(fail_fast)
        self.profile = resolve_profile(profile)
        self.stages = select_stages(stages, STAGES)
        check_timeout(timeout)  # before the rest, as the engine's guard would
        if examples is not None and (
            isinstance(examples, bool) or not isinstance(examples, int) or examples < 1
        ):
            raise ValueError(f"examples must be a positive int; got {examples!r}")
        self.examples = examples
        self.large_sizes = tuple(
            (
                check_non_negative_int(length, "large_sizes[][0]"),
                check_d_model(d, "large_sizes[][1]"),
            )
            for length, d in (LARGE_SIZES[self.profile] if large_sizes is None else large_sizes)
        )
        if isinstance(level, str):
            level = parse_level(level)
        elif level is not None:
            check_claimable(level)
        self.requested_level: Level | None = level or self.backend.capabilities.claimed_level()
        self.guard = sinusoidal_guard(
            self.backend,
            timeout=float(timeout),
            expected_dtype=None
            if self.requested_level is None
            else self.requested_level.output_dtype,
        )
        self.property_outputs: dict[tuple[bytes, str, int, float], NDArray[Any]] = {}
        """Property-stage outputs kept for reuse, by request (positions, dtype, d_model, base)."""
        self.contract = SinusoidalContract(self)
        """The engine's contract stage on this family's probes (evaluated once)."""
        self.output_dtype: str | None = None
        self.level: Level | None = self.requested_level

    # -- the engine's hooks ---------------------------------------------------------------

    def plan(self) -> list[PlannedCheck]:
        """Every check of the selected stages, in suite order, with stable ids."""
        return make_plan(self.stages, self.convention, self.convention_declared, self.large_sizes)

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        """Run one planned check (the engine turns a misbehaving backend into a failure)."""
        return self._dispatch(planned)

    def report_fields(self) -> dict[str, Any]:
        """The level, the dtypes and the convention judged against, for the report."""
        convention = {**self.convention.to_dict(), "declared": self.convention_declared}
        return {
            "output_dtype": self.output_dtype
            or (None if self.level is None else self.level.output_dtype),
            "level": None if self.level is None else self.level.name,
            "working_dtype": None if self.level is None else self.level.working_dtype,
            **report_fields(convention),
        }

    def diagnose(self, report: Report) -> None:
        """Attach the diagnosis (SPEC Annex D) to a non-conformant report; never raises."""
        self._diagnose(report)
        name_failures(report, self)  # measured base; what failed when no cause (issue 27)

    # -- internals -----------------------------------------------------------------------

    @property
    def reproductions(self) -> Reproductions:
        """The one-line reproductions of this suite's failing checks."""
        return Reproductions(self.backend.spec, self.convention, self.convention_declared)

    def _property_stage(self) -> PropertyStage:
        return PropertyStage(
            self.guard,
            self.backend.capabilities,
            self.convention,
            self.profile,
            self.examples,
            self.shrink,
            self.property_outputs,
            self.reproductions,
        )

    def _result(self, planned: PlannedCheck, status: str, message: str, **kw: Any) -> CheckResult:
        return planned.result(status, message, **kw)

    def _dispatch(self, planned: PlannedCheck) -> CheckResult:
        if planned.stage == "contract":
            return self.contract.result(planned)
        level = self._resolve_level()
        if level is None:
            why = (
                "the backend hung"
                if self.guard.hung
                else "the contract probes gave no output of a dtype pespec knows"
            )
            return self._result(
                planned,
                "failed",
                f"no level to test against: {why} and no level was given or claimed",
            )
        if planned.stage == "golden":
            return golden_check(self, planned, level)
        if planned.stage == "property":
            return self._property_stage().check(planned, level)
        return large_check(self, planned, level)

    def backend_dtype(self) -> np.dtype[Any]:
        """The NumPy dtype of the backend's output (after the contract probes)."""
        from pespec.sinusoidal.properties.base import DTYPES

        return DTYPES[self.output_dtype or "float64"]

    def _resolve_level(self) -> Level | None:
        """The level under test; the contract probes find it unless it is already fixed."""
        if self.level is None or "contract" in self.stages:
            self.contract.evaluated()
        return self.level

    def _diagnose(self, report: Report) -> None:
        """Attach the diagnosis (SPEC Annex D) to a non-conformant report; never raises."""
        try:
            from pespec.sinusoidal.diagnosis import diagnose
        except ImportError:
            return
        if self.level is None or self.guard.hung:
            return
        try:
            diagnosis = diagnose(
                self.guard.raw_call,  # timeout-protected, unvalidated: diagnosis reads raw output
                level=self.level,
                integer_positions_only=self.backend.capabilities.integer_positions_only,
                max_position=self.backend.capabilities.max_position,
                bases=self.backend.capabilities.bases,
                max_d_model=self.backend.capabilities.max_d_model,
                declared=self.convention if self.convention_declared else None,
            )
            report.diagnosis = diagnosis.to_dict()
            report.diagnosis_sentence = diagnosis.sentence()
        except BACKEND_ERRORS as exc:  # diagnosis is advice; it must never hide the verdict
            report.diagnosis_sentence = f"diagnosis unavailable ({type(exc).__name__}: {exc})"


def Suite(  # the class it was; the engine's Suite now
    backend: str | Backend | Callable[..., Any],
    *,
    level: str | Level | None = None,
    profile: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    stages: Sequence[str] = STAGES,
    examples: int | None = None,
    large_sizes: Sequence[tuple[int, int]] | None = None,
    shrink: bool = True,
    convention: str | Convention | None = None,
    fail_fast: bool = False,
) -> EngineSuite:
    """The sinusoidal suite of ``backend``: the engine's
    :class:`~pespec.conformance.engine.Suite` on a :class:`SinusoidalRun` (see it for the
    arguments). A factory since issue 25; the class is ``pespec.conformance.engine.Suite``."""
    return EngineSuite(
        SinusoidalRun(
            backend,
            level=level,
            profile=profile,
            timeout=timeout,
            stages=stages,
            examples=examples,
            large_sizes=large_sizes,
            shrink=shrink,
            convention=convention,
            fail_fast=fail_fast,
        )
    )


def check(
    backend: str | Backend | Callable[..., Any],
    *,
    level: str | Level | None = None,
    profile: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    stages: Sequence[str] = STAGES,
    examples: int | None = None,
    large_sizes: Sequence[tuple[int, int]] | None = None,
    shrink: bool = True,
    progress: Progress | None = None,
    diagnose: bool = True,
    convention: str | Convention | None = None,
    fail_fast: bool = False,
) -> Report:
    """Run the conformance suite on ``backend`` and return its :class:`Report`.

    The same checks, in the same order, as ``pespec check`` and the pytest plugin; see
    :class:`SinusoidalRun` for the arguments. Raises only for bad arguments (ValueError/TypeError)
    or a backend spec that cannot be loaded (:class:`BackendLoadError`).
    """
    suite = Suite(
        backend,
        level=level,
        profile=profile,
        timeout=timeout,
        stages=stages,
        examples=examples,
        large_sizes=large_sizes,
        shrink=shrink,
        convention=convention,
        fail_fast=fail_fast,
    )
    return suite.run(progress, diagnose=diagnose)
