"""The ``ntk`` schedule (SPEC §8.3): static NTK-aware scaling, the base enlarged once.

θ' = θ·s^(d_r/(d_r − 2)), ω'_j = θ'^(−2j/d_r) = θ^(−2j/d_r)·s^(−2j/(d_r − 2)); A = 1;
d_r >= 4. The ``dynamic`` schedule at a fixed ratio, declared for what it is (rotary-
embedding-torch's ``theta_rescale_factor``, transformers' HunYuan ``alpha``, diffusers'
Cosmos ``rope_scale``; SPEC Annex F.4 lists the sources and the forms that differ).
Error constant (SPEC §8.7): the base term of θ' (its float64 value, ``float64_base``) plus
e_j times the error of θ' beyond one rounding: the exponent d_r/(d_r − 2) rounded
(magnified by ln s^(d_r/(d_r − 2))) and pow (2·LIBRARY_ULPS). Slips: θ multiplied by s
itself (the exponent left out), every ω divided by s^(d_r/(d_r − 2)) (linear scaling by the
NTK ratio, keras-hub's ``rope_type="dynamic"``), and the exponent over head_dim instead of d_r.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import LIBRARY_ULPS
from pespec.rope.schedules.base import Arith, HfBlock, Schedule, ScheduleConfig, Slip

__all__ = ["SCHEDULE", "SPEC_ORDER"]

F64 = NDArray[np.float64]


def _check(config: ScheduleConfig, rotary: int, fields: dict[str, Any]) -> dict[str, Any]:
    if rotary < 4:
        raise ValueError(
            f"rotary_dim must be >= 4 for rope_type 'ntk' (the exponent "
            f"d_r/(d_r - 2)); got {rotary}"
        )
    return {}


def _exact(config: ScheduleConfig, ar: Arith) -> tuple[list[Any], Any]:
    assert config.factor is not None
    d_r, theta, s = config.d_r, Fraction(config.theta), Fraction(config.factor)
    # θ'^(−2j/d_r) = θ^(−2j/d_r)·s^(−2j/(d_r − 2)), exactly
    omegas = [
        ar.power(theta, Fraction(-2 * j, d_r)) * ar.power(s, Fraction(-2 * j, d_r - 2))
        for j in range(d_r // 2)
    ]
    return omegas, ar.q(1)


def _float64_base(config: ScheduleConfig) -> float:
    """θ' = θ·s^(d_r/(d_r − 2)) in float64, as an implementation computes it."""
    assert config.factor is not None
    return float(config.theta * config.factor ** (config.d_r / (config.d_r - 2)))


def _theta_term(config: ScheduleConfig, e: F64, k: F64, u: float) -> F64:
    """e_j·(ln s^(d_r/(d_r − 2)) + 2·LIBRARY_ULPS): θ''s error beyond the one rounding that
    the base term counts (the exponent rounded, then pow), carried into ω'_j with weight e_j."""
    assert config.factor is not None
    exponent = config.d_r / (config.d_r - 2)
    return e * (exponent * math.log(config.factor) + 2.0 * LIBRARY_ULPS)


def _hf_fields(source: HfBlock) -> dict[str, Any]:
    """HunYuan's ``alpha`` (its ``factor`` is then unused), else ``factor``."""
    alpha = source.block.get("alpha")
    return {"factor": source.block.get("factor") if alpha is None else alpha}


def _claims(block: Mapping[str, Any]) -> bool:
    """HunYuan's block: "dynamic" with a fixed ``alpha`` is static NTK (transformers
    ``HunYuanDenseV1RotaryEmbedding.compute_ntk_alpha_rope_parameters``)."""
    kind = block.get("rope_type") or block.get("type")
    return kind == "dynamic" and block.get("alpha") is not None


def _slips(c: ScheduleConfig) -> list[Slip]:
    assert c.factor is not None
    out = []
    plain = c.theta * c.factor
    out.append(
        Slip(
            {"rope_type": "default", "theta": plain},
            f"θ multiplied by s = {c.factor:g} instead of s^(d_r/(d_r − 2)) (the NTK "
            f"exponent left out: θ' = {plain:.6g})",
            {"theta": plain},
        )
    )
    linear = c.factor ** (c.d_r / (c.d_r - 2))
    out.append(
        Slip(
            {"rope_type": "linear", "factor": linear},
            f"every ω divided by s^(d_r/(d_r − 2)) = {linear:.6g} (linear scaling, not NTK: "
            f"keras-hub's rope_type='dynamic')",
            {"factor": linear},
        )
    )
    if c.head_dim != c.d_r and c.head_dim > 2:
        wide = c.theta * c.factor ** (c.head_dim / (c.head_dim - 2))
        out.append(
            Slip(
                {"rope_type": "default", "theta": wide},
                f"the NTK exponent taken over head_dim = {c.head_dim} instead of d_r = "
                f"{c.d_r} (θ' = {wide:.6g})",
                {"theta": wide},
            )
        )
    return out


SPEC_ORDER = 6
"""Where SPEC §8.3 lists this schedule (the registry's order, and ``ROPE_TYPES``')."""

SCHEDULE = Schedule(
    name="ntk",
    required=("factor",),
    optional=(),
    exact=_exact,
    constant=0.0,
    hf_fields=_hf_fields,
    check=_check,
    float64_base=_float64_base,
    band_term=_theta_term,
    slips=_slips,
    claims=_claims,
)
"""The static NTK schedule."""
