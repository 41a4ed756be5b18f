"""Speed of the multi-axis rotary suite (issue 28): ``pespec check --family multiaxis-rope``
of Qwen2-VL's M-RoPE (preset ``qwen2.5-vl-7b``: D 128, θ 1e6, mrope_section [16, 24, 24]) at
its video grid, t 16 × h 32 × w 32 merged patches between 16 + 16 text tokens (16,416 rows,
all checked).

Measured warm on a float32 NumPy transcription of transformers' Qwen2-VL rotary; target
under 10 s on the 2-core development machine, recorded with the seconds of each stage, not
asserted (a shared machine's wall time is no ratio).

    python -m pytest benchmarks/bench_mrope.py --benchmark-only
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.rope.run import check

TARGET_S = 10.0
PRESET = "qwen2.5-vl-7b"
SECTION = (16, 24, 24)


def transcription(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[np.float32]:
    """Qwen2-VL: inv_freq in float32, chunk i of the frequencies from axis i, rotate_half."""
    d = x.shape[1]
    inv = 1.0 / (np.float32(1e6) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))
    axis = np.repeat(np.arange(3), SECTION)
    angle = positions[:, axis].astype(np.float32) * inv.astype(np.float32)[None, :]
    c, s = np.cos(angle), np.sin(angle)
    a, b = x[:, : d // 2].astype(np.float32), x[:, d // 2 :].astype(np.float32)
    return np.concatenate([a * c - b * s, b * c + a * s], axis=1)


def test_mrope_check_video_grid(benchmark: Any) -> None:
    check(transcription, config=PRESET, diagnose=False)  # warm: caches
    report = benchmark.pedantic(lambda: check(transcription, config=PRESET), rounds=3, iterations=1)
    assert report.conformant
    stages: dict[str, float] = {}
    for result in report.checks:
        stages[result.stage] = stages.get(result.stage, 0.0) + result.duration_s
    benchmark.extra_info.update({"target_s": TARGET_S, "stages_s": stages, "rows": 16416})
