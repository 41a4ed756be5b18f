"""The property stage of the suite: the Hypothesis properties run against a backend (SPEC §5,
§6.2).

Each property of :data:`pespec.sinusoidal.properties.PROPERTIES` is run by Hypothesis on
configurations drawn at the backend's level and narrowed to its declared capabilities
(:class:`Narrowed`); the worst passing example, or the failing one with its one-line
reproduction, becomes the check's result. A failing example that passes when re-run shows a
backend that is not deterministic.

The examples a derandomized profile draws depend on the source text of the inner ``run``
function of :meth:`PropertyStage.check` (Hypothesis seeds from a digest of it, decorators
included): editing those lines changes the examples, so the verdict snapshot may change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import PlannedCheck
from pespec.conformance.contract import BackendFailure, GuardedBackend
from pespec.conformance.report import CheckResult
from pespec.numerics.ratio import reported_ratio
from pespec.sinusoidal.builtin_backends import REFERENCE_MAX_POSITION
from pespec.sinusoidal.capabilities import Capabilities
from pespec.sinusoidal.properties.base import EncodingConfig, Level
from pespec.sinusoidal.reference.conventions import Convention
from pespec.sinusoidal.reproductions import Reproductions

__all__ = [
    "CI_EXAMPLES",
    "FRESH_REPEATS",
    "MAX_KEPT_OUTPUTS",
    "Narrowed",
    "OutsideCapabilities",
    "PropertyStage",
]

FRESH_REPEATS = frozenset({"determinism", "config_independence"})
"""Properties whose repeated requests reach the backend (not a kept output)."""

CI_EXAMPLES = 15
"""Examples per property under the ``ci`` profile (SPEC R6.9): the smallest count at which its
derandomized draws reach every position kind of the strategy (small, fractional, negative,
huge, large: first drawn at examples 1, 3, 5, 10 and 15; tests/sinusoidal/test_example_count.py
keeps this true). ``dev`` and ``thorough`` keep their profiles' counts."""

MAX_KEPT_OUTPUTS = 256
"""Property-stage outputs kept for reuse (each at most 4096 elements, the strategies' limit)."""


class OutsideCapabilities(Exception):
    """A property wanted a call outside the backend's declared capabilities (example dropped)."""


@dataclass
class PropertyStage:
    """The property checks of one suite run: what they read of the suite, named.

    ``outputs``: the suite's kept outputs (each distinct request is made once per run);
    ``examples``: the profile's example count, overridden; ``shrink``: let Hypothesis shrink
    a failing example.
    """

    guard: GuardedBackend
    capabilities: Capabilities
    convention: Convention
    profile: str
    examples: int | None
    shrink: bool
    outputs: dict[tuple[bytes, str, int, float], NDArray[Any]]
    reproductions: Reproductions

    def __post_init__(self) -> None:
        # SPEC R6.4: a backend that declares no max_position is checked on |p| <= 2^53, the
        # reference's domain (positions exactly representable in float64); beyond, only on claim.
        self.draw_limit = 2.0**62  # a declared max_position narrows the draws as before
        if self.capabilities.max_position is None:
            self.capabilities = replace(self.capabilities, max_position=REFERENCE_MAX_POSITION)
            self.draw_limit = REFERENCE_MAX_POSITION

    def check(self, planned: PlannedCheck, level: Level) -> CheckResult:
        """Run the property of ``planned`` at ``level``; its worst example, or its failure."""
        from hypothesis import given, reject, settings
        from hypothesis.errors import Flaky, Unsatisfiable

        from pespec.conformance.profiles import profile_name
        from pespec.sinusoidal.properties.base import PropertyResult, PropertyViolation

        fn = planned.payload
        strategy = self._config_strategy(level)
        seen: dict[str, Any] = {}
        options = self._settings_options()

        # Each distinct request is made once per suite run (a table-based backend builds its
        # table per call); determinism compares a kept output with a fresh call.
        narrowed = Narrowed(
            self.guard,
            self.capabilities,
            self.outputs,
            fresh_repeats=fn.name in FRESH_REPEATS,
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
            return planned.result(
                "skipped", "every configuration needs a call outside the declared capabilities"
            )
        except PropertyViolation as violation:
            return self._property_result(planned, violation.result, seen.get("config"), level)
        except BackendFailure as failure:
            config = seen.get("config")
            repro = None if config is None else self.reproductions.for_property(fn, config, level)
            return planned.result("failed", failure.message, reproduction=repro)
        except Flaky as flaky:  # the same example failed, then passed when Hypothesis re-ran it
            return self._flaky_result(planned, flaky, seen.get("config"), level)
        worst = seen.get("worst")
        if worst is None:
            return planned.result("passed", "holds on every example", details={"applicable": True})
        result = self._property_result(planned, worst, None, level)
        result.status = "passed"
        result.details.setdefault("applicable", True)  # every §5 property holds for every
        return result  # convention of §3; only low_precision depends on the level (SPEC §5)

    def _settings_options(self) -> dict[str, Any]:
        """Hypothesis settings over the profile's: quiet, no database, no health checks; the
        example count when overridden; no shrinking when ``shrink`` is false."""
        from hypothesis import HealthCheck, Phase, Verbosity

        options: dict[str, Any] = {
            "verbosity": Verbosity.quiet,
            "report_multiple_bugs": False,
            "database": None,
            "suppress_health_check": list(HealthCheck),
        }
        if self.examples is not None:
            options["max_examples"] = self.examples
        elif self.profile == "ci":
            options["max_examples"] = CI_EXAMPLES
        if not self.shrink:
            options["phases"] = [p for p in Phase if p not in (Phase.shrink, Phase.explain)]
        return options

    def _flaky_result(
        self, planned: PlannedCheck, flaky: BaseException, config: Any, level: Level
    ) -> CheckResult:
        """A property whose failing example passed when re-run: the backend is not
        deterministic. Reports the first failure (its numbers and reproduction)."""
        from pespec.sinusoidal.properties.base import PropertyViolation

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
            repro = self.reproductions.for_property(planned.payload, config, level)
        if isinstance(cause, BackendFailure):
            text = cause.message
        else:
            text = f"{type(cause).__name__}: {cause}"
        return planned.result("failed", note + text, reproduction=repro)

    def _property_result(
        self, planned: PlannedCheck, outcome: Any, config: EncodingConfig | None, level: Level
    ) -> CheckResult:
        fn = planned.payload
        repro = None if config is None else self.reproductions.for_property(fn, config, level)
        return planned.result(
            "passed" if outcome.passed else "failed",
            outcome.message or ("holds" if outcome.passed else "violated"),
            max_error=None if outcome.max_error is None else float(outcome.max_error),
            bound=None if outcome.bound is None else float(outcome.bound),
            worst_position=outcome.worst_position,
            worst_column=outcome.worst_column,
            reproduction=repro,
            details=dict(outcome.details),
        )

    def _config_strategy(self, level: Level) -> Any:
        """Hypothesis strategy of configurations for ``level``, narrowed to the capabilities."""
        from hypothesis import strategies as st

        from pespec.sinusoidal.properties.strategies import encoding_configs

        caps = self.capabilities
        base_strategy = encoding_configs(
            max_d_model=caps.max_d_model or 8192,
            level=level,
            max_magnitude=self.draw_limit,
        )

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


class Narrowed:
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
            if len(self.outputs) >= MAX_KEPT_OUTPUTS:
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
