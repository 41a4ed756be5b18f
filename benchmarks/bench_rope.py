"""Speed of the rotary reference (SPEC Annex C.6) against the naive float64 formula, same run.

Target (issue 18): :func:`pespec.rope.rotate` at consecutive integer positions at least 2×
faster than the formula as users write it (transformers' ``rotate_half`` form, in NumPy
float64 with the same ω'):

    freqs = pos[:, None] * inv_freq; emb = concat(freqs, freqs)
    cos, sin = np.cos(emb), np.sin(emb); y = x*cos + rotate_half(x)*sin

The naive and reference calls alternate round by round (best of each), so load on a shared
machine hits both alike. Also recorded (no target): eight heads sharing the positions, and
the certified oracle's throughput (cos/sin values and rotated components per second).

    python -m pytest benchmarks/bench_rope.py --benchmark-only
"""

from __future__ import annotations

import time
from typing import Any

import mpmath
import numpy as np
import pytest
from numpy.typing import NDArray
from timing import interleaved_best

from pespec.rope import PRESETS, frequencies, oracle, rotate
from pespec.sinusoidal.reference import oracle as absolute_oracle

TARGET_RATIO = 2.0
ROUNDS = 10
CONFIG = PRESETS["Llama-3.1-8B"]
CASES = [(1, 4096), (1, 32768), (8, 4096)]


def _rotate_half(x: NDArray[np.float64]) -> NDArray[np.float64]:
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def naive_rotate(
    x: NDArray[np.float64], positions: NDArray[np.int64], inv_freq: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The formula as tutorials and transformers write it (halves pairing, float64)."""
    freqs = positions[:, None] * inv_freq
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    result: NDArray[np.float64] = x * cos + _rotate_half(x) * sin
    return result


@pytest.mark.parametrize(("heads", "seq_len"), CASES, ids=["n4096", "n32768", "8heads-n4096"])
def test_rotate_speedup_vs_naive(benchmark: Any, heads: int, seq_len: int) -> None:
    rng = np.random.default_rng(0)
    shape = (seq_len, CONFIG.head_dim) if heads == 1 else (heads, seq_len, CONFIG.head_dim)
    x = rng.standard_normal(shape)
    positions = np.arange(seq_len, dtype=np.int64)
    inv_freq, _ = frequencies(CONFIG)

    def reference() -> Any:
        return rotate(x, positions, CONFIG)

    def naive() -> Any:
        return naive_rotate(x, positions, inv_freq)

    reference()  # warm the caches: certified ω', pieces, fine offsets
    naive_s, reference_s = interleaved_best([naive, reference], ROUNDS)
    out = benchmark.pedantic(reference, rounds=ROUNDS, iterations=1)
    assert out.shape == x.shape
    reference_s = min(reference_s, benchmark.stats.stats.min)
    ratio = naive_s / reference_s
    benchmark.extra_info.update(
        {
            "values": x.size,
            "naive_ms": round(naive_s * 1e3, 3),
            "reference_ms": round(reference_s * 1e3, 3),
            "speedup_vs_naive": round(ratio, 2),
            "numpy": np.__version__,
        }
    )
    print(f"heads={heads} n={seq_len}: reference {ratio:.2f}x faster than naive")
    if heads == 1:
        benchmark.extra_info["target_speedup"] = TARGET_RATIO
        assert ratio >= TARGET_RATIO


def _mpmath_rate(positions: list[int], omegas: list[float]) -> float:
    """Values per second of float(mpmath.sin(φ)), float(mpmath.cos(φ)) at 113 bits (the
    baseline of benchmarks/bench_oracle.py, angles precomputed)."""
    with mpmath.workprec(113):
        phases = [mpmath.mpf(p) * mpmath.mpf(w) for p in positions for w in omegas]
        start = time.perf_counter()
        for phase in phases:
            float(mpmath.sin(phase))
            float(mpmath.cos(phase))
        return 2 * len(phases) / (time.perf_counter() - start)


def test_oracle_throughput(benchmark: Any) -> None:
    """Certified cos/sin values per second (64 pairs × 200 positions spread to 2^24), against
    the absolute oracle on the same positions (d_model = 128) and a plain mpmath loop."""
    positions = ((np.arange(200, dtype=np.int64) * 83_886) + 7).tolist()
    omegas = oracle.frequencies(CONFIG)[0].tolist()  # certified ω' once (cached)

    def run() -> Any:
        return oracle.cos_sin(positions, CONFIG)

    absolute_s = min(
        interleaved_best([lambda: absolute_oracle.encode(positions, CONFIG.d_r, workers=1)], 3)
    )
    cos, _ = benchmark.pedantic(run, rounds=3, iterations=1)
    values = 2 * cos.size
    rate = values / benchmark.stats.stats.min
    absolute_rate = values / absolute_s
    baseline = _mpmath_rate(positions[::20], omegas)
    x = np.random.default_rng(0).standard_normal((20, CONFIG.head_dim))
    start = time.perf_counter()
    oracle.rotate(x, positions[:20], CONFIG)
    rotated = x.size / (time.perf_counter() - start)
    benchmark.extra_info.update(
        {
            "cos_sin_values_per_s": round(rate),
            "absolute_oracle_values_per_s": round(absolute_rate),
            "ratio_vs_absolute_oracle": round(rate / absolute_rate, 2),
            "baseline_mpmath_113bit_values_per_s": round(baseline),
            "ratio_vs_mpmath": round(rate / baseline, 2),
            "rotated_components_per_s": round(rotated),
        }
    )
    print(
        f"rotary oracle: {rate:,.0f} cos/sin values/s ({rate / absolute_rate:.2f}x the absolute "
        f"oracle, {rate / baseline:.1f}x a 113-bit mpmath loop); {rotated:,.0f} rotated "
        f"components/s"
    )


def test_rotary_fixture_verification_time(benchmark: Any) -> None:
    """Seconds to verify every rotary golden set against the oracle, caches cleared first
    (the oracle's interval runs and certified frequencies are computed again)."""
    from pespec.conformance.fixtures import fixture_directory
    from pespec.rope.golden import GOLDEN, verify_rope_fixture

    paths = sorted(fixture_directory().glob("rope-*.json"))

    def run() -> int:
        for cache in (oracle._interval_run, oracle._certified, oracle._enclosure_at):
            cache.cache_clear()
        problems = 0
        for path in paths:
            problems += len(verify_rope_fixture(GOLDEN.parse(path.name, path.read_bytes())))
        return problems

    assert benchmark.pedantic(run, rounds=3, iterations=1) == 0
    benchmark.extra_info["files"] = len(paths)
    benchmark.extra_info["verify_seconds"] = round(benchmark.stats.stats.min, 3)
    print(f"rotary fixtures: {len(paths)} files verified in {benchmark.stats.stats.min:.2f} s")
