"""The rotary conformance suite (SPEC §8.8): the engine's Suite on the rotary family's run.

:func:`RopeSuite` builds the engine's :class:`~pespec.conformance.engine.Suite` on a
:class:`RopeRun`: the engine's loop, guarded calls and :class:`~pespec.conformance.report.
Report` (family ``rope``); only the plan and the checks are rotary: ``contract`` (shape,
dtype, finite, deterministic, inputs unchanged); ``golden`` (a preset's fixture, §8.6);
``reference`` (the domain against the exact float64 reference, in chunks; ``scores`` in score
mode); ``property`` (norm, R(0), relative position, linearity, row and configuration
independence).

Every stage stays inside the position domain (:mod:`pespec.rope.domain`, SPEC R8.17): integer
positions 0 … N − 1 of the configuration's context, sent as int64, unless the backend or the
run claims more (``max_position``, ``fractional_positions``). The level is a stage tuple
(SPEC §8.7): the default of the output dtype, or a claimed or requested tighter one.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend
from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import (
    BackendFailure,
    GuardedBackend,
    bit_identical,
)
from pespec.conformance.engine import DEFAULT_TIMEOUT, Progress, Suite, check_timeout, select_stages
from pespec.conformance.guard import BACKEND_ERRORS
from pespec.conformance.report import CheckResult, Report
from pespec.rope import properties as props
from pespec.rope.backends import RopeCapabilities, load_rope_backend, resolve_reading
from pespec.rope.domain import PositionDomain, position_domain
from pespec.rope.errormodel import (
    RopeLevel,
    check_rope_claim,
    parse_rope_level,
    rope_level_for_dtype,
)
from pespec.rope.failure_named import name_failures
from pespec.rope.guard import rope_call, rope_guard
from pespec.rope.independence import config_independence_of
from pespec.rope.inputs import SUITE_HALF, rotary_x
from pespec.rope.per_call import per_call_run
from pespec.rope.report import refresh, report_fields
from pespec.rope.scores import check_mode, score_accuracy, score_plan
from pespec.rope.suite_checks import (
    CONTRACT,
    contract_results,
    golden_outcome,
    raised_sentence,
    record_output_problems,
    skipped_rows,
)

__all__ = [
    "ROPE_STAGES",
    "RopeRun",
    "RopeSuite",
    "check",
    "reference_positions",
]

ROPE_STAGES: Final = ("contract", "golden", "reference", "property")
"""The rotary suite's stages, in the order they run."""

MAX_POSITION: Final = 2**20
"""The largest position of :func:`reference_positions`' default sweep."""


_PROPERTY_POSITIONS: Final = (0, 1, 2, 3, 7, 100, 1000, 4095, 4096, 65535, 65536, 10**5, 10**6)
"""The positions of the property checks (then the domain's largest), those admitted."""


def reference_positions(profile: str, max_position: int = MAX_POSITION) -> NDArray[np.int64]:
    """Positions of the reference stage: 0..4095, then a geometric sweep to ``max_position``
    with each point's neighbours (a stated formula; ``thorough``: every position)."""
    if profile == "thorough" or max_position < 4096:
        return np.arange(max_position + 1, dtype=np.int64)
    sweep = np.unique(np.geomspace(4096, max_position, 1024).astype(np.int64))
    near = np.concatenate([sweep - 1, sweep, sweep + 1, [max_position - 1, max_position]])
    head = np.arange(4096, dtype=np.int64)
    all_ = np.unique(np.concatenate([head, near]))
    return all_[all_ <= max_position]


class RopeRun:
    """The rotary family's run for the engine's Suite: the checks for one backend and one
    configuration (see the module docstring).

    ``backend``: a rotary spec, callable or Backend. ``config``: a RopeConfig, a preset name or
    a dict (RopeConfig or transformers config.json). ``level``: force a stage tuple
    (``"float32/bfloat16/bfloat16"``); it may only tighten the output dtype's default.
    ``profile``: ``ci``/``dev`` (sampled positions) or ``thorough`` (every position).
    ``max_position`` / ``fractional_positions``: claim positions [0, max_position] /
    fractional ones (None: the backend's capabilities, else the configuration's context).
    ``config_notes``: what the caller's config reader filled in (shown with the verdict), added
    to the notes of reading a config.json dict given here. ``mode``: ``elements`` (default)
    or ``scores`` (q·k scores of rotated pairs, not the elements: :mod:`pespec.rope.scores`).
    """

    family = "rope"
    all_stages = ROPE_STAGES

    def __init__(
        self,
        backend: str | Backend | Callable[..., Any],
        config: Any,
        *,
        level: str | RopeLevel | None = None,
        profile: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        stages: Sequence[str] = ROPE_STAGES,
        max_position: int | None = None,
        fractional_positions: bool | None = None,
        config_notes: Sequence[str] = (),
        mode: str = "elements",
    ) -> None:
        from pespec.conformance.profiles import resolve_profile

        self.mode = check_mode(mode)  # "scores": q·k scores, not elements (pespec.rope.scores)

        self.backend = load_rope_backend(backend)
        reading = resolve_reading(config)
        self.config = reading.config
        self.config_notes = list(dict.fromkeys([*reading.notes, *config_notes]))
        self.profile = resolve_profile(profile)
        self.stages = select_stages(stages, ROPE_STAGES)
        check_timeout(timeout)  # before the rest, as the engine's guard would
        if max_position is not None and (
            isinstance(max_position, bool)
            or not isinstance(max_position, int)
            or not 0 < max_position <= 2**40
        ):
            raise ValueError(f"max_position must be an int in 1..2**40; got {max_position!r}")
        caps = self.backend.capabilities
        assert isinstance(caps, RopeCapabilities)
        self.domain: PositionDomain = position_domain(
            self.config, caps, max_position=max_position, fractional_positions=fractional_positions
        )
        self.max_position = self.domain.max_position
        self.raised: list[tuple[str, str]] = []  # (check id, what the backend raised)
        if not caps.supports(self.config):
            raise ValueError(
                f"config is not among the configs backend {self.backend.name!r} "
                f"declares ({len(caps.configs or ())} configs); got "
                f"{self.config.to_dict()}"
            )
        claim = level if level is not None else caps.level
        self.requested_rope_level = parse_rope_level(claim) if isinstance(claim, str) else claim
        self.rope_level: RopeLevel | None = None
        self.guard: GuardedBackend = rope_guard(self.backend, timeout=float(timeout))
        self.output_dtype: str | None = None
        self.level = None
        self._contract: dict[str, tuple[bool, str]] | None = None
        self.examples = None
        self.shrink = False

    # -- planning ------------------------------------------------------------------------

    def plan(self) -> list[PlannedCheck]:
        """Every check of the selected stages, in order, with stable ids."""
        planned = []
        if "contract" in self.stages:
            planned += [
                PlannedCheck(f"contract:{k}", "contract", v, "§8.8") for k, v in CONTRACT.items()
            ]
        if "golden" in self.stages:
            from pespec.rope.golden import fixture_for  # verified against MANIFEST

            fixture = fixture_for(self.config)
            if fixture is not None:
                planned.append(
                    PlannedCheck(
                        f"golden:{fixture.name}",
                        "golden",
                        f"the rotary fixture of {fixture.preset} (rows "
                        f"on {self.domain.describe()})",
                        "§8.6",
                        fixture,
                    )
                )
        if "reference" in self.stages:
            positions = reference_positions(self.profile, self.max_position)
            planned.append(
                PlannedCheck(
                    f"reference:0..{self.max_position}",
                    "reference",
                    f"{positions.size} positions up to {self.max_position} against the exact "
                    f"float64 reference ({self.domain.describe()})",
                    "§8.7",
                    positions,
                )
            )
        if "property" in self.stages:
            planned += [
                PlannedCheck(f"property:{k}", "property", v, "§8.8")
                for k, v in props.PROPERTIES.items()
                if k not in props.unplanned(self.config)
            ]
        return planned if self.mode == "elements" else score_plan(planned)

    # -- running -------------------------------------------------------------------------

    def dispatch(self, planned: PlannedCheck) -> CheckResult:
        """Run one planned check (the engine turns a misbehaving backend into a failure)."""
        contract = self._ensure_contract()
        if planned.stage == "contract":
            passed, message = contract[planned.id.partition(":")[2]]
            return planned.result("passed" if passed else "failed", message)
        level = self.rope_level
        if level is None or self.output_dtype is None:
            why = (
                f"the backend did not return within {self.guard.timeout:g} s (it hung)"
                if self.guard.hung
                else "the contract probes gave no output of a dtype pespec knows"
            )
            return planned.result("failed", f"no level to test against: {why}")
        call = self._bound_call()
        try:
            if planned.stage == "golden":
                outcome = golden_outcome(
                    call, planned.payload, self.config, level, self.output_dtype, self.domain
                )
            elif planned.stage == "reference":
                positions = self._admitted(planned.payload)
                judge = props.accuracy if self.mode == "elements" else score_accuracy
                outcome = judge(call, positions, self.config, level, self.output_dtype)
            else:
                outcome = self._property(planned.id.partition(":")[2], call, level)
        except BackendFailure as failure:
            if failure.kind == "raised":
                self.raised.append((planned.id, failure.message))
            raise
        result = self._outcome_result(planned, outcome)
        if planned.stage == "golden":
            result.details.update(skipped_rows(planned.payload, self.domain))
            if result.details["rows_skipped"]:
                result.message += f"; {result.details['rows_skipped_why']}"
        return result

    def _bound_call(self) -> Callable[[NDArray[np.float64], NDArray[Any]], NDArray[Any]]:
        config = self.config

        def call(x: NDArray[np.float64], positions: NDArray[Any]) -> NDArray[Any]:
            result: NDArray[Any] = rope_call(self.guard, x, positions, config)
            return result

        return call

    def _admitted(self, positions: NDArray[Any]) -> NDArray[Any]:
        kept: NDArray[Any] = positions[self._admits(positions)]
        return kept

    def _admits(self, positions: NDArray[Any]) -> NDArray[np.bool_]:
        """Inside the domain (which already holds the claimed max_position: a run argument
        wins over the capability) and the other declared capabilities."""
        others = dataclasses.replace(self.backend.capabilities, max_position=None)
        mask: NDArray[np.bool_] = self.domain.admits(positions) & others.admits(positions)
        return mask

    def _property(self, name: str, call: props.Call, level: RopeLevel) -> props.Outcome:
        assert self.output_dtype is not None
        config, out = self.config, self.output_dtype
        positions = self._admitted(np.array([*_PROPERTY_POSITIONS, self.max_position], np.int64))
        if name == "norm":
            return props.norm(call, positions, config, level, out)
        if name == "r-zero":
            return props.r_zero(call, config, level, out)
        if name == "linearity":
            return props.linearity(call, positions, config, level, out)
        if name == "row-independence":
            return props.row_independence(call, positions, config, level, out)
        if name == "config-independence":
            return config_independence_of(self, positions, level)
        big = self.max_position
        pairs = np.array(
            [
                [0, 0],
                [5, 3],
                [3, 5],
                [100, 0],
                [4096, 4000],
                [big, big],
                [big, big - 1],
                [big - 1, big],
                [big, 0],
                [0, big],
                [65536, 1],
                [big // 2, big // 3],
            ],
            dtype=np.int64,
        )
        keep = self._admits(pairs).all(axis=1)
        return props.relative_position(call, pairs[keep], config, level, out)

    def _outcome_result(self, planned: PlannedCheck, outcome: props.Outcome) -> CheckResult:
        fields = outcome.result_fields()
        return planned.result(fields.pop("status"), fields.pop("message"), **fields)

    def _ensure_contract(self) -> dict[str, tuple[bool, str]]:
        if self._contract is None:
            self._contract = self._run_contract()
            if self.output_dtype is not None:
                default = rope_level_for_dtype(self.output_dtype)
                claim = self.requested_rope_level
                self.rope_level = (
                    default if claim is None else check_rope_claim(claim, self.output_dtype)
                )
                self.guard.expected_dtype = self.output_dtype
        return self._contract

    def _run_contract(self) -> dict[str, tuple[bool, str]]:
        problems: dict[str, list[str]] = {k: [] for k in CONTRACT}
        dtypes: set[str] = set()
        probes = self._admitted(
            np.unique(np.array([0, 1, 2, 3, 100, 4096, 65536, self.max_position], dtype=np.int64))
        )
        x = rotary_x(probes.shape[0], self.config.head_dim, seed=1, half=SUITE_HALF)
        outputs = []
        for _ in range(2):
            gx, gp = x.copy(), probes.copy()
            try:
                out = self.guard.raw_call(gx, gp, self.config)
            except BackendFailure as failure:
                problems["shape"].append(failure.message)
                if failure.kind == "raised":
                    self.raised.append(("contract:shape", failure.message))
                break
            if not (np.array_equal(gx, x) and np.array_equal(gp, probes)):
                problems["input-unchanged"].append("the backend modified x or positions")
            record_output_problems(out, x.shape, probes, problems, dtypes)
            outputs.append(out)
        if len(outputs) == 2 and not bit_identical(outputs[0], outputs[1]):
            problems["deterministic"].append("two calls with the same input gave different outputs")
        if len(dtypes) > 1:
            problems["dtype"].append(f"output dtype changes between calls: {sorted(dtypes)}")
        self.output_dtype = next(iter(dtypes)) if len(dtypes) == 1 else None
        return contract_results(problems, called=bool(outputs))

    def report_fields(self) -> dict[str, Any]:
        """The level (a stage tuple), the dtypes, the configuration and the domain."""
        level = self.rope_level
        return {
            "output_dtype": self.output_dtype,
            "level": None if level is None else level.name,
            "working_dtype": None if level is None else level.phase,
            **report_fields(
                config=self.config.to_dict(),
                level_stages=None if level is None else level.stages(),
                domain=self.domain.to_dict(),
                config_notes=self.config_notes,
                mode=self.mode,
            ),
        }

    def diagnose(self, report: Report) -> None:
        """The rotary diagnosis (SPEC §8, part 4) when that module exists, then what a
        backend raised and what to declare; never raises."""
        self._diagnose_numbers(report)
        if self.raised:  # no "no bug found" next to a verdict the backend's exception caused
            report.diagnosis_sentence = raised_sentence(self.raised, report)
        name_failures(self, report)  # failing fractional/large positions probed; never "no bug"
        if report.family == self.family:
            report.advice = self._domain_advice()
            refresh(report)

    def _domain_advice(self) -> str | None:
        """When a claim wider than the default domain fails and the default domain passes:
        what to declare (SPEC R8.19). None otherwise."""
        domain = self.domain
        if domain.is_default or (
            domain.max_position <= domain.default_max and not domain.fractional
        ):
            return None
        try:
            narrow = RopeSuite(
                self.backend,
                self.config,
                level=self.requested_rope_level,
                profile=self.profile,
                timeout=self.guard.timeout,
                stages=self.stages,
                max_position=max(domain.default_max, 1),
                fractional_positions=False,
                mode=self.mode,
            )
            if not narrow.run(diagnose=False).conformant:
                return None
        except (ValueError, TypeError):  # advice only
            return None
        return (
            f"the failures lie outside the default domain: the backend is conformant on "
            f"{narrow.domain.describe()} (the configuration's context, "
            f"{domain.source}); declare only what it supports: max_position="
            f"{domain.default_max} and no fractional_positions (or --max-position "
            f"{domain.default_max}), or drop the claim of {domain.declared}"
        )

    def _diagnose_numbers(self, report: Report) -> None:
        """The rotary diagnosis proper, probing no position beyond the domain, through the
        suite's guard (the run's timeout per call, host conversion; its calls and rows are
        counted there, as ``diagnosis_calls`` / ``diagnosis_rows``)."""
        if importlib.util.find_spec("pespec.rope.diagnosis") is None or self.guard.hung:
            return
        try:
            module = importlib.import_module("pespec.rope.diagnosis")
            # timeout=None: the guard times out each call (then every later call fails at once)
            diagnosis = module.diagnose(
                self.guard.raw_call,
                self.config,
                timeout=None,
                max_position=self.domain.max_position,
            )
            report.diagnosis = diagnosis.to_dict()
            sentence = diagnosis.sentence
            report.diagnosis_sentence = sentence() if callable(sentence) else str(sentence)
        except BACKEND_ERRORS as exc:  # advice only: it must never hide the verdict
            report.diagnosis_sentence = f"diagnosis unavailable ({type(exc).__name__}: {exc})"


def RopeSuite(  # the class it was; the engine's Suite now
    backend: str | Backend | Callable[..., Any],
    config: Any,
    *,
    level: str | RopeLevel | None = None,
    profile: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    stages: Sequence[str] = ROPE_STAGES,
    max_position: int | None = None,
    fractional_positions: bool | None = None,
    config_notes: Sequence[str] = (),
    mode: str = "elements",
) -> Suite:
    """The rotary suite of ``backend`` for ``config``: the engine's Suite (a factory since
    issue 25) on a :class:`RopeRun` (see it for the arguments), or ℓ per call on the
    :class:`~pespec.rope.per_call.PerCallRun` of one (SPEC Annex G.1)."""
    run = RopeRun(
        backend,
        config,
        level=level,
        profile=profile,
        timeout=timeout,
        stages=stages,
        max_position=max_position,
        fractional_positions=fractional_positions,
        config_notes=config_notes,
        mode=mode,
    )
    return Suite(per_call_run(run))


def check(
    backend: str | Backend | Callable[..., Any],
    config: Any,
    *,
    level: str | RopeLevel | None = None,
    profile: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    stages: Sequence[str] = ROPE_STAGES,
    max_position: int | None = None,
    fractional_positions: bool | None = None,
    progress: Progress | None = None,
    diagnose: bool = True,
    config_notes: Sequence[str] = (),
    mode: str = "elements",
) -> Report:
    """Run the rotary suite on ``backend`` for ``config``; the report has ``.conformant`` and
    ``.summary()``. ``max_position`` / ``fractional_positions`` claim positions [0,
    max_position] / fractional ones (default: the backend's capabilities, else integer
    positions 0 … N − 1 of the configuration's context; SPEC R8.17). ``mode="scores"``: judge
    q·k scores, not elements (SPEC Annex A.9). Raises only for bad arguments or a backend that
    cannot be loaded."""
    suite = RopeSuite(
        backend,
        config,
        level=level,
        profile=profile,
        timeout=timeout,
        stages=stages,
        max_position=max_position,
        fractional_positions=fractional_positions,
        config_notes=config_notes,
        mode=mode,
    )
    return suite.run(progress, diagnose=diagnose)
