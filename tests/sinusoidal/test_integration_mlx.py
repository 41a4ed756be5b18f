"""mlx's ``nn.SinusoidalPositionalEncoding`` with its defaults as a backend (SPEC Annex F.8).

The real module (mlx 0.32.4, CPU) must be CONFORMANT at float32 to the ``mlx`` preset (output
scale √(2/d)) and not to ``tensor2tensor`` (the same frequencies without the scale), whose
diagnosis names the mlx convention. mlx's log-linear frequency formula leaves the angle model
of SPEC §4.1 A3 above d ≈ 1000 (ratio 1.19 at d = 1024, 1.09 at d = 2078); the preset declares
it (A8, Annex A.8), so the module is checked at every d, large positions included, with its
worst ratios printed. Skipped when mlx is absent.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.conformance import check
from pespec.sinusoidal.compare import compare_blocks
from pespec.sinusoidal.properties.base import parse_level
from pespec.sinusoidal.reference.conventions import MLX
from pespec.sinusoidal.reference.exact import scaled_reference_error

mx = pytest.importorskip("mlx.core")
nn = pytest.importorskip("mlx.nn")


def mlx_default(positions: Any, d_model: int, base: float) -> Any:
    """The module with its defaults, base = 1/min_freq (min_freq = 1e-4 is base 10^4)."""
    module = nn.SinusoidalPositionalEncoding(d_model, min_freq=1.0 / base)
    return np.array(module(mx.array(np.asarray(positions, dtype=np.float32))))


POSITIONS = np.concatenate(
    [np.arange(0, 600), np.random.default_rng(11).integers(1, 2**24, 1900)]
).astype(np.int64)


@pytest.mark.parametrize("d_model", [64, 512, 1024, 2078, 4096])
def test_the_module_is_within_the_bound_of_the_mlx_preset_at_large_d(d_model: int) -> None:
    """Positions 0..599 and 1,900 up to 2^24; the ratio is printed (SPEC Annex A.8)."""
    output = mlx_default(POSITIONS, d_model, 10000.0)
    worst = compare_blocks(
        output,
        POSITIONS,
        d_model,
        10000.0,
        parse_level("float32"),
        convention=MLX,
        reference_error=scaled_reference_error(MLX, d_model),
    )
    print(f"mlx d={d_model}: worst ratio {worst.ratio:.3f} at p={worst.position}")
    assert worst.violations == 0 and worst.ratio < 1.0, (worst.ratio, worst.position)


@pytest.mark.slow
def test_the_default_mlx_module_is_conformant_to_the_mlx_preset() -> None:
    report = check(mlx_default, level="float32", convention="mlx", profile="ci")
    assert report.verdict == "conformant", [
        c.message for c in report.checks if c.status == "failed"
    ]


@pytest.mark.slow
def test_the_default_mlx_module_is_not_tensor2tensor_and_the_diagnosis_says_mlx() -> None:
    report = check(
        mlx_default, level="float32", convention="tensor2tensor", stages=("golden",), profile="ci"
    )
    assert report.verdict == "non-conformant"
    assert "Output computes the mlx convention" in (report.diagnosis_sentence or "")
    assert "outputs scaled by √(2/d)" in (report.diagnosis_sentence or "")
