"""Speed of the rotary suite (issue 19): ``pespec rope check numpy-float32 --config PRESET``.

The default (``ci``) profile on the built-in float32 backend with Llama-3.1-8B, measured warm
(interpreter start excluded): target under 20 s on the 2-core development machine, recorded
with the seconds of each stage, not asserted (a shared machine's wall time is no ratio).
Baseline in the same run: what a user would otherwise write to check a float32 rotary stack,
the rotate_half formula in float64 NumPy at the reference stage's positions compared with
the float32 output; the ratio suite/baseline is recorded with both times. Peak memory of
1M positions × head_dim 128 is asserted in tests/rope/test_suite.py (tracemalloc).

    python -m pytest benchmarks/bench_rope_suite.py --benchmark-only
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pespec.rope import PRESETS, frequencies
from pespec.rope.backends import _numpy_float32
from pespec.rope.inputs import SUITE_HALF, rotary_x
from pespec.rope.suite import check, reference_positions

TARGET_S = 20.0
PRESET = "Llama-3.1-8B"


def _baseline() -> float:
    """The naive float64 rotate_half check of the float32 stack at the same positions."""
    config = PRESETS[PRESET]
    positions = reference_positions("ci")
    x = rotary_x(positions.shape[0], config.head_dim, half=SUITE_HALF)
    got = _numpy_float32(x, positions, config).astype(np.float64)
    omega, attention = frequencies(config)
    emb = positions[:, None].astype(np.float64) * omega[None, :]
    emb = np.concatenate([emb, emb], axis=1)
    half = config.head_dim // 2
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=1)
    want = (x * np.cos(emb) + rotated * np.sin(emb)) * attention
    return float(np.max(np.abs(got - want)))


def test_rope_check_default_profile(benchmark: Any) -> None:
    check("numpy-float32", PRESET, diagnose=False)  # warm: caches, certified frequencies
    start = time.perf_counter()
    _baseline()
    baseline_s = time.perf_counter() - start
    report = benchmark.pedantic(
        lambda: check("numpy-float32", PRESET, diagnose=False), rounds=3, iterations=1
    )
    assert report.conformant
    suite_s = benchmark.stats.stats.mean
    stages: dict[str, float] = {}
    for result in report.checks:
        stages[result.stage] = stages.get(result.stage, 0.0) + result.duration_s
    benchmark.extra_info.update(
        {
            "target_s": TARGET_S,
            "suite_s": suite_s,
            "baseline_s": baseline_s,
            "ratio_suite_over_baseline": suite_s / baseline_s,
            "stage_s": stages,
        }
    )
