"""SGLang's rotary embedding in its own environment (issue 35); skipped where sglang is not
importable (every environment but ``tools/engine-env sglang``'s)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")  # SGLang's CPU code, before its import


def _unit_angles(module: object, positions: object, half: int) -> np.ndarray:
    """Angle pair j turned by for rows j < half (unit vectors of pair j's first element)."""
    import torch

    d = 2 * half
    x = torch.zeros(len(positions), d)  # type: ignore[arg-type]
    rows = torch.arange(half)
    x[rows, rows] = 1.0
    out, _ = module.forward(positions, x.clone(), x.clone())  # type: ignore[attr-defined]
    return torch.atan2(out[rows, half + rows], out[rows, rows]).double().numpy()


@pytest.mark.slow
def test_sglang_longrope_leaves_position_4096_unrotated_in_a_4097_token_call() -> None:
    # Finding (tools/engine-repro/sglang_longrope_boundary.py): SGLang takes the long factors
    # only when a position in the call exceeds k = 4096 and otherwise indexes its (k short
    # rows, then long rows) cache at the position: position k reads the long cache's row 0,
    # angle 0. The definition (seq_len = 4097 > k: long factors) turns pair j by 4096·ω_j.
    # A 4098-token call takes the long factors: mpmath's p·ω_j within float32's phase error
    # (four roundings of ω_j·p, <= 4·2^-24·4097 < 1e-3 rad; measured 2.9e-4).
    pytest.importorskip("sglang")
    mpmath = pytest.importorskip("mpmath")
    import torch

    from pespec.clients import sglang_rope

    mpmath.mp.dps = 40
    config = json.loads((sglang_rope._PUBLISHED / "phi-3.5-mini-instruct.json").read_text())
    long, d = config["rope_scaling"]["long_factor"], 96
    module = sglang_rope.rotary_module("Phi-3.5-mini-instruct-seq-len-4096", "float32")

    def exact(p: int, factor: float, j: int) -> float:
        phase = p / (mpmath.mpf(factor) * mpmath.power(10000, mpmath.mpf(2 * j) / d))
        return float(phase - 2 * mpmath.pi * mpmath.nint(phase / (2 * mpmath.pi)))

    def gap(got: np.ndarray, p: int) -> float:
        want = np.array([exact(p, f, j) for j, f in enumerate(long)])
        return float(np.max(np.abs(np.angle(np.exp(1j * (got - want))))))

    for length, wrong in ((4097, True), (4098, False)):
        positions = torch.arange(length)
        positions[: d // 2] = length - 1
        got = _unit_angles(module, positions, d // 2)
        if wrong:
            assert np.all(got == 0.0) and gap(got, length - 1) > 2.0
        else:
            assert gap(got, length - 1) < 1e-3
