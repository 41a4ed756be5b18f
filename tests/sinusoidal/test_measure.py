"""Measuring a sinusoidal backend (issue 27 item 1): ω̂_k unwrapped, layout, offset, scale,
base, each with its precision; the diagnosis names a wrong base with the measured value.

Expected values come from the construction: backends built on the certified oracle
(pespec.sinusoidal.reference.oracle.encode) with a known base, layout, offset and output scale; each
measured value must be within its stated precision of the constructed one (a float64 oracle's
angles are within 2^-53 relative, so the stated precisions are tiny and the checks tight).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.sinusoidal.measure import base_clause, measure
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.conventions import CANONICAL, Convention


def _convention(layout: str, offset: int = 0, scale: float = 1.0) -> Convention:
    return Convention.from_dict(
        {
            "name": "t",
            "layout": layout,
            "frequency_shift": 0,
            "position_offset": offset,
            "argument_scale": 1.0,
            "output_scale": scale,
        }
    )


@pytest.mark.parametrize("layout", ["interleaved", "sin_cos_halves", "cos_sin_halves"])
@pytest.mark.parametrize("base", [10000.0, 500.0, 1e6])
def test_measures_layout_frequencies_and_base(layout: str, base: float) -> None:
    convention = _convention(layout)

    def backend(p: Any, d: int, b: float) -> Any:
        return oracle.encode(p, d, base=base, convention=convention)

    found = measure(backend, 64, 10000.0, CANONICAL)
    assert found is not None and found.layout == layout
    exact = base ** (-np.arange(32) / 32.0)
    error = np.abs(np.array(found.omega) - exact)
    assert np.all(error <= np.array(found.omega_precision) + 4 * 2.0**-53 * exact)
    assert found.base is not None and found.base_precision is not None
    assert abs(np.log(found.base / base)) <= found.base_precision
    assert abs(found.scale - 1.0) <= found.scale_precision + 2.0**-52
    assert abs(found.offset) <= found.offset_precision


def test_measures_offset_and_scale() -> None:
    convention = _convention("interleaved", offset=2, scale=0.5)

    def backend(p: Any, d: int, b: float) -> Any:
        return oracle.encode(p, d, base=b, convention=convention)

    found = measure(backend, 64, 10000.0, CANONICAL)
    assert found is not None
    assert abs(found.offset - 2.0) <= found.offset_precision
    assert abs(found.scale - 0.5) <= found.scale_precision + 2.0**-52


def test_a_wrong_base_is_named_with_its_measured_value() -> None:
    def ten_times(p: Any, d: int, b: float) -> Any:
        return oracle.encode(p, d, base=10 * b).astype(np.float32)

    found = measure(ten_times, 64, 10000.0, CANONICAL)
    clause = base_clause(found, "Output matches no known convention of the sinusoidal family.")
    assert clause is not None
    assert clause.startswith("the base measured from the frequencies is 100000 ")
    assert "not the requested 10000" in clause
    assert base_clause(found, "… with the base fixed at 1000 …") is None  # already named
    exact = measure(lambda p, d, b: oracle.encode(p, d, base=b), 64, 10000.0, CANONICAL)
    assert base_clause(exact, "") is None  # nothing to name for the right base


def test_a_failing_backend_is_not_measured() -> None:
    def raises(p: Any, d: int, b: float) -> Any:
        raise RuntimeError("no")

    assert measure(raises, 64, 10000.0, CANONICAL) is None
    assert measure(lambda p, d, b: np.zeros((3, d)), 64, 10000.0, CANONICAL) is None


def test_the_suite_names_the_measured_base() -> None:
    """The diagnosis of a failed run names the base; the golden stage is the one failure it
    needs, and the exact float64 reference (not the MPFR oracle) builds the backend: a base
    ten times too large is wrong by O(1), far above any bound."""
    import pespec
    from pespec.conformance import check

    def ten_times(p: Any, d: int, b: float) -> Any:
        return pespec.encode(p, d, base=10 * b)

    report = check(ten_times, stages=("contract", "golden"))
    assert not report.conformant
    sentence = report.diagnosis_sentence or ""
    assert "base" in sentence, sentence
