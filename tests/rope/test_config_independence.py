"""Configuration independence (SPEC R8.14, Annex D.10; issue 27 item 3): A, B, A.

The backends here are written for the test: a cos/sin table cached under ``head_dim`` only (two
modules with different θ in one process share one table), a table that lags one call behind,
and correct ones. Expected values: the exact float64 reference (pespec.rope.reference.rotate is
the oracle's transcription, tested against mpmath in tests/rope/test_reference.py); the
failures are by construction (the wrong table is the other configuration's, ratio ≫ 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pespec.conformance.backends import Backend
from pespec.rope import RopeConfig, check
from pespec.rope.backends import RopeCapabilities
from pespec.rope.errormodel import rope_level_for_dtype
from pespec.rope.independence import config_independence, other_config
from pespec.rope.reference import rotate

A = RopeConfig(head_dim=64, theta=10000.0)
B = RopeConfig(head_dim=64, theta=500000.0)
STAGES = ("contract", "reference", "property")
POSITIONS = np.array([0, 1, 7, 100, 1000, 4095], dtype=np.int64)


def keyed_on_head_dim() -> Any:
    """A cos/sin table cached under head_dim only: the first configuration's θ wins."""
    cache: dict[int, RopeConfig] = {}

    def backend(x: Any, positions: Any, rope: RopeConfig) -> Any:
        return rotate(x, positions, cache.setdefault(rope.head_dim, rope)).astype(np.float32)

    return backend


def lagging() -> Any:
    """A table rebuilt after each call: each call uses the previous call's configuration."""
    state: dict[str, RopeConfig] = {}

    def backend(x: Any, positions: Any, rope: RopeConfig) -> Any:
        used = state.get("table", rope)
        state["table"] = rope
        return rotate(x, positions, used).astype(np.float32)

    return backend


def correct(x: Any, positions: Any, rope: RopeConfig) -> Any:
    return rotate(x, positions, rope).astype(np.float32)


def _backend(fn: Any, configs: Any) -> Backend:
    return Backend("t", fn, capabilities=RopeCapabilities(configs=configs))


def _row(report: Any) -> Any:
    return next(c for c in report.checks if c.id == "property:config-independence")


def test_a_cache_keyed_on_head_dim_is_named_when_two_configs_are_declared() -> None:
    report = check(_backend(keyed_on_head_dim(), (A, B)), A, stages=STAGES)
    assert not report.conformant
    assert [c.id for c in report.checks if c.status == "failed"] == ["property:config-independence"]
    assert (
        "results depend on what was computed before: the call with θ=500000 after θ=10000 "
        "returned the θ=10000 table" in _row(report).message
    )


def test_the_second_a_call_returning_b_table_is_named() -> None:
    level = rope_level_for_dtype("float32")
    outcome = config_independence(lagging(), A, (A, B), POSITIONS, level, "float32")
    assert not outcome.passed
    assert "the call with θ=10000 after θ=500000 returned the θ=500000 table" in outcome.message
    assert "must be bit-identical" in outcome.message


def test_correct_backends_pass() -> None:
    for backend in (_backend(correct, (A, B)), "numpy", "numpy-float32"):
        row = _row(check(backend, A, stages=STAGES))
        assert row.status == "passed", row.message
        assert "θ=500000" in row.message


def test_one_declared_configuration_skips_with_the_reason() -> None:
    report = check(_backend(keyed_on_head_dim(), (A,)), A, stages=STAGES)
    assert report.conformant
    row = _row(report)
    assert row.status == "skipped"
    assert "declares one configuration only" in row.message


def test_no_declared_configs_and_b_answered_with_a_skips_not_fails() -> None:
    """A backend bound to one model (the FAQ's cached example) declares no configs: it stays
    conformant, and the skip says what was seen."""
    report = check(_backend(keyed_on_head_dim(), None), A, stages=STAGES)
    assert report.conformant, report.summary()
    row = _row(report)
    assert row.status == "skipped"
    assert "returned the θ=10000 values" in row.message
    assert "ignores the configuration it is given" in row.message
    assert '{"configs": [' in row.message


def test_other_config_choice() -> None:
    assert other_config(A, None) == B
    assert other_config(B, None) == A
    assert other_config(A, (A,)) == "the backend declares one configuration only"
    custom = RopeConfig(head_dim=4, rope_type="custom", omegas=(1.0, 0.5))
    assert "do not depend on θ" in str(other_config(custom, None))
