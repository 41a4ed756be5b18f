"""One accuracy of library sin/cos/pow/exp for both families (issue 25, item 2b; SPEC §4.1 A2).

The value c_f = 4 ulp is the weakest published figure among the libraries a backend calls
(Annex A.4: CUDA ``powf`` 4 ulp, NumPy's SIMD float32 sin/cos "4 ULP"); before issue 25 the
rotary family assumed 2. The expected bound below is R8.12 written out at position 0, not
read from the code under test.
"""

from __future__ import annotations

import numpy as np

from pespec.numerics import formats
from pespec.rope import PRESETS, element_bound
from pespec.rope import errormodel as rope_errormodel
from pespec.rope.errormodel import rope_level_for_dtype


def test_both_families_assume_the_same_library_accuracy() -> None:
    assert formats.LIBRARY_ULPS == 4.0  # SPEC §4.1 A2: c_f = 4
    assert rope_errormodel.LIBRARY_ULPS == formats.LIBRARY_ULPS
    assert set(formats.FUNCTION_ULPS.values()) == {formats.LIBRARY_ULPS}


def test_rotary_bound_at_position_zero_has_four_ulp_of_sin_cos() -> None:
    # R8.12 at p = 0 (exact in every dtype: Δφ = 0), float32 level, A = 1 (Llama-2),
    # x = e_0 (pair 0: |a| + |b| = 1), output dtype = rotation dtype (no output term):
    #   e_cs = 2·c_f·u,  E = e_cs·(1 + u) + u·(1 + e_cs),  R = 3u·(1 + E)·(1 + u)^3,
    #   bound = (E + R)·(1 + 2^-50) + 8·2^-150 (8 half-subnormals of float32).
    config = PRESETS["Llama-2-7B"]
    u, c_f = 2.0**-24, 4.0
    e_cs = 2 * c_f * u
    big_e = e_cs * (1 + u) + u * (1 + e_cs)
    rot = 3 * u * (1 + big_e) * (1 + u) ** 3
    expected = (big_e + rot) * (1 + 2.0**-50) + 8 * 2.0**-150
    x = np.zeros((1, config.head_dim))
    x[0, 0] = 1.0
    bound = element_bound(x, np.array([0]), config, rope_level_for_dtype("float32"), "float32")
    assert np.isclose(bound[0, 0], expected, rtol=1e-12, atol=0.0)
