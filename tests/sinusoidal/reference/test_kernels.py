"""The compiled kernels (numba, SPEC Annex C.5) give the NumPy path's values bit for bit.

The kernels repeat the NumPy path's IEEE operations in the same order; these tests run
every entry point both ways and compare the float64 bit patterns, so the accuracy tests
(which run on whichever path is installed) cover both. Skipped without numba.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from pespec.numerics import kernels as _kernels
from pespec.sinusoidal.reference import encoding, exact
from pespec.sinusoidal.reference.conventions import PRESETS, Convention


def test_inline_rint_is_numpy_rint() -> None:
    # Plain Python here (numba compiles the same function): ties to even, the sign of
    # zero kept (rint(−0.3) = −0.0), and every |x| ≥ 2^52 already an integer.
    edges = [
        0.5,
        1.5,
        2.5,
        -0.5,
        -1.5,
        -0.3,
        0.3,
        -0.0,
        0.0,
        2.0**52 - 0.5,
        2.0**51 + 0.5,
        2.0**52,
        2.0**52 + 2,
        2.0**53,
        -(2.0**52) + 0.5,
        1e300,
        -1e300,
        5e-324,
        127.5,
    ]
    rng = np.random.default_rng(5)
    values = edges + list(rng.uniform(-1e6, 1e6, 200)) + list(rng.uniform(-300, 300, 200))
    for value in values:
        got = (
            _kernels._rint.py_func(value)
            if hasattr(_kernels._rint, "py_func")
            else (_kernels._rint(value))
        )
        expected = float(np.rint(value))
        assert np.float64(got).view(np.int64) == np.float64(expected).view(np.int64), value


@pytest.fixture
def both_paths() -> Iterator[Callable[[Callable[[], Any]], tuple[Any, Any]]]:
    pytest.importorskip("numba")
    if not _kernels.available():
        pytest.skip("kernels disabled by PESPEC_PURE_NUMPY")

    def run(function: Callable[[], Any]) -> tuple[Any, Any]:
        results = []
        for enabled in (False, True):
            _kernels.set_enabled(enabled)
            exact._cached_fine.cache_clear()
            results.append(function())
        return results[0], results[1]

    old = _kernels.enabled()
    try:
        yield run
    finally:
        _kernels.set_enabled(old)
        exact._cached_fine.cache_clear()


def _same_bits(a: Any, b: Any) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.array_equal(a.view(np.int64), b.view(np.int64)))


RNG = np.random.default_rng(16)
SCATTERED = np.concatenate([RNG.integers(-(2**40), 2**40, 300), [0, 1, 63, 64, -64, 2**52 + 1]])
FRACTIONAL = np.concatenate(
    [RNG.uniform(-1000, 1000, 200), [0.5, -0.5, 1e-300, -5e-324, 2.0**40 + 0.5, -0.0]]
)
SORTED = np.sort(RNG.integers(0, 2**31, 600))
UNIFORM = RNG.uniform(0, 1000, 300)
CASES: dict[str, Callable[[Convention], Any]] = {
    "range": lambda c: encoding.sinusoidal_positional_encoding(300, 64, convention=c),
    "range-offset": lambda c: encoding.sinusoidal_positional_encoding(
        700, 32, offset=2**31 - 300, convention=c
    ),
    "range-through-zero": lambda c: encoding.encode(np.arange(-200, 90), 16, convention=c),
    "short-range": lambda c: encoding.encode(np.arange(5, 40), 8, convention=c),
    "scattered-ints": lambda c: encoding.encode(SCATTERED, 32, convention=c),
    "fractional": lambda c: encoding.encode(FRACTIONAL, 32, convention=c),
    "mixed-floats": lambda c: encoding.encode(
        np.array([[1.0, 0.25], [-3.0, 2.5e9 + 0.5], [7.75, 4096.0]]), 16, convention=c
    ),
    "chunks": lambda c: np.concatenate(
        [b for _, b in encoding.iter_encoding_chunks(range(-70, 500, 3), 24, chunk_rows=50)]
    ),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("preset", list(PRESETS))
def test_kernels_equal_numpy_path_bit_for_bit(
    both_paths: Callable[[Callable[[], Any]], tuple[Any, Any]], case: str, preset: str
) -> None:
    numpy_path, kernels = both_paths(lambda: CASES[case](PRESETS[preset]))
    assert _same_bits(numpy_path, kernels)


def test_kernels_equal_numpy_path_at_benchmark_sizes(
    both_paths: Callable[[Callable[[], Any]], tuple[Any, Any]],
) -> None:
    # d = 1024 (several column tiles in the NumPy path), 600 scattered rows and 300
    # fractional ones at d = 512, so the tiling and chunking branches of both paths run.
    cases = [
        lambda: encoding.sinusoidal_positional_encoding(1100, 1024),
        lambda: encoding.encode(SORTED, 512),
        lambda: encoding.encode(UNIFORM, 512),
    ]
    for case in cases:
        assert _same_bits(*both_paths(case))


def test_pure_numpy_environment_variable_selects_the_numpy_path() -> None:
    import os
    import subprocess
    import sys

    code = "from pespec.numerics import kernels; print(kernels.enabled())"
    env = {**os.environ, "PESPEC_PURE_NUMPY": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
