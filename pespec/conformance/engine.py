"""The conformance engine: one :class:`Suite` runs any family's plan (SPEC §6.2–§6.3).

A family gives the engine a *run* (:class:`FamilyRun`): the backend, its guarded call, the
selected stages, the plan, how one planned check runs, the report fields only it knows, and
its diagnosis. The engine does what every family shares: it runs the plan one check at a time
(a misbehaving backend gives a failed check, never a crash), counts the backend calls and rows
of each check, builds the :class:`~pespec.conformance.report.Report`, turns Ctrl-C into a
partial report (:class:`Interrupted`) and attaches the diagnosis of a failed run, saying when
a diagnosis probe hung. The families are named in :mod:`pespec.families`; this module names
none, and no class subclasses :class:`Suite`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any, Protocol

from pespec.conformance.backends import Backend
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import BackendFailure, GuardedBackend, check_timeout
from pespec.conformance.guard import BACKEND_ERRORS, CallProtocolError
from pespec.conformance.report import CheckResult, Report
from pespec.conformance.stage import ContractStage
from pespec.conformance.timeouts import DEFAULT_TIMEOUT

__all__ = [
    "DEFAULT_TIMEOUT",
    "FAIL_FAST_CHECKS",
    "FAIL_FAST_STAGES",
    "INTERRUPTED",
    "FamilyRun",
    "Interrupted",
    "Progress",
    "Suite",
    "check_timeout",
    "fail_fast_reason",
    "select_stages",
    "unfinished_sentence",
]

INTERRUPTED = "interrupted (Ctrl-C) before this check finished"
"""The ``not_run`` reason of the checks an interrupted run did not finish."""

FAIL_FAST_CHECKS: tuple[str, ...] = ("contract:shape", "contract:dtype", "contract:finite")
"""The output-contract items whose failure stops a fail-fast run (SPEC R6.14): the verdict is
non-conformant already and every later numeric check would fail or compare a broken output."""

FAIL_FAST_STAGES: tuple[str, ...] = ("property", "large")
"""The stages a fail-fast run leaves out after a failed :data:`FAIL_FAST_CHECKS` item (the
golden stage, a few milliseconds, still runs: it names the fixtures the output breaks)."""

Progress = Callable[[PlannedCheck, CheckResult | None], None]
"""``progress(planned, None)`` before a check, ``progress(planned, result)`` after it."""


def select_stages(stages: Sequence[str], all_stages: Sequence[str]) -> tuple[str, ...]:
    """The stages chosen, in the family's order (the engine's one stage selection, for every
    family); ValueError naming the unknown ones and the family's stages."""
    unknown = [s for s in stages if s not in all_stages]
    if unknown:
        raise ValueError(f"stages must be a subset of {list(all_stages)}; got {unknown}")
    return tuple(s for s in all_stages if s in stages)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped :meth:`Suite.run`; ``report`` holds the checks that finished, the rest
    listed in ``not_run`` (so ``complete`` is false). A KeyboardInterrupt: it propagates."""

    def __init__(self, report: Report) -> None:
        super().__init__("the conformance run was interrupted")
        self.report = report


class FamilyRun(Protocol):
    """What one family gives the engine for one run (built by the family's suite factory)."""

    @property
    def family(self) -> str:
        """The family's name in :mod:`pespec.families` (the report's ``family``)."""
        ...

    @property
    def backend(self) -> Backend: ...

    @property
    def guard(self) -> GuardedBackend:
        """The guarded call (timeout, host conversion) every check and the diagnosis use."""
        ...

    @property
    def profile(self) -> str: ...

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages selected, in the order they run."""
        ...

    @property
    def all_stages(self) -> tuple[str, ...]:
        """Every stage of the family (the others are reported as not selected)."""
        ...

    def plan(self) -> list[PlannedCheck]:
        """Every check of the selected stages, in order, with stable ids."""
        ...

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        """Run one planned check (may raise BackendFailure or what the backend raised)."""
        ...

    def report_fields(self) -> dict[str, Any]:
        """The :class:`Report` keywords only the family knows: ``output_dtype``, ``level``,
        ``working_dtype`` and its own fields (see :class:`Report`)."""
        ...

    def diagnose(self, report: Report) -> None:
        """Attach the diagnosis of a non-conformant report, through :attr:`guard`; never
        raises for what the backend does."""
        ...


class Suite:
    """The planned checks of one family run, runnable one at a time or all together.

    ``run``: the family's :class:`FamilyRun` (a family's suite factory builds both, e.g.
    the default family's ``Suite``). Attributes the engine does not have are the
    run's (``suite.level``, ``suite.output_dtype``, ...): that delegation is the compatibility
    surface of the old per-family suite classes.
    """

    def __init__(self, run: FamilyRun) -> None:
        self.family_run = run
        self._plan: list[PlannedCheck] | None = None

    def __getattr__(self, name: str) -> Any:
        if name == "family_run" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.family_run, name)

    @property
    def family(self) -> str:
        """The family checked."""
        return self.family_run.family

    @property
    def backend(self) -> Backend:
        return self.family_run.backend

    @property
    def guard(self) -> GuardedBackend:
        return self.family_run.guard

    @property
    def profile(self) -> str:
        return self.family_run.profile

    @property
    def stages(self) -> tuple[str, ...]:
        return self.family_run.stages

    def plan(self) -> list[PlannedCheck]:
        """Every check of the selected stages, in suite order, with stable ids (cached)."""
        if self._plan is None:
            self._plan = self.family_run.plan()
        return list(self._plan)

    def run_check(self, planned: PlannedCheck) -> CheckResult:
        """Run one planned check; a misbehaving backend gives a failed result, never an error."""
        start = time.perf_counter()
        guard = self.guard
        calls, rows = guard.calls, guard.rows
        contract = getattr(self.family_run, "contract", None)
        try:
            if planned.stage == "contract" and isinstance(contract, ContractStage):
                result = contract.result(planned)  # the engine's one contract stage
            else:
                result = self.family_run.dispatch(planned)
        except CallProtocolError:  # not a verdict: the object is no backend (exit 2)
            raise
        except BackendFailure as failure:
            result = planned.result("failed", failure.message)
        except BACKEND_ERRORS as exc:  # the suite must report, not crash, whatever the backend did
            result = planned.result("failed", f"check raised {type(exc).__name__}: {exc}".strip())
        result.duration_s = time.perf_counter() - start
        result.details["backend_calls"] = guard.calls - calls
        result.details["backend_rows"] = guard.rows - rows
        return result

    def run(self, progress: Progress | None = None, *, diagnose: bool = True) -> Report:
        """Run every planned check in order and build the report.

        ``progress(planned, None)`` is called before each check and
        ``progress(planned, result)`` after it. When a check failed and ``diagnose`` is
        true, the diagnosis (SPEC Annex D) is added. Ctrl-C raises :class:`Interrupted` (a
        KeyboardInterrupt) carrying the partial report.
        """
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        clock = time.perf_counter()
        results: list[CheckResult] = []
        stopped: str | None = None  # the failed contract item that stopped a fail-fast run
        left_out: list[PlannedCheck] = []
        try:
            for planned in self.plan():
                if stopped is not None and planned.stage in FAIL_FAST_STAGES:
                    left_out.append(planned)
                    continue
                if progress is not None:
                    progress(planned, None)
                result = self.run_check(planned)
                results.append(result)
                if progress is not None:
                    progress(planned, result)
                if stopped is None and self._stops(result):
                    stopped = result.id
        except KeyboardInterrupt:
            partial = self.report(results, started, time.perf_counter() - clock)
            done = {r.id for r in results} | {p.id for p in left_out}
            for planned in self.plan():
                if planned.id not in done:
                    partial.not_run[planned.id] = INTERRUPTED
            raise Interrupted(partial) from None
        report = self.report(results, started, time.perf_counter() - clock)
        for planned in left_out:  # listed by stage, as a stage not selected is (SPEC R6.16)
            report.not_run[f"{planned.stage}:*"] = fail_fast_reason(stopped)
        if diagnose and report.failed:  # nothing failed (e.g. no golden ran): nothing to explain
            self._diagnose_counted(report)
        return report

    def _stops(self, result: CheckResult) -> bool:
        """True when ``result`` is a failed output-contract item and the run fails fast."""
        fail_fast = bool(getattr(self.family_run, "fail_fast", False))
        return fail_fast and result.status == "failed" and result.id in FAIL_FAST_CHECKS

    def _diagnose_counted(self, report: Report) -> None:
        """:meth:`diagnose`, its calls and rows counted, a hung probe told."""
        guard = self.guard
        calls, rows, hung = guard.calls, guard.rows, guard.hung
        try:
            self.diagnose(report)
        except KeyboardInterrupt:  # every check ran: the report is complete, unexplained
            report.diagnosis_sentence = "diagnosis interrupted (Ctrl-C)"
            raise Interrupted(report) from None
        if guard.hung and not hung:  # a diagnosis probe hung: say what is missing
            report.diagnosis_sentence = unfinished_sentence(
                report.diagnosis_sentence, guard.hung_message
            )
        counts = report.backend_calls if report.backend_calls is not None else {}
        for key, made in (
            ("diagnosis_calls", guard.calls - calls),
            ("diagnosis_rows", guard.rows - rows),
        ):
            counts[key] = counts.get(key, 0) + made  # plus calls made outside the guard
        report.backend_calls = counts

    def diagnose(self, report: Report) -> None:
        """Attach the family's diagnosis (SPEC Annex D) to a non-conformant report."""
        self.family_run.diagnose(report)

    def report(self, results: list[CheckResult], started: str, duration: float) -> Report:
        """A :class:`Report` of ``results`` for this backend."""
        run, backend, guard = self.family_run, self.backend, self.guard
        return Report(
            backend=backend.name,
            backend_spec=backend.spec,
            device=backend.device,
            capabilities=backend.capabilities.to_dict(),
            profile=run.profile,
            checks=results,
            timestamp=started,
            duration_s=duration,
            libraries=dict(backend.libraries),
            not_run={f"{s}:*": "stage not selected" for s in run.all_stages if s not in run.stages},
            backend_calls={"suite_calls": guard.calls, "suite_rows": guard.rows},
            **{"family": run.family, **run.report_fields()},
        )


def fail_fast_reason(check_id: str | None) -> str:
    """The ``not_run`` reason of a stage a fail-fast run left out after ``check_id`` failed."""
    return (
        f"not run: {check_id} failed, so the verdict is non-conformant already "
        "(fail fast, SPEC R6.14; --no-fail-fast runs every stage)"
    )


def unfinished_sentence(sentence: str | None, why: str | None) -> str:
    """``sentence`` (what the diagnosis found) followed by why it could not finish: a probe
    call timed out, so the guard made no later call and the finding rests on fewer probes."""
    found = (sentence or "").strip().rstrip(".")
    reason = why or "a diagnosis probe did not return in time"
    tail = f"the diagnosis could not finish: {reason}, so its later probes were not made."
    return f"{found}; {tail}" if found else tail[0].upper() + tail[1:]
