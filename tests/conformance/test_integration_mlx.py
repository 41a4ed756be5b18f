"""mlx's ``nn.SinusoidalPositionalEncoding`` with its defaults as a backend (SPEC Annex F.8).

The real module (mlx 0.32.4, CPU) must be CONFORMANT at float32 to the ``mlx`` preset (output
scale √(2/d)) and not to ``tensor2tensor`` (the same frequencies without the scale), whose
diagnosis names the mlx convention. It declares ``max_d_model=512``: above that, mlx's
log-linear frequency formula leaves the angle model of SPEC §4.1 A3 (ratio 1.09 at d = 2078,
the same with and without the scale). Skipped when mlx is absent.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pespec.conformance import check

mx = pytest.importorskip("mlx.core")
nn = pytest.importorskip("mlx.nn")


def mlx_default(positions: Any, d_model: int, base: float) -> Any:
    """The module with its defaults, base = 1/min_freq (min_freq = 1e-4 is base 10^4)."""
    module = nn.SinusoidalPositionalEncoding(d_model, min_freq=1.0 / base)
    return np.array(module(mx.array(np.asarray(positions, dtype=np.float32))))


mlx_default.pespec_capabilities = {"max_d_model": 512}  # type: ignore[attr-defined]


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
