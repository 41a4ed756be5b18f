"""Speed of the multi-axis suite (issue 28): ``pespec check --family multiaxis`` of a 2-D
preset on a 64×64 grid at D = 1152 (PixArt-α 1024: ``pixart-alpha-1024``).

Measured warm (interpreter start excluded) on a correct float64 NumPy transcription; target
under 10 s on the 2-core development machine, recorded with the seconds of each stage, not
asserted (a shared machine's wall time is no ratio).

    python -m pytest benchmarks/bench_multiaxis.py --benchmark-only
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.sinusoidal.run import check

TARGET_S = 10.0
PRESET = "pixart-alpha-1024"


def _one_d(d: int, pos: NDArray[Any]) -> NDArray[np.float64]:
    omega = 1.0 / 10000 ** (np.arange(d // 2, dtype=np.float64) / (d / 2.0))
    out = np.outer(pos.astype(np.float64), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def transcription(positions: NDArray[Any], config: Any) -> NDArray[np.float64]:
    """diffusers' get_2d_sincos_pos_embed at the positions given: [w | h], [sin | cos]."""
    d = config.d_model // 2
    return np.concatenate([_one_d(d, positions[:, 1]), _one_d(d, positions[:, 0])], axis=1)


def test_multiaxis_check_2d_preset(benchmark: Any) -> None:
    check(transcription, config=PRESET, diagnose=False)  # warm: caches
    report = benchmark.pedantic(lambda: check(transcription, config=PRESET), rounds=3, iterations=1)
    assert report.conformant
    stages: dict[str, float] = {}
    for result in report.checks:
        stages[result.stage] = stages.get(result.stage, 0.0) + result.duration_s
    benchmark.extra_info.update({"target_s": TARGET_S, "stages_s": stages})
