"""Diagnosis of every family calls the backend through the suite's guard (issue 25, item 2a).

Run from a suite, the sinusoidal and the rotary diagnosis get the guarded call: the run's
timeout per call (a backend that hangs only at a diagnosis probe gives its report, the
diagnosis saying it could not finish), host conversion (a result with only ``__array__``
is diagnosed as its NumPy array would be), the declared capabilities (no rotary probe beyond
``max_position``: tests/rope/test_domain.py) and the calls counted in ``backend_calls``.
The hanging probes are told apart from the suite's calls by construction: the sinusoidal
diagnosis' large-position probe (positions up to 3·2^29 + 1, SPEC Annex D; no fixture
holds that position) and the rotary
probes' mixed row (1 + 2^-7, −3/4), which the suite's random inputs never hold.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import rope_implementations as impl
from catalog import buggy

from pespec.conformance import check
from pespec.rope import PRESETS, RopeConfig
from pespec.rope.diagnosis.probes import MIXED
from pespec.rope.suite import check as rope_check

LLAMA2 = PRESETS["Llama-2-7B"]
TIMEOUT = 0.3
LARGEST_PROBE = 3 * 2**29 + 1
"""The largest position of the sinusoidal diagnosis' large-position probe (SPEC Annex D)."""
SINUSOIDAL_FAST = {"stages": ("contract", "golden")}


class ArrayOnly:
    """A torch/JAX-like result: only ``__array__`` (no dtype, no shape attributes)."""

    def __init__(self, values: Any) -> None:
        self._values = np.asarray(values)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return self._values if dtype is None else self._values.astype(dtype)


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown: a backend blocked on it returns, its guard thread ends."""
    event = threading.Event()
    yield event
    event.set()


def _without_counts(data: dict[str, Any] | None) -> dict[str, Any]:
    assert data is not None
    return {k: v for k, v in data.items() if k != "backend_calls"}


def test_sinusoidal_hang_at_a_diagnosis_probe_gives_the_report(release: threading.Event) -> None:
    def fn(positions: Any, d_model: int, base: float) -> Any:
        if float(np.max(positions)) == LARGEST_PROBE:  # only the diagnosis' large probe
            release.wait(30)
        return buggy.swapped(positions, d_model, base)

    start = time.perf_counter()
    report = check(fn, timeout=TIMEOUT, **SINUSOIDAL_FAST)  # type: ignore[arg-type]
    assert time.perf_counter() - start < 20  # the probe blocks 30 s: no hang
    assert report.verdict == "non-conformant"
    sentence = report.diagnosis_sentence or ""
    assert "the diagnosis could not finish" in sentence
    assert f"did not return within {TIMEOUT:g} s" in sentence
    assert report.backend_calls is not None and report.backend_calls["diagnosis_calls"] >= 1


def test_rotary_hang_at_a_diagnosis_probe_gives_the_report(release: threading.Event) -> None:
    wrong = impl.bug_bf16_positions(LLAMA2)

    def fn(x: Any, positions: Any, rope: RopeConfig) -> Any:
        if np.any(np.asarray(x) == MIXED[0]):  # only the diagnosis probes hold the mixed row
            release.wait(30)
        return wrong(x, positions, rope)

    start = time.perf_counter()
    report = rope_check(fn, LLAMA2, timeout=TIMEOUT)
    assert time.perf_counter() - start < 20
    assert not report.conformant
    sentence = report.diagnosis_sentence or ""
    assert "the diagnosis could not finish" in sentence
    assert f"did not return within {TIMEOUT:g} s" in sentence
    # the probe call went through the suite's guard: counted there, calls and rows
    assert report.backend_calls is not None
    assert report.backend_calls["diagnosis_calls"] == 1
    assert report.backend_calls["diagnosis_rows"] > 0


def _array_only(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any) -> Any:
        return ArrayOnly(fn(*args))

    return wrapped


def test_rotary_diagnosis_reads_an_array_only_result_as_the_suite_does() -> None:
    wrong = impl.bug_bf16_positions(LLAMA2)
    plain = rope_check(wrong, LLAMA2, profile="ci")
    wrapped = rope_check(_array_only(wrong), LLAMA2, profile="ci")
    assert plain.output_dtype == wrapped.output_dtype == "float32"
    assert [c.status for c in plain.checks] == [c.status for c in wrapped.checks]
    assert _without_counts(wrapped.diagnosis) == _without_counts(plain.diagnosis)
    assert wrapped.diagnosis_sentence == plain.diagnosis_sentence


def test_sinusoidal_diagnosis_reads_an_array_only_result_as_the_suite_does() -> None:
    def float32_swapped(positions: Any, d_model: int, base: float) -> Any:
        return buggy.swapped(positions, d_model, base).astype(np.float32)

    plain = check(float32_swapped, **SINUSOIDAL_FAST)  # type: ignore[arg-type]
    wrapped = check(_array_only(float32_swapped), **SINUSOIDAL_FAST)  # type: ignore[arg-type]
    assert plain.output_dtype == wrapped.output_dtype == "float32"
    assert _without_counts(wrapped.diagnosis) == _without_counts(plain.diagnosis)
    assert wrapped.diagnosis_sentence == plain.diagnosis_sentence
