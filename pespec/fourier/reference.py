"""The float64 reference of the Fourier family (SPEC §10.5): NumPy, as libraries write it.

``encode(x, conv)`` forms each angle the way the error model's F1 assumes (ω_j and c·s
rounded once to float64, one product with x per coordinate, a k-term sum) and takes NumPy's
sin and cos; it is therefore within :func:`pespec.fourier.errormodel.element_bounds` at
level float64 of the exact values (tests/fourier/test_reference.py checks it against the
certified oracle). It is the family's built-in backend (``pespec.fourier.reference:encode``)
and the base every diagnosis alternative is computed from.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.fourier.convention import FourierConvention
from pespec.fourier.presets import convention_from

__all__ = ["encode", "weights"]


def weights(conv: FourierConvention) -> NDArray[np.float64]:
    """W (m, k) in float64, each ω_j rounded once (b^e through the correctly rounded
    rational when e is an integer, else math.pow)."""
    if conv.law == "matrix":
        return np.array(conv.matrix, dtype=np.float64)
    w = np.zeros((conv.angles, conv.in_dims))
    omegas = []
    for j in range(conv.bands):
        exact, exponent = conv.frequency(j)
        omegas.append(float(exact) if exact is not None else math.pow(conv.base, float(exponent)))
    for row, (j, i) in enumerate(conv.angle_index()):
        w[row, i] = omegas[j]
    return w


def encode(x: Any, config: Any) -> NDArray[np.float64]:
    """The encoding of each row of ``x`` (n, k) float64 under ``config`` (a convention, a
    preset name or a dict): (n, D) float64."""
    conv = convention_from(config)
    x = np.asarray(x, dtype=np.float64)
    factor = conv.input_scale * {"none": 1.0, "pi": math.pi, "2pi": 2 * math.pi}[conv.pi]
    angles = ((np.log(x) if conv.input_log else x) @ weights(conv).T) * factor
    parts = {"sin": np.sin(angles), "cos": np.cos(angles), "raw": x}
    out = np.empty((x.shape[0], conv.width), dtype=np.float64)
    for column, (kind, j) in enumerate(conv.columns()):
        out[:, column] = parts[kind][:, j]
    return out
