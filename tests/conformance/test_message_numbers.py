"""Numbers in messages are plain Python numbers, never NumPy reprs (issue 24, item 14b).

Before: messages such as "positions 7 positions np.int64(0)..np.int64(65536)" (NumPy 2's
scalar repr leaking through an f-string's ``!r``). Every message, diagnosis sentence, summary
and reproduction of the reports of the catalog's buggy and misbehaving backends (sinusoidal
and rotary) is scanned for a NumPy scalar repr.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from catalog.buggy import BUGGY
from catalog.misbehaving import integer_output, mutates_input, non_deterministic, raises
from catalog.model_bugs import norm_drift, reduced_by_float32_two_pi

from pespec.conformance import Report, check
from pespec.rope.presets import PRESETS
from pespec.rope.suite import check as rope_check

NUMPY_REPR = re.compile(r"\bnp\.(?!array\()\w+\(|\bnumpy\.\w+\(")
"""``np.int64(0)``, ``np.float32(0.5)``, ``numpy.float64(1.0)``; not ``np.array([...])``,
which a reproduction's Python line builds on purpose."""

MISBEHAVING = {
    "raises": raises,
    "integer_output": integer_output,
    "mutates_input": mutates_input,
    "non_deterministic": non_deterministic,
    "norm_drift": norm_drift,
    "reduced_by_float32_two_pi": reduced_by_float32_two_pi,
}


def _texts(report: Report) -> list[str]:
    texts = [report.summary(), report.diagnosis_sentence or ""]
    for c in report.checks:
        texts += [c.message, c.reproduction or ""]
    return texts


def _leaks(report: Report) -> list[str]:
    return [text for text in _texts(report) if NUMPY_REPR.search(text)]


def test_the_pattern_finds_numpy_reprs() -> None:
    import numpy as np

    assert NUMPY_REPR.search(f"{np.int64(0)!r}") and NUMPY_REPR.search(f"{np.float32(1)!r}")
    assert not NUMPY_REPR.search("import numpy as np; print(np.array([0, 1]), dtype=np.float64)")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted({**BUGGY, **MISBEHAVING}))
def test_sinusoidal_messages_hold_no_numpy_repr(name: str) -> None:
    backend: Any = {**BUGGY, **MISBEHAVING}[name]
    report = check(backend, examples=2, shrink=False, large_sizes=((4608, 32),), timeout=10)
    assert not report.conformant
    assert _leaks(report) == []


def _rope_buggy() -> dict[str, Any]:
    import rope_implementations as impl

    llama = PRESETS["Llama-2-7B"]
    return {
        "bf16_inv_freq": impl.bug_bf16_inv_freq(llama),
        "fp16_cache": impl.bug_fp16_cache(llama),
        "bf16_positions": impl.bug_bf16_positions(llama),
        "llama3_schedule": impl.bug_schedule(PRESETS["Llama-3.1-8B"]),
        "gptj_pairing": impl.gptj_numpy,
    }


@pytest.mark.parametrize("name", sorted(_rope_buggy()))
def test_rotary_messages_hold_no_numpy_repr(name: str) -> None:
    report = rope_check(_rope_buggy()[name], PRESETS["Llama-2-7B"], timeout=30)
    assert not report.conformant
    assert _leaks(report) == []


def test_a_hung_rotary_backend_names_numbers_plainly() -> None:
    """The timeout message describes the call: "7 positions 0..65536", not np.int64(0)."""
    import time

    def hangs(x: Any, positions: Any, rope: Any) -> Any:
        time.sleep(5)
        return x

    report = rope_check(hangs, PRESETS["Llama-2-7B"], timeout=0.2)
    assert _leaks(report) == []
