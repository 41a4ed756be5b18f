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


def cast_oracle(dtype: Any, through32: bool) -> Any:
    """The certified values cast to ``dtype`` (directly, or through float32 first): a
    correctly rounded narrow table (SPEC §10.4 F6)."""
    from pespec.fourier.oracle import oracle_encode
    from pespec.fourier.presets import convention_from

    def backend(x: Any, config: Any) -> Any:
        exact = oracle_encode(np.asarray(x), convention_from(config))
        return (exact.astype(np.float32) if through32 else exact).astype(dtype)

    return backend


def narrow_angles(dtype: Any) -> Any:
    """The reference computed with every intermediate (x, c·ω, the angle) rounded to
    ``dtype``: the angle formed in the narrow format (fails its level)."""
    import math

    from pespec.fourier.presets import convention_from
    from pespec.fourier.reference import weights

    def backend(x: Any, config: Any) -> Any:
        conv = convention_from(config)
        c = conv.input_scale * {"none": 1.0, "pi": math.pi, "2pi": 2 * math.pi}[conv.pi]
        w = (weights(conv) * c).astype(dtype).astype(np.float64)
        xs = np.asarray(x).astype(dtype).astype(np.float64)
        angles = (xs @ w.T).astype(dtype).astype(np.float64)
        parts = {"sin": np.sin(angles), "cos": np.cos(angles), "raw": xs}
        return np.stack([parts[k][:, j] for k, j in conv.columns()], axis=1).astype(dtype)

    return backend


def shifted_sine_float32(x: Any, config: Any) -> NDArray[Any]:
    """nerfstudio's torch path in NumPy float32: 2π·x, times 2^linspace(0, 8, 10), flattened
    (input_dim, num_scales), sin(cat([a, a + π/2])), the input appended."""
    import math

    x32 = np.asarray(x, dtype=np.float32)
    freqs = np.power(np.float32(2), np.linspace(0, 8, 10, dtype=np.float32))
    a = ((np.float32(2 * math.pi) * x32)[..., None] * freqs).reshape(x32.shape[0], -1)
    out = np.sin(np.concatenate([a, a + np.float32(math.pi / 2)], axis=-1))
    return np.concatenate([out, x32], axis=-1)
