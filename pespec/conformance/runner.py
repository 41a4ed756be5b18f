"""The conformance suite: plan, run, verdict (SPEC §9.2–§9.3).

Stages, in order:

1. ``contract``: shape, dtype, finiteness, determinism, input not mutated;
2. ``golden``: the frozen golden fixtures, the primary verdict;
3. ``property``: the Hypothesis properties of :mod:`pespec.properties` at the backend's
   level (derandomized in the ``ci`` profile);
4. ``large``: large configurations (L up to 131072, d_model up to 4096) compared in row
   blocks against the exact float64 reference, with bounded memory.

:class:`Suite` plans the checks (stable ids such as ``golden:tiny`` or ``property:norm``)
and runs them one at a time, so the CLI, the pytest plugin and :func:`check` run exactly
the same checks and reach the same verdict.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import (
    BACKEND_ERRORS,
    Backend,
    CallProtocolError,
    load_backend,
    protocol_error,
)
from pespec.conformance.compare import (
    BLOCK_ELEMENTS,
    EXACT_REFERENCE_LIMIT,
    FIXTURE_ERROR,
    REFERENCE_ERROR,
    SECTIONS,
    PlannedCheck,
    Worst,
    compare_blocks,
    compare_fixture,
    comparison_bound,
    comparison_result,
    is_canonical_fixture,
)
from pespec.conformance.contract import (
    CONTRACT_ITEMS,
    BackendFailure,
    GuardedBackend,
    contract_probes,
    probe_base,
    run_contract,
)
from pespec.conformance.report import CheckResult, Report
from pespec.properties.base import (
    EncodingConfig,
    Level,
    check_claimable,
    level_for_dtype,
    parse_level,
)
from pespec.properties.profiles import resolve_profile
from pespec.properties.ratio import reported_ratio
from pespec.reference.conventions import CANONICAL, Convention
from pespec.reference.validation import check_d_model, check_non_negative_int

if TYPE_CHECKING:
    from pespec.properties.registry import PropertyCheck

__all__ = [
    "DEFAULT_TIMEOUT",
    "LARGE_SIZES",
    "STAGES",
    "Interrupted",
    "PlannedCheck",
    "Suite",
    "check",
    "suite_table",
]

STAGES: tuple[str, ...] = ("contract", "golden", "property", "large")
"""The suite's stages, in the order they run."""

LARGE_SIZES: dict[str, tuple[tuple[int, int], ...]] = {
    "ci": ((131072, 64), (8192, 4096)),
    "dev": ((131072, 64), (8192, 4096)),
    "thorough": ((131072, 4096),),
}
"""(L, d_model) of the large stage per profile: positions 0 .. L−1, base 10000 (SPEC §9.2)."""

DEFAULT_TIMEOUT = 120.0
"""Seconds one backend call may take before it counts as hung."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped :meth:`Suite.run`; ``report`` holds the checks that finished, the rest
    listed in ``not_run`` (so ``complete`` is false). A KeyboardInterrupt: it propagates."""

    def __init__(self, report: Report) -> None:
        super().__init__("the conformance run was interrupted")
        self.report = report


INTERRUPTED = "interrupted (Ctrl-C) before this check finished"
"""The ``not_run`` reason of the checks an interrupted run did not finish."""


_MAX_KEPT_OUTPUTS = 256
"""Property-stage outputs kept for reuse (each at most 4096 elements, the strategies' limit)."""


class OutsideCapabilities(Exception):
    """A property wanted a call outside the backend's declared capabilities (example dropped)."""


# ---------------------------------------------------------------------------------------------
# The suite


class Suite:
    """The planned checks for one backend, runnable one at a time or all together.

    ``backend``: a spec string, a callable or a :class:`Backend`. ``level``: force a level
    (``"float16"``, ``"float16@float64"``); default: the backend's claimed level, else the
    default level of its output dtype. ``profile``: ``ci`` (default, derandomized), ``dev`` or
    ``thorough``. ``timeout``: seconds per backend call. ``stages``: a subset of
    :data:`STAGES`. ``examples``: override the profile's Hypothesis example count.
    ``large_sizes``: override the (L, d_model) list of the large stage. ``shrink``: let
    Hypothesis shrink a failing property example to a minimal one (slower on failure).
    ``convention``: the convention to judge against (a preset name, a JSON file of
    ``Convention.to_dict()``, or a Convention); default: the backend's declared
    ``convention`` capability, else canonical (SPEC §9.1).
    """

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
    ) -> None:
        from pespec.conformance.declared import resolve_convention

        self.backend = load_backend(backend)
        declared = convention if convention is not None else self.backend.capabilities.convention
        self.convention_declared = declared is not None
        self.convention: Convention = (
            CANONICAL if declared is None else resolve_convention(declared)
        )
        self.shrink = bool(shrink)
        self.profile = resolve_profile(profile)
        unknown = [s for s in stages if s not in STAGES]
        if unknown:
            raise ValueError(f"stages must be a subset of {list(STAGES)}; got unknown {unknown}")
        self.stages = tuple(s for s in STAGES if s in stages)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
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
        self.guard = GuardedBackend(
            self.backend,
            timeout=float(timeout),
            expected_dtype=None
            if self.requested_level is None
            else self.requested_level.output_dtype,
        )
        self._property_outputs: dict[tuple[bytes, str, int, float], NDArray[Any]] = {}
        self._contract: dict[str, tuple[bool, str]] | None = None
        self._contract_where: dict[str, Any] = {}
        self._plan: list[PlannedCheck] | None = None
        self.output_dtype: str | None = None
        self.level: Level | None = self.requested_level

    # -- planning ------------------------------------------------------------------------

    def plan(self) -> list[PlannedCheck]:
        """Every check of the selected stages, in suite order, with stable ids (cached)."""
        if self._plan is None:
            self._plan = self._make_plan()
        return list(self._plan)

    def _make_plan(self) -> list[PlannedCheck]:
        planned: list[PlannedCheck] = []
        if "contract" in self.stages:
            planned += [
                PlannedCheck(f"contract:{item}", "contract", rule, SECTIONS["contract"])
                for item, rule in CONTRACT_ITEMS.items()
            ]
        if "golden" in self.stages:
            from pespec.reference.golden import load_fixture_sets

            for fixture in load_fixture_sets():
                if fixture.convention == self.convention:
                    title = fixture.description
                elif is_canonical_fixture(fixture) and not fixture.name.startswith("convention-"):
                    title = (
                        f"{fixture.description}; values certified by the oracle for "
                        f"convention {self.convention.name!r}"
                    )
                else:
                    continue
                planned.append(
                    PlannedCheck(
                        f"golden:{fixture.name}", "golden", title, SECTIONS["golden"], fixture
                    )
                )
            if self.convention_declared:
                planned.append(
                    PlannedCheck(
                        "golden:timesteps",
                        "golden",
                        "fractional diffusion timesteps in the backend's range, d_model=256, "
                        "values certified by the oracle",
                        SECTIONS["golden"],
                        None,
                    )
                )
        if "property" in self.stages:
            from pespec.properties.registry import PROPERTIES

            for name, prop in PROPERTIES.items():
                planned.append(
                    PlannedCheck(
                        f"property:{name}", "property", prop.statement, f"§{prop.section}", prop
                    )
                )
        if "large" in self.stages:
            for length, d_model in self.large_sizes:
                planned.append(
                    PlannedCheck(
                        f"large:{length}x{d_model}",
                        "large",
                        f"positions 0..{length - 1}, d_model={d_model}, base 10000 against "
                        "the exact reference",
                        SECTIONS["large"],
                        (length, d_model),
                    )
                )
        return planned

    # -- running -------------------------------------------------------------------------

    def run_check(self, planned: PlannedCheck) -> CheckResult:
        """Run one planned check; a misbehaving backend gives a failed result, never an error."""
        start = time.perf_counter()
        calls, rows = self.guard.calls, self.guard.rows
        try:
            result = self._dispatch(planned)
        except CallProtocolError:  # not a verdict: the object is no backend (exit 2)
            raise
        except BackendFailure as failure:
            result = self._result(planned, "failed", failure.message)
        except BACKEND_ERRORS as exc:  # the suite must report, not crash, whatever the backend did
            result = self._result(
                planned, "failed", f"check raised {type(exc).__name__}: {exc}".strip()
            )
        result.duration_s = time.perf_counter() - start
        result.details["backend_calls"] = self.guard.calls - calls
        result.details["backend_rows"] = self.guard.rows - rows
        return result

    def run(
        self,
        progress: Callable[[PlannedCheck, CheckResult | None], None] | None = None,
        *,
        diagnose: bool = True,
    ) -> Report:
        """Run every planned check in order and build the report.

        ``progress(planned, None)`` is called before each check and
        ``progress(planned, result)`` after it. When a check failed and ``diagnose`` is
        true, the diagnosis (SPEC §10) is added. Ctrl-C raises :class:`Interrupted` (a
        KeyboardInterrupt) carrying the partial report.
        """
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        clock = time.perf_counter()
        results: list[CheckResult] = []
        try:
            for planned in self.plan():
                if progress is not None:
                    progress(planned, None)
                result = self.run_check(planned)
                results.append(result)
                if progress is not None:
                    progress(planned, result)
        except KeyboardInterrupt:
            partial = self.report(results, started, time.perf_counter() - clock)
            for planned in self.plan()[len(results) :]:
                partial.not_run[planned.id] = INTERRUPTED
            raise Interrupted(partial) from None
        report = self.report(results, started, time.perf_counter() - clock)
        if diagnose and report.failed:  # nothing failed (e.g. no golden ran): nothing to explain
            calls, rows = self.guard.calls, self.guard.rows
            try:
                self._diagnose(report)
            except KeyboardInterrupt:  # every check ran: the report is complete, unexplained
                report.diagnosis_sentence = "diagnosis interrupted (Ctrl-C)"
                raise Interrupted(report) from None
            counts = report.backend_calls if report.backend_calls is not None else {}
            for key, made in (("diagnosis_calls", self.guard.calls - calls),
                              ("diagnosis_rows", self.guard.rows - rows)):
                counts[key] = counts.get(key, 0) + made  # plus calls made outside the guard
            report.backend_calls = counts
        return report

    def report(self, results: list[CheckResult], started: str, duration: float) -> Report:
        """A :class:`Report` of ``results`` for this backend."""
        return Report(
            backend=self.backend.name,
            backend_spec=self.backend.spec,
            device=self.backend.device,
            capabilities=self.backend.capabilities.to_dict(),
            output_dtype=self.output_dtype
            or (None if self.level is None else self.level.output_dtype),
            level=None if self.level is None else self.level.name,
            working_dtype=None if self.level is None else self.level.working_dtype,
            profile=self.profile,
            checks=results,
            timestamp=started,
            duration_s=duration,
            libraries=dict(self.backend.libraries),
            not_run={
                f"{stage}:*": "stage not selected" for stage in STAGES if stage not in self.stages
            },
            convention={**self.convention.to_dict(), "declared": self.convention_declared},
            backend_calls={"suite_calls": self.guard.calls, "suite_rows": self.guard.rows},
        )

    # -- internals -----------------------------------------------------------------------

    def _result(self, planned: PlannedCheck, status: str, message: str, **kw: Any) -> CheckResult:
        return CheckResult(
            id=planned.id,
            stage=planned.stage,
            title=planned.title,
            section=planned.section,
            status=status,
            message=message,
            **kw,
        )

    def _dispatch(self, planned: PlannedCheck) -> CheckResult:
        if planned.stage == "contract":
            return self._contract_check(planned)
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
            return self._golden_check(planned, level)
        if planned.stage == "property":
            return self._property_check(planned, level)
        return self._large_check(planned, level)

    def _ensure_contract(self) -> dict[str, tuple[bool, str]]:
        if self._contract is None:
            caps = self.backend.capabilities
            probes = contract_probes(caps, base=probe_base(caps.bases))
            failures: list[BackendFailure] = []
            contract, output_dtype = run_contract(
                self.guard, probes, self._contract_where, failures
            )
            if output_dtype is None and failures:
                misfit = _returned_misfit(self.backend.fn, failures[0])
                if misfit is not None:
                    raise protocol_error(self.backend.name, misfit)
            self._contract, self.output_dtype = contract, output_dtype
            if self.level is None and self.output_dtype is not None:
                self.level = level_for_dtype(self.backend_dtype())
            if self.level is not None:
                self.guard.expected_dtype = self.level.output_dtype
        return self._contract

    def backend_dtype(self) -> np.dtype[Any]:
        """The NumPy dtype of the backend's output (after the contract probes)."""
        from pespec.properties.base import DTYPES

        return DTYPES[self.output_dtype or "float64"]

    def _resolve_level(self) -> Level | None:
        """The level under test; the contract probes find it unless it is already fixed."""
        if self.level is None or "contract" in self.stages:
            self._ensure_contract()
        return self.level

    def _contract_check(self, planned: PlannedCheck) -> CheckResult:
        item = planned.id.partition(":")[2]
        passed, message = self._ensure_contract()[item]
        reproduction = None
        probe = self._contract_where.get(item)
        if not passed and probe is not None:  # the call that failed this item
            reproduction = self._call_reproduction(probe.positions, probe.d_model, probe.base)
        return self._result(
            planned, "passed" if passed else "failed", message, reproduction=reproduction
        )

    def _golden_check(self, planned: PlannedCheck, level: Level) -> CheckResult:
        from pespec.conformance.declared import certified_fixture

        if planned.payload is None:
            return self._timesteps_check(planned, level)
        fixture, undefined = certified_fixture(planned.payload, self.convention)
        if fixture is None:
            return self._result(planned, "skipped", f"not applicable: {undefined}")
        positions, rows, why_not = self._narrow(fixture)
        if why_not is not None:
            return self._result(planned, "skipped", why_not)
        output = self.guard(positions, int(fixture.d_model), float(fixture.base))
        worst = compare_fixture(output, fixture, rows, positions, level)
        return self._comparison_result(
            planned, worst, int(fixture.d_model), float(fixture.base), level
        )

    def _narrow(self, fixture: Any) -> tuple[NDArray[Any], NDArray[np.intp], str | None]:
        """The fixture's positions (and their row indices) inside the declared capabilities."""
        caps = self.backend.capabilities
        positions = np.asarray(fixture.positions)
        rows = np.arange(positions.shape[0], dtype=np.intp)
        keep = caps.admits(positions)
        rows, positions = rows[keep], positions[keep]
        if caps.integer_positions_only and positions.dtype.kind == "f":
            positions = positions.astype(np.int64)
        if positions.size == 0:
            return positions, rows, "no fixture position is inside the declared capabilities"
        why_not = caps.accepts(positions, int(fixture.d_model), float(fixture.base))
        return positions, rows, why_not

    def _property_check(self, planned: PlannedCheck, level: Level) -> CheckResult:
        from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings
        from hypothesis.errors import Flaky, Unsatisfiable

        from pespec.properties.base import PropertyResult, PropertyViolation
        from pespec.properties.profiles import profile_name

        fn = planned.payload
        strategy = self._config_strategy(level)
        seen: dict[str, Any] = {}
        options: dict[str, Any] = {
            "verbosity": Verbosity.quiet,
            "report_multiple_bugs": False,
            "database": None,
            "suppress_health_check": list(HealthCheck),
        }
        if self.examples is not None:
            options["max_examples"] = self.examples
        if not self.shrink:
            options["phases"] = [p for p in Phase if p not in (Phase.shrink, Phase.explain)]

        # Each distinct request is made once per suite run (a table-based backend builds its
        # table per call); determinism compares a kept output with a fresh call.
        narrowed = _Narrowed(
            self.guard,
            self.backend.capabilities,
            self._property_outputs,
            fresh_repeats=fn.name == "determinism",
        )

        @settings(settings.get_profile(profile_name(self.profile)), **options)
        @given(strategy)
        def run(config: EncodingConfig) -> None:
            seen["config"] = config
            narrowed.used.clear()
            try:
                outcome = fn(narrowed, config, level)
            except PropertyViolation as violation:
                if isinstance(violation.__cause__, OutsideCapabilities):
                    reject()  # the property needs a call the backend declares it cannot take
                narrowed.forget_used()  # a repeat of a failing example calls the backend again
                raise
            if isinstance(outcome, PropertyResult):
                best = seen.get("worst")
                if best is None or _ratio(outcome) > _ratio(best):
                    seen["worst"] = outcome

        try:
            run()
        except Unsatisfiable:
            return self._result(
                planned,
                "skipped",
                "every configuration needs a call outside the declared capabilities",
            )
        except PropertyViolation as violation:
            return self._property_result(planned, violation.result, seen.get("config"), level)
        except BackendFailure as failure:
            config = seen.get("config")
            repro = None if config is None else self._property_reproduction(fn, config, level)
            return self._result(planned, "failed", failure.message, reproduction=repro)
        except Flaky as flaky:  # the same example failed, then passed when Hypothesis re-ran it
            return self._flaky_result(planned, flaky, seen.get("config"), level)
        worst = seen.get("worst")
        if worst is None:
            return self._result(
                planned, "passed", "holds on every example", details={"applicable": True}
            )
        result = self._property_result(planned, worst, None, level)
        result.status = "passed"
        result.details.setdefault("applicable", True)  # every §5 property holds for every
        return result  # convention of §3; only low_precision depends on the level (SPEC §5)

    def _flaky_result(
        self, planned: PlannedCheck, flaky: BaseException, config: Any, level: Level
    ) -> CheckResult:
        """A property whose failing example passed when re-run: the backend is not
        deterministic. Reports the first failure (its numbers and reproduction)."""
        from pespec.properties.base import PropertyViolation

        note = (
            "the backend is not deterministic: this example failed, then passed when "
            "Hypothesis called the backend again with the same inputs; the first failure: "
        )
        cause = _first_cause(flaky)
        if isinstance(cause, PropertyViolation):
            result = self._property_result(planned, cause.result, config, level)
            result.status = "failed"
            result.message = note + result.message
            return result
        repro = None
        if config is not None:
            repro = self._property_reproduction(planned.payload, config, level)
        if isinstance(cause, BackendFailure):
            text = cause.message
        else:
            text = f"{type(cause).__name__}: {cause}"
        return self._result(planned, "failed", note + text, reproduction=repro)

    def _property_result(
        self, planned: PlannedCheck, outcome: Any, config: EncodingConfig | None, level: Level
    ) -> CheckResult:
        fn = planned.payload
        return self._result(
            planned,
            "passed" if outcome.passed else "failed",
            outcome.message or ("holds" if outcome.passed else "violated"),
            max_error=None if outcome.max_error is None else float(outcome.max_error),
            bound=None if outcome.bound is None else float(outcome.bound),
            worst_position=outcome.worst_position,
            worst_column=outcome.worst_column,
            reproduction=None if config is None else self._property_reproduction(fn, config, level),
            details=dict(outcome.details),
        )

    def _config_strategy(self, level: Level) -> Any:
        """Hypothesis strategy of configurations for ``level``, narrowed to the capabilities."""
        from hypothesis import strategies as st

        from pespec.properties.strategies import encoding_configs

        caps = self.backend.capabilities
        base_strategy = encoding_configs(max_d_model=caps.max_d_model or 8192, level=level)

        def adapt(pair: tuple[EncodingConfig, float | None]) -> EncodingConfig:
            config, base = pair
            positions = caps.adapt_positions(config.positions)
            return EncodingConfig(
                positions, config.d_model, config.base if base is None else base, self.convention
            )

        shift = float(self.convention.frequency_shift)
        bases = st.none() if caps.bases is None else st.sampled_from(caps.bases)
        defined = base_strategy.filter(lambda c: c.d_model / 2 - shift > 0)
        return st.tuples(defined, bases).map(adapt)

    def _large_check(self, planned: PlannedCheck, level: Level) -> CheckResult:
        length, d_model = planned.payload
        positions = np.arange(length, dtype=np.int64)
        why_not = self.backend.capabilities.accepts(positions, d_model, 10000.0)
        if why_not is not None:
            return self._result(planned, "skipped", why_not)
        self.guard.check_finite = False  # the comparison itself flags NaN/Inf, block by block
        try:
            output = self.guard(positions, d_model, 10000.0)
        finally:
            self.guard.check_finite = True
        worst = compare_blocks(
            output, positions, d_model, 10000.0, level, convention=self.convention
        )
        return self._comparison_result(planned, worst, d_model, 10000.0, level)

    def _timesteps_check(self, planned: PlannedCheck, level: Level) -> CheckResult:
        """``golden:timesteps``: fractional timesteps (SPEC §9.2) against the oracle."""
        from pespec.conformance.declared import TIMESTEPS_D_MODEL, timestep_positions
        from pespec.reference.oracle import encode as oracle_encode

        caps = self.backend.capabilities
        positions = timestep_positions(caps.max_position)
        d_model = min(TIMESTEPS_D_MODEL, caps.max_d_model or TIMESTEPS_D_MODEL)
        base = probe_base(caps.bases)
        why_not = caps.accepts(positions, d_model, base)
        if why_not is None and not self.convention.denominator(d_model) > 0:
            why_not = "the convention is undefined at this d_model"
        if why_not is not None:
            return self._result(planned, "skipped", why_not)
        output = self.guard(positions, d_model, base)
        reference = oracle_encode(positions, d_model, base=base, convention=self.convention)
        config = EncodingConfig(positions, d_model, base, self.convention)
        bound = comparison_bound(reference, config, level, FIXTURE_ERROR)
        worst = Worst()
        worst.update(output, reference, bound, positions, np.arange(d_model, dtype=np.intp))
        return self._comparison_result(planned, worst, d_model, base, level)

    def _comparison_result(
        self, planned: PlannedCheck, worst: Worst, d_model: int, base: float, level: Level
    ) -> CheckResult:
        def reproduction() -> str:
            assert worst.position is not None
            return self._value_reproduction(worst.position, d_model, base, worst.column, level)

        return comparison_result(planned, worst, level, reproduction)

    # -- reproductions -------------------------------------------------------------------

    def _backend_expr(self) -> tuple[str, str]:
        """(import prefix, expression) that rebuild the backend: from its spec in a fresh
        interpreter, else from a variable ``backend`` holding the object that was checked."""
        prefix = "from pespec.conformance import load_backend; "
        if self.backend.spec is not None:
            return prefix, f"load_backend({self._portable_spec()!r})"
        return prefix, "load_backend(backend)"

    def _portable_spec(self) -> str | None:
        """The backend spec as it was given (a relative ``file.py`` stays relative: the line
        is run from the folder the check ran in, and names no local absolute path)."""
        return self.backend.spec

    def _command(self, code: str) -> str:
        """``code`` as a shell command when the backend has a spec; else as a Python line to
        run where the checked object is bound to ``backend`` (no fresh interpreter has it)."""
        if self.backend.spec is not None:
            return f'python -c "{code}"'
        return f"{code}  # run where backend = the callable you checked"

    def _value_reproduction(
        self, position: int | float, d_model: int, base: float, column: int | None, level: Level
    ) -> str:
        backend = "backend" if self.backend.spec is None else repr(self._portable_spec())
        convention = ""
        if self.convention_declared:
            convention = f", convention={self._convention_argument()!r}"
        return self._command(
            f"from pespec.conformance import reproduce; reproduce({backend}, "
            f"[{position!r}], {d_model}, {base!r}, column={column}, level={level.name!r}"
            f"{convention}"
            + (", exit_status=True)" if self.backend.spec is not None else ")")
        )

    def _convention_argument(self) -> str | dict[str, Any]:
        """The declared convention as ``reproduce`` takes it: its preset name, or its dict."""
        from pespec.reference.conventions import preset

        try:
            if preset(self.convention.name) == self.convention:
                return self.convention.name
        except ValueError:
            pass
        return self.convention.to_dict()

    def _call_reproduction(self, positions: NDArray[Any], d_model: int, base: float) -> str:
        prefix, backend = self._backend_expr()
        dtype = "" if positions.dtype.kind == "i" else ", dtype=np.float64"
        return self._command(
            f"import numpy as np; {prefix}print({backend}.fn(np.array("
            f"{positions.tolist()!r}{dtype}), {d_model}, {base!r}))"
        )

    def _property_reproduction(
        self, prop: PropertyCheck, config: EncodingConfig, level: Level
    ) -> str:
        prefix, backend = self._backend_expr()
        fn = prop.function
        convention = ""
        if not config.convention.is_canonical:
            prefix += "from pespec.reference.conventions import Convention; "
            convention = f", convention=Convention.from_dict({config.convention.to_dict()!r})"
        return self._command(
            f"import numpy as np; {prefix}"
            f"from pespec.properties.base import EncodingConfig, parse_level; "
            f"from {fn.__module__} import {fn.__name__}; "
            f"{fn.__name__}({backend}, EncodingConfig({config.reproduction()}{convention}), "
            f"parse_level({level.name!r}))"
        )

    def _diagnose(self, report: Report) -> None:
        """Attach the diagnosis (SPEC §10) to a non-conformant report; never raises."""
        try:
            from pespec.conformance.diagnosis import diagnose
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


def _returned_misfit(fn: Any, failure: BackendFailure) -> str | None:
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


class _Narrowed:
    """The guarded backend as the properties see it: a call outside the declared
    capabilities raises :class:`OutsideCapabilities` (the example is dropped), and
    ``admits(positions)`` tells the properties which shifted rows they may request."""

    def __init__(
        self,
        guard: GuardedBackend,
        caps: Any,
        outputs: dict[tuple[bytes, str, int, float], NDArray[Any]] | None = None,
        *,
        fresh_repeats: bool = False,
    ) -> None:
        self.guard = guard
        self.caps = caps
        self.outputs = outputs
        self.fresh_repeats = fresh_repeats
        self.served: set[tuple[bytes, str, int, float]] = set()
        self.used: set[tuple[bytes, str, int, float]] = set()

    def forget_used(self) -> None:
        """Drop the kept outputs of the current example (it failed: Hypothesis repeats it,
        and a backend whose failure does not repeat must be seen as not deterministic)."""
        if self.outputs is not None:
            for key in self.used:
                self.outputs.pop(key, None)
        self.used.clear()

    def __call__(self, positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        given = np.asarray(positions)
        why_not = self.caps.accepts(given, d_model, base)
        if why_not is not None:
            raise OutsideCapabilities(why_not)
        if self.outputs is None:
            return self.guard(positions, d_model, base)
        key = (given.tobytes(), given.dtype.str, int(d_model), float(base))
        self.used.add(key)
        if self.fresh_repeats:  # the first request may reuse a kept output, a repeat may not
            if key in self.outputs and key not in self.served:
                self.served.add(key)
                return self.outputs[key]
            return self.guard(positions, d_model, base)
        if key not in self.outputs:
            if len(self.outputs) >= _MAX_KEPT_OUTPUTS:
                self.outputs.pop(next(iter(self.outputs)))  # the oldest
            output = self.guard(positions, d_model, base)
            output.flags.writeable = False
            self.outputs[key] = output
        return self.outputs[key]

    def admits(self, positions: NDArray[Any]) -> NDArray[np.bool_]:
        """Mask of the positions inside the declared capabilities."""
        mask: NDArray[np.bool_] = self.caps.admits(np.asarray(positions))
        return mask


def _first_cause(error: BaseException) -> BaseException:
    """The first leaf of an exception group (Hypothesis's FlakyFailure wraps the failure)."""
    inner = getattr(error, "exceptions", None)
    if inner:
        return _first_cause(inner[0])
    return error


def _ratio(outcome: Any) -> float:
    """A property outcome's worst ratio (the one ratio rule); no numbers count as worst."""
    ratio = reported_ratio(outcome.details, outcome.max_error, outcome.bound)
    return math.inf if ratio is None else ratio


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
    progress: Callable[[PlannedCheck, CheckResult | None], None] | None = None,
    diagnose: bool = True,
    convention: str | Convention | None = None,
) -> Report:
    """Run the conformance suite on ``backend`` and return its :class:`Report`.

    The same checks, in the same order, as ``pespec check`` and the pytest plugin; see
    :class:`Suite` for the arguments. Raises only for bad arguments (ValueError/TypeError)
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
    )
    return suite.run(progress, diagnose=diagnose)


def suite_table() -> str:
    """Markdown: the stages, their checks, the large sizes per profile and the constants (§9.2)."""
    from pespec.properties.registry import PROPERTIES
    from pespec.reference.golden import load_fixture_sets

    fixtures = [f.name for f in load_fixture_sets() if is_canonical_fixture(f)]
    sizes = "; ".join(
        f"`{name}`: " + ", ".join(f"{length}×{d}" for length, d in LARGE_SIZES[name])
        for name in ("ci", "dev", "thorough")
    )
    lines = [
        "| stage | checks (ids) | count |",
        "|---|---|---|",
        "| 1 contract | "
        + ", ".join(f"`contract:{item}`" for item in CONTRACT_ITEMS)
        + f" | {len(CONTRACT_ITEMS)} |",
        f"| 2 golden | `golden:NAME`, one per canonical fixture set (§8) | {len(fixtures)} |",
        "| 3 property | "
        + ", ".join(f"`property:{name}`" for name in PROPERTIES)
        + f" | {len(PROPERTIES)} |",
        f"| 4 large | `large:LxD`, positions 0 … L−1, base 10000; {sizes} | "
        + "/".join(str(len(LARGE_SIZES[n])) for n in ("ci", "dev", "thorough"))
        + " |",
        "",
        f"Tolerance against a golden value: b + 2^{math.log2(FIXTURE_ERROR):.0f}; against the "
        f"exact reference: b + 2^{math.log2(REFERENCE_ERROR):.0f} for |p| < "
        f"2^{math.log2(EXACT_REFERENCE_LIMIT):.0f} (beyond, the oracle, b + 2^"
        f"{math.log2(FIXTURE_ERROR):.0f}). Default timeout per backend call: "
        f"{DEFAULT_TIMEOUT:g} s. Comparison blocks: {BLOCK_ELEMENTS} elements.",
    ]
    return "\n".join(lines) + "\n"
