"""The rotary error model by pipeline stage (SPEC §8.7): levels and the per-element bound.

A rotary implementation is a pipeline: inverse frequencies ω'_j and the phase p·ω'_j in the
*phase* dtype, cos/sin (times A where it is folded in) stored in the *cache* dtype, the
rotation (a·c − b·s, a·s + b·c) in the *rotation* dtype, the result stored in the output
dtype. A :class:`RopeLevel` names the three stage dtypes; :func:`element_bound` bounds
|y − exact| per output element from them and |x|, with the assumptions of SPEC §8.7:
library sin, cos, pow and exp within LIBRARY_ULPS = 4 ulp (the one value of both families,
:data:`pespec.numerics.formats.LIBRARY_ULPS`, SPEC §4.1 A2), one rounding per stored stage
(round to nearest), no fast-math intrinsics outside their documented range, no flush-to-zero.

Shapes: x (n, head_dim), positions (n,); bounds (n, head_dim), float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import DTYPES, LIBRARY_ULPS, SIGNIFICAND_BITS
from pespec.rope.config import RopeConfig
from pespec.rope.schedules.registry import SCHEDULES

__all__ = [
    "DEFAULT_LEVELS",
    "LIBRARY_ULPS",
    "RopeLevel",
    "check_rope_claim",
    "element_bound",
    "parse_rope_level",
    "rope_level_for_dtype",
    "schedule_constant",
    "tolerance",
]

F64 = NDArray[np.float64]

_MIN_HALF_SUBNORMAL: Final = {
    "float64": 2.0**-1075,
    "float32": 2.0**-150,
    "float16": 2.0**-25,
    "bfloat16": 2.0**-134,
}
"""Half the smallest subnormal: the absolute error of one rounding near zero."""


def _u(name: str) -> float:
    return 2.0 ** -SIGNIFICAND_BITS[name]


@dataclass(frozen=True)
class RopeLevel:
    """The precision of each stage: ``phase`` (ω' and p·ω'), ``cache`` (cos/sin), ``rotation``.

    Levels are ordered component-wise by unit roundoff; a backend may claim only a level at
    least as tight as the default of its output dtype in every component.
    """

    phase: str
    cache: str
    rotation: str

    def __post_init__(self) -> None:
        for stage in ("phase", "cache", "rotation"):
            value = getattr(self, stage)
            if value not in DTYPES:
                raise ValueError(f"level {stage} must be one of {sorted(DTYPES)}; got {value!r}")

    @property
    def name(self) -> str:
        """``phase/cache/rotation``, e.g. ``float32/bfloat16/bfloat16``."""
        return f"{self.phase}/{self.cache}/{self.rotation}"

    def stages(self) -> dict[str, str]:
        """The stage tuple as a JSON-ready dict."""
        return {"phase": self.phase, "cache": self.cache, "rotation": self.rotation}

    def at_least_as_tight(self, other: RopeLevel) -> bool:
        """True when every stage of this level is at least as precise as ``other``'s."""
        return all(
            _u(getattr(self, s)) <= _u(getattr(other, s)) for s in ("phase", "cache", "rotation")
        )


DEFAULT_LEVELS: dict[str, RopeLevel] = {
    "float64": RopeLevel("float64", "float64", "float64"),
    "float32": RopeLevel("float32", "float32", "float32"),
    "float16": RopeLevel("float32", "float16", "float16"),
    "bfloat16": RopeLevel("float32", "bfloat16", "bfloat16"),
}
"""The default level of each output dtype (SPEC §8.7): transformers' stack for half outputs."""


def rope_level_for_dtype(output_dtype: str) -> RopeLevel:
    """The default level of an output dtype name."""
    if output_dtype not in DEFAULT_LEVELS:
        raise ValueError(
            f"output dtype must be one of {sorted(DEFAULT_LEVELS)}; got {output_dtype!r}"
        )
    return DEFAULT_LEVELS[output_dtype]


def parse_rope_level(text: str) -> RopeLevel:
    """``"float32/bfloat16/bfloat16"`` (or comma-separated) -> a level; one dtype -> its default."""
    if not isinstance(text, str):
        raise TypeError(
            f"level must be a string such as 'float32/bfloat16/bfloat16'; got {type(text).__name__}"
        )
    parts = [p.strip() for p in text.replace(",", "/").split("/")]
    if len(parts) == 1 and parts[0] in DEFAULT_LEVELS:
        return DEFAULT_LEVELS[parts[0]]
    if len(parts) != 3 or any(p not in DTYPES for p in parts):
        raise ValueError(
            f"level must be PHASE/CACHE/ROTATION with dtypes in {sorted(DTYPES)}, "
            f"or one output dtype; got {text!r}"
        )
    return RopeLevel(*parts)


def check_rope_claim(level: RopeLevel, output_dtype: str) -> RopeLevel:
    """``level`` if it is at least as tight as the output dtype's default, else ValueError."""
    default = rope_level_for_dtype(output_dtype)
    if not level.at_least_as_tight(default):
        raise ValueError(
            f"level {level.name!r} is looser than the default {default.name!r} "
            f"of {output_dtype} output in some stage; a claim can only tighten it"
        )
    return level


def schedule_constant(config: RopeConfig, dtype: str) -> F64:
    """K_j, shape (d_r/2,): |ω̂'_j − ω'_j| ≤ K_j·u·ω'_j for ω' computed in ``dtype`` (§8.7).

    default: θ rounded (e_j·u), the exponent e_j = 2j/d_r rounded (e_j·ln θ·u), pow within
    LIBRARY_ULPS ulp (2·LIBRARY_ULPS·u: one ulp is at most 2u relative), the reciprocal (u). Each
    schedule adds its own operations: linear +2 (s rounded, the division); dynamic uses the
    rescaled base, +1 for its rounding; longrope +2 (factor rounded, product); llama3 +2, and
    in the wavelength band the smooth factor's error times (s − 1); yarn +5 (interpolated
    frequency and the blend), and in the ramp the ramp's error times (s − 1). Each schedule
    states its part in its module (custom's ω' are given:
    K_j = 1, their rounding) (:class:`pespec.rope.schedules.base.Schedule`: ``float64_base``,
    ``constant``, ``band_term``).
    """
    half = config.d_r // 2
    e = 2.0 * np.arange(half, dtype=np.float64) / config.d_r
    schedule = SCHEDULES[config.rope_type]
    base = schedule.float64_base(config)
    k = e * (math.log(base) + 1.0) + 2.0 * LIBRARY_ULPS + 1.0
    if not schedule.computed:  # ω' given (custom): one rounding to the phase dtype
        k = np.ones(half, dtype=np.float64)
    k = k + schedule.constant
    if schedule.band_term is not None:
        k = k + schedule.band_term(config, e, k, _u(dtype))
    return np.asarray(k, dtype=np.float64)


def _rounding_error(values: NDArray[Any], dtype: str) -> F64:
    """|v − fl(v)| ≤ u·|v| when v is not exactly representable in ``dtype``, else 0."""
    v = np.asarray(values, dtype=np.float64)
    back = (
        v.astype(np.float32).astype(DTYPES[dtype]).astype(np.float64) if dtype != "float64" else v
    )
    exact = back == v
    return np.where(exact, 0.0, _u(dtype) * np.abs(v) * (1 + _u(dtype)))


def element_bound(
    x: Any, positions: Any, config: RopeConfig, level: RopeLevel, output_dtype: str
) -> F64:
    """Bound on |y − exact| per element at ``level`` (SPEC §8.7), shape (n, head_dim).

    x (n, head_dim) float64, positions (n,). Pass-through columns get 0 (bit for bit).
    """
    from pespec.rope.oracle import attention_factor, frequencies
    from pespec.rope.reference import pair_views as _views

    values = np.asarray(x, dtype=np.float64)
    p = np.asarray(positions, dtype=np.float64)
    omega, _ = frequencies(config)
    big_a = attention_factor(config)
    u_p, u_c, u_r, u_o = (_u(level.phase), _u(level.cache), _u(level.rotation), _u(output_dtype))
    k = schedule_constant(config, level.phase)
    p_err = _rounding_error(p, level.phase)[:, None]
    p_hat = np.abs(p)[:, None] + p_err
    # The phase: ω̂'·p̂ rounded; |Δφ| ≤ ω'(|p − p̂| + |p̂|((K+1)u + K u²)(1 + u)).
    dphi = omega[None, :] * (p_err + p_hat * ((k + 1) * u_p + k * u_p * u_p) * (1 + u_p))
    # cos/sin of the rounded angle: |Δφ| plus the library's error (≤ 2·LIBRARY_ULPS·u).
    e_cs = np.minimum(dphi, 2.0) + 2 * LIBRARY_ULPS * u_p
    folded = 0.0 if big_a == 1.0 else 2 * u_p  # Â rounded, the product Â·c
    eta = 8 * max(
        _MIN_HALF_SUBNORMAL[d] for d in (level.phase, level.cache, level.rotation, output_dtype)
    )
    big_e = big_a * (e_cs + folded) * (1 + u_p) + u_c * big_a * (1 + e_cs + folded)
    a, b = _views(values, config, output=False)
    mass = np.abs(a) + np.abs(b)
    ops = 3.0 if big_a == 1.0 else 4.0  # a·c, b·s, the sum, (A applied in the rotation)
    rot = ops * u_r * mass * (big_a + big_e) * (1 + u_r) ** 3
    pair = mass * big_e + rot
    if output_dtype != level.rotation:
        pair = pair + u_o * (mass * (big_a + big_e) + rot)
    pair = pair * (1 + 2.0**-50) + eta
    if config.xpos_scale_base is not None:  # σ_j(p) on each pair (SPEC Annex J)
        pair = _xpos_bound(pair, big_a * mass, p, config, level)
    bound = np.zeros(values.shape, dtype=np.float64)
    y_a, y_b = _views(bound, config, output=True)
    y_a[...] = pair
    y_b[...] = pair
    return bound


def tolerance(
    x: Any,
    positions: Any,
    config: RopeConfig,
    level: RopeLevel,
    output_dtype: str,
    against: F64 | float | None = None,
) -> F64:
    """THE rotary tolerance: the bound on |y − r| per element of a backend's output y
    against a value r it is compared with, shape (n, head_dim); every stage asks it.

    The level's :func:`element_bound` (y's distance from the exact rotation) plus r's own
    proved distance from the exact: ``against=None``, r is the float64 reference
    (:func:`~pespec.rope.reference.rotation_bound`, SPEC Annex C.6); otherwise ``against``
    is that distance (``2^-53·|r|`` for a correctly rounded oracle value, §8.6).
    """
    bound = element_bound(x, positions, config, level, output_dtype)
    if against is None:
        from pespec.rope.reference import rotation_bound

        against = rotation_bound(x, config, positions)
    out: F64 = bound + against
    return out


def _xpos_bound(pair: F64, exact: F64, p: F64, config: RopeConfig, level: RopeLevel) -> F64:
    """The pair bound with xPos: σ(1 + ε_σ)·bound + σ·(ε_σ + 2u_r)·A·(|a| + |b|), ε_σ the
    backend's scale error, 2u_r the scale's product in the rotation (a·c·σ, b·s·σ)."""
    from pespec.rope.xpos import backend_scale_error, pair_scales

    sigma = pair_scales(p, config)
    eps = backend_scale_error(p, config, level.phase, level.cache)
    extra = sigma * (eps + 2 * _u(level.rotation) * (1 + eps)) * exact
    out: F64 = (sigma * (1 + eps) * pair + extra) * (1 + 2.0**-50)
    return out
