"""Backends of the Fourier tests, written as the cited code writes them (NumPy ports).

``nerf_code`` follows bmild/nerf ``get_embedder``: the identity first, then for each freq in
2.**linspace(0, L-1, L) sin(x*freq), cos(x*freq), with no π; ``nerf_code_pi`` the same with π
(the paper's γ). ``nerf_code_float32`` computes in float32. The others are deliberately wrong
ports for the diagnosis tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def _nerf(x: Any, scale: float, dtype: Any = np.float64, bands: int = 10) -> NDArray[Any]:
    x = np.asarray(x, dtype=dtype)
    parts = [x]
    for freq in 2.0 ** np.linspace(0.0, bands - 1, bands):
        parts += [np.sin(x * dtype(freq) * dtype(scale)), np.cos(x * dtype(freq) * dtype(scale))]
    return np.concatenate(parts, axis=-1)


def nerf_code(x: Any, config: Any) -> NDArray[Any]:
    """bmild/nerf's embedder (multires 10): no π."""
    return _nerf(x, 1.0)


def nerf_code_pi(x: Any, config: Any) -> NDArray[Any]:
    """The paper's γ with π, in the code's layout."""
    return _nerf(x, np.pi)


def nerf_code_float32(x: Any, config: Any) -> NDArray[Any]:
    """bmild/nerf's embedder in float32 (as its TensorFlow code runs)."""
    return _nerf(x, 1.0, np.float32)


def nerf_code_float32_pi(x: Any, config: Any) -> NDArray[Any]:
    """The paper's γ in float32."""
    return _nerf(x, np.pi, np.float32)


def nerf_no_identity(x: Any, config: Any) -> NDArray[Any]:
    """The NeRF code with the raw input left out."""
    return _nerf(x, 1.0)[:, 3:]


def reference_of(**changes: Any) -> Any:
    """A backend computing the float64 reference of the judged convention changed by
    ``changes`` (a one-axis slip)."""
    from pespec.fourier.reference import encode

    def backend(x: Any, config: Any) -> NDArray[np.float64]:
        return encode(x, config.with_changes(**changes))

    return backend
