"""The comparison stages of the suite: golden fixtures, diffusion timesteps and large
configurations, each compared value by value against certified values (SPEC §6.2).

``golden:NAME`` compares a fixture set (positions narrowed to the declared capabilities);
``golden:timesteps`` compares fractional timesteps with the oracle (a declared convention);
``large:LxD`` compares positions 0 .. L−1 in row blocks with the exact float64 reference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import (
    FIXTURE_ERROR,
    PlannedCheck,
    Worst,
    comparison_result,
)
from pespec.conformance.report import CheckResult
from pespec.sinusoidal.capabilities import Capabilities
from pespec.sinusoidal.compare import compare_blocks, compare_fixture, comparison_bound
from pespec.sinusoidal.contract import probe_base
from pespec.sinusoidal.golden import FixtureSet
from pespec.sinusoidal.properties.base import EncodingConfig, Level
from pespec.sinusoidal.reference.exact import scaled_reference_error

if TYPE_CHECKING:
    from pespec.conformance.backends import Backend
    from pespec.conformance.contract import GuardedBackend
    from pespec.sinusoidal.reference.conventions import Convention
    from pespec.sinusoidal.reproductions import Reproductions

__all__ = ["StageSuite", "golden_check", "large_check"]


class StageSuite(Protocol):
    """What a comparison stage reads of the suite that runs it (:class:`runner.Suite`).

    A protocol, so that this module need not import the runner that imports it.
    """

    @property
    def backend(self) -> Backend: ...

    @property
    def convention(self) -> Convention: ...

    @property
    def guard(self) -> GuardedBackend: ...

    @property
    def reproductions(self) -> Reproductions: ...


def golden_check(suite: StageSuite, planned: PlannedCheck, level: Level) -> CheckResult:
    """``golden:NAME``: the fixture's certified values (for the convention judged against)."""
    from pespec.sinusoidal.declared import certified_fixture

    if planned.payload is None:
        return _timesteps_check(suite, planned, level)
    fixture, undefined = certified_fixture(planned.payload, suite.convention)
    if fixture is None:
        return planned.result("skipped", f"not applicable: {undefined}")
    positions, rows, why_not = _narrow(suite.backend.capabilities, fixture)
    if why_not is not None:
        return planned.result("skipped", why_not)
    output = suite.guard(positions, int(fixture.d_model), float(fixture.base))
    worst = compare_fixture(output, fixture, rows, positions, level)
    return _comparison_result(
        suite, planned, worst, int(fixture.d_model), float(fixture.base), level
    )


def _narrow(
    caps: Capabilities, fixture: FixtureSet
) -> tuple[NDArray[Any], NDArray[np.intp], str | None]:
    """The fixture's positions (and their row indices) inside the declared capabilities."""
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


def large_check(suite: StageSuite, planned: PlannedCheck, level: Level) -> CheckResult:
    """``large:LxD``: positions 0 .. L−1, base 10000, against the exact float64 reference."""
    length, d_model = planned.payload
    positions = np.arange(length, dtype=np.int64)
    why_not = suite.backend.capabilities.accepts(positions, d_model, 10000.0)
    if why_not is not None:
        return planned.result("skipped", why_not)
    suite.guard.check_finite = False  # the comparison itself flags NaN/Inf, block by block
    try:
        output = suite.guard(positions, d_model, 10000.0)
    finally:
        suite.guard.check_finite = True
    convention = suite.convention
    worst = compare_blocks(
        output,
        positions,
        d_model,
        10000.0,
        level,
        convention=convention,
        reference_error=scaled_reference_error(convention, d_model),
    )
    return _comparison_result(suite, planned, worst, d_model, 10000.0, level)


def _timesteps_check(suite: StageSuite, planned: PlannedCheck, level: Level) -> CheckResult:
    """``golden:timesteps``: fractional timesteps (SPEC §6.2) against the oracle."""
    from pespec.sinusoidal.declared import TIMESTEPS_D_MODEL, timestep_positions
    from pespec.sinusoidal.reference import oracle

    caps = suite.backend.capabilities
    positions = timestep_positions(caps.max_position)
    d_model = min(TIMESTEPS_D_MODEL, caps.max_d_model or TIMESTEPS_D_MODEL)
    base = probe_base(caps.bases)
    why_not = caps.accepts(positions, d_model, base)
    if why_not is None and not suite.convention.denominator(d_model) > 0:
        why_not = "the convention is undefined at this d_model"
    if why_not is not None:
        return planned.result("skipped", why_not)
    output = suite.guard(positions, d_model, base)
    reference = oracle.encode(positions, d_model, base=base, convention=suite.convention)
    config = EncodingConfig(positions, d_model, base, suite.convention)
    bound = comparison_bound(reference, config, level, FIXTURE_ERROR)
    worst = Worst()
    worst.update(output, reference, bound, positions, np.arange(d_model, dtype=np.intp))
    return _comparison_result(suite, planned, worst, d_model, base, level)


def _comparison_result(
    suite: StageSuite, planned: PlannedCheck, worst: Worst, d_model: int, base: float, level: Level
) -> CheckResult:
    def reproduction() -> str:
        assert worst.position is not None
        return suite.reproductions.for_value(worst.position, d_model, base, worst.column, level)

    return comparison_result(planned, worst, level, reproduction)
