"""Timing shared by the benchmarks: alternating rounds, best of each (ratios from one run)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def interleaved_best(functions: list[Callable[[], Any]], rounds: int) -> list[float]:
    """Best wall time (s) of each function over ``rounds`` rounds that alternate between them."""
    best = [float("inf")] * len(functions)
    for _ in range(rounds):
        for i, function in enumerate(functions):
            start = time.perf_counter()
            function()
            best[i] = min(best[i], time.perf_counter() - start)
    return best
