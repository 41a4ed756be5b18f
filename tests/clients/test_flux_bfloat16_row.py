"""The conformance table's NON-CONFORMANT row ``diffusers:flux-timesteps`` in bfloat16,
confirmed by an independent mpmath computation of what diffusers computes (issue 29: every
NON-CONFORMANT row's cause is confirmed so, never by pespec's own reference).

diffusers' ``FluxTransformer2DModel`` forms its timestep embedding from
``timestep.to(hidden_states.dtype) * 1000`` (a bfloat16 pipeline: t rounded to bfloat16, the
product rounded to bfloat16) and ``Timesteps(256, flip_sin_to_cos=True,
downscale_freq_shift=0)``: y = [cos(t'ω_k) | sin(t'ω_k)], ω_k = exp(−ln(10^4)·k/128). The test
shows the library's output is that function of t' = bf16(bf16(t)·1000) within float32
accuracy, and far from the same function of 1000·t: the cause the row names ("the scaled
timestep 1000·t rounded to bfloat16", issue 39) is what the library computes.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from pespec.clients.sinusoidal_libraries import flux_timesteps_bfloat16

pytest.importorskip("diffusers")
ml_dtypes = pytest.importorskip("ml_dtypes")

D = 256
HALF = D // 2


def _exact(t_scaled: float) -> np.ndarray:
    """[cos(t'ω_k) | sin(t'ω_k)] at 60 digits, ω_k = exp(−ln(10^4)·k/HALF)."""
    mpmath.mp.dps = 60
    omegas = [mpmath.exp(-mpmath.log(10000) * k / HALF) for k in range(HALF)]
    t = mpmath.mpf(t_scaled)
    return np.array(
        [float(mpmath.cos(t * w)) for w in omegas] + [float(mpmath.sin(t * w)) for w in omegas]
    )


def _bf16(value: float) -> float:
    return float(np.float32(value).astype(ml_dtypes.bfloat16))


def test_the_bfloat16_row_computes_the_embedding_of_rounded_timesteps() -> None:
    ts = np.array([0.0, 0.1234567, 0.3333333, 0.5, 0.7777777, 0.999], dtype=np.float64)
    out = np.asarray(flux_timesteps_bfloat16(ts, D, 10000.0), dtype=np.float64)
    u = 2.0**-24
    # float32 pipeline bound (derivation): ω_k = exp(a_k) with |a_k| ≤ ln 10^4 < 9.22 has
    # relative error ≤ (|a_k| + 2)u; t'·ω_k one more u; cos/sin ≤ 2 ulps: |Δy| ≤
    # |t'ω_k|(|a_k| + 3)u + 4u ≤ |t'|·12.3u + 4u.
    far = 0.0
    for row, t in zip(out, ts, strict=True):
        t_prime = _bf16(_bf16(t) * 1000.0)
        bound = abs(t_prime) * 12.3 * u + 4 * u
        assert np.max(np.abs(row - _exact(t_prime))) <= bound
        far = max(far, float(np.max(np.abs(row - _exact(1000.0 * t)))))
    assert far > 0.1  # the embedding of the unrounded timesteps is far away
