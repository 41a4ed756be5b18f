"""SPEC §5.10 config_independence (issue 27 item 3): A, then B, then A.

The backends are written for the test: a table cached under d_model only (the base of the
first call wins), one that lags a call behind, and the exact one. Expected values come from the
certified oracle (pespec.sinusoidal.reference.oracle.encode); the failures are by construction (the
other
base's table is wrong by O(1) at the compared positions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.sinusoidal.properties import PROPERTIES, level_for_dtype
from pespec.sinusoidal.properties.base import EncodingConfig, PropertyViolation
from pespec.sinusoidal.properties.independence import other_config, prop_config_independence
from pespec.sinusoidal.reference import oracle

POSITIONS = np.array([0.0, 1.0, 2.5, 100.0, 3000.0])
A = EncodingConfig(POSITIONS, 64, 10000.0)
LEVEL = level_for_dtype("float64")


def keyed_on_d_model(table: Any = oracle.encode) -> Any:
    """A table cached under d_model only: the first call's base is used for every base.
    ``table(positions, d_model, base=...)``: the values (the oracle, or any exact backend)."""
    cache: dict[int, float] = {}

    def backend(positions: Any, d_model: int, base: float) -> Any:
        return table(positions, d_model, base=cache.setdefault(d_model, base))

    return backend


def lagging() -> Any:
    """Each call uses the previous call's base (a table rebuilt after use)."""
    state: dict[str, float] = {}

    def backend(positions: Any, d_model: int, base: float) -> Any:
        used = state.get("base", base)
        state["base"] = base
        return oracle.encode(positions, d_model, base=used)

    return backend


def exact(positions: Any, d_model: int, base: float) -> Any:
    return oracle.encode(positions, d_model, base=base)


def test_registered_last_as_5_10() -> None:
    assert list(PROPERTIES)[-1] == "config_independence"
    assert PROPERTIES["config_independence"].section == "5.10"


def test_a_table_keyed_on_d_model_is_named() -> None:
    with pytest.raises(PropertyViolation) as caught:
        prop_config_independence(keyed_on_d_model(), A, LEVEL)
    message = caught.value.result.message
    assert (
        "results depend on what was computed before: the call with base=500000 after "
        "base=10000 returned the base=10000 table" in message
    )
    assert caught.value.result.max_error is not None and caught.value.result.bound is not None
    assert caught.value.result.max_error > caught.value.result.bound


def test_a_second_a_call_with_b_table_is_named() -> None:
    with pytest.raises(PropertyViolation) as caught:
        prop_config_independence(lagging(), A, LEVEL)
    message = caught.value.result.message
    assert "the call with base=10000 after base=500000 returned the base=500000 table" in message
    assert "bit-identical" in message


def test_the_exact_encoding_passes() -> None:
    result = prop_config_independence(exact, A, LEVEL)
    assert result.passed and result.details["other"] == "base=500000"
    assert result.details["max_ratio"] <= 1.0


class _Caps:
    """Declared capabilities as the suite's Narrowed exposes them (``caps.accepts``)."""

    def __init__(self, bases: tuple[float, ...], max_d_model: int) -> None:
        self.bases, self.max_d_model = bases, max_d_model

    def accepts(self, positions: Any, d_model: int, base: float) -> str | None:
        if float(base) not in self.bases:
            return "base"
        return "d_model" if d_model > self.max_d_model else None


def test_b_stays_inside_the_declared_capabilities() -> None:
    assert other_config(A, _Caps((10000.0, 100.0), 64)).base == 100.0
    one_base = other_config(A, _Caps((10000.0,), 64))
    assert not isinstance(one_base, str) and one_base.d_model == 62
    tiny = EncodingConfig(POSITIONS, 2, 10000.0)
    reason = other_config(tiny, _Caps((10000.0,), 2))
    assert isinstance(reason, str) and "one configuration only" in reason


def test_one_configuration_does_not_apply() -> None:
    class Narrow:
        caps = _Caps((10000.0,), 2)

        def __call__(self, positions: Any, d_model: int, base: float) -> Any:
            return exact(positions, d_model, base)

    result = prop_config_independence(Narrow(), EncodingConfig(POSITIONS, 2, 10000.0), LEVEL)
    assert result.passed and result.details["applicable"] is False
    assert "one configuration only" in result.details["reason"]


def test_the_suite_names_the_cache_of_a_backend() -> None:
    """The suite's property stage names the cache (the one stage the sentence comes from).
    The backends' values come from the exact float64 reference, not the MPFR oracle: the
    wrong base's table is wrong by O(1), far above any bound, so any exact table will do."""
    import pespec
    from pespec.conformance import check

    def exact_table(positions: Any, d_model: int, base: float) -> Any:
        return pespec.encode(positions, d_model, base=base)

    options: dict[str, Any] = {"examples": 5, "shrink": False, "diagnose": False}
    report = check(keyed_on_d_model(pespec.encode), stages=("property",), **options)
    row = next(c for c in report.checks if c.id == "property:config_independence")
    assert row.status == "failed"
    assert (  # A's table for B, or (A's example came after another base) one table for both
        "results depend on what was computed before" in row.message
        or "returned the same values (the base ignored, or a table cached" in row.message
    ), row.message
    exact_report = check(exact_table, stages=("property",), **options)
    row = next(c for c in exact_report.checks if c.id == "property:config_independence")
    assert row.status == "passed", row.message
