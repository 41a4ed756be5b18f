"""Cost of the rotary diagnosis (issue 27, item 6): at most 200 backend calls and 3 s beyond
the suite on a preset.

Llama-3.1-8B with three slipped float32 stacks (θ = 10^4, s = 4, low_freq_factor = 2), the
last two named by the fit of SPEC Annex D.9, the first too: each is checked with the ``ci``
profile with and without the diagnosis, warm. Asserted: the diagnosis's own backend calls
(the report's ``backend_calls["diagnosis_calls"]``) ≤ 200, and the fastest of three timings of
the diagnosis alone ≤ 3 s; recorded: the suite's time and the difference of the two checks.

    python -m pytest benchmarks/bench_rope_diagnosis.py --benchmark-only
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest

from pespec.rope import PRESETS, check
from pespec.rope.diagnosis import diagnose
from pespec.rope.diagnosis.examples import table_backend
from pespec.rope.schedules import frequencies

PRESET = "Llama-3.1-8B"
MAX_CALLS = 200
MAX_EXTRA_S = 3.0
SLIPS = {"theta": 1e4, "factor": 4.0, "low_freq_factor": 2.0}


def _timed(run: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = run()
    return out, time.perf_counter() - start


@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_diagnosis_budget(slip: str, benchmark: Any) -> None:
    config = PRESETS[PRESET]
    backend = table_backend(*frequencies(dataclasses.replace(config, **{slip: SLIPS[slip]})))
    diagnose(backend, config)  # warm: kernels, certified frequencies
    result = benchmark.pedantic(lambda: diagnose(backend, config), rounds=3, iterations=1)
    alone_s = benchmark.stats.stats.min
    plain, plain_s = _timed(lambda: check(backend, config, profile="ci", diagnose=False))
    full, full_s = _timed(lambda: check(backend, config, profile="ci"))
    calls = (full.backend_calls or {}).get("diagnosis_calls")
    benchmark.extra_info.update(
        {
            "slip": slip,
            "sentence": result.sentence,
            "diagnosis_calls": calls,
            "diagnosis_s": alone_s,
            "suite_s": plain_s,
            "suite_with_diagnosis_s": full_s,
        }
    )
    assert not plain.conformant and result.explained, result.sentence
    assert calls is not None and calls <= MAX_CALLS
    assert alone_s <= MAX_EXTRA_S
