"""The frequency schedules of SPEC §8.3: the certified frequencies and YaRN's range.

:func:`frequencies` returns the d_r/2 rotary frequencies ω'_j (radians per position) and the
attention factor A of a :class:`~pespec.rope.config.RopeConfig`, each correctly rounded to
float64 by the rotary oracle. :func:`yarn_correction_dims` is the plain float64 evaluation
of YaRN's correction dimensions that SPEC §8.4's threshold rule is about.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.oracle import frequencies as certified

__all__ = ["frequencies", "yarn_correction_dims"]


def yarn_correction_dims(config: RopeConfig) -> tuple[float, float]:
    """The unrounded YaRN correction dimensions (c(β_fast), c(β_slow)) in float64.

    c(β) = d_r·ln(L0/(2π·β)) / (2·ln θ), the (fractional) pair index whose wavelength fits
    β times into L0 (SPEC §8.3, YaRN). SPEC §8.4 says how a value within float64 rounding
    of an integer is judged.
    """
    if config.rope_type != "yarn":
        raise ValueError(f"rope_type must be 'yarn' for yarn_correction_dims; "
                         f"got {config.rope_type!r}")
    assert config.original_max_position_embeddings is not None
    assert config.beta_fast is not None and config.beta_slow is not None
    l0, d_r = config.original_max_position_embeddings, config.d_r

    def dim(beta: float) -> float:
        return (d_r * math.log(l0 / (beta * 2 * math.pi))) / (2 * math.log(config.theta))

    return dim(config.beta_fast), dim(config.beta_slow)


def frequencies(config: RopeConfig) -> tuple[NDArray[np.float64], float]:
    """(ω'_j for j = 0 .. d_r/2 − 1 as a float64 array, attention factor A), SPEC §8.3.

    Each value is the exact value correctly rounded to float64, certified by the rotary
    oracle (:func:`pespec.rope.oracle.frequencies`, SPEC Annex B.6); cached per configuration.
    """
    if not isinstance(config, RopeConfig):
        raise TypeError(f"config must be a pespec.rope.RopeConfig; got {type(config).__name__}")
    return certified(config)
