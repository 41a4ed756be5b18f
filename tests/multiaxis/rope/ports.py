"""Hand ports of documented multi-axis rotary bug classes (the real code's adapters are the
clients' in :mod:`pespec.clients.mrope_clients`). Ports: a float32 NumPy M-RoPE
with the axis of each frequency given by a table, so a port can carry one bug (sections
permuted or resized, sectioned where interleaved, h and w swapped).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tests.multiaxis.rope.mp import qwen_axis


def numpy_mrope(
    theta: float, section: Sequence[int], interleaved: bool, swap_hw: bool = False
) -> Any:
    """A float32 M-RoPE port: frequency j fed by ``qwen_axis(j, section, interleaved)``
    (h and w exchanged with ``swap_hw``), halves pairing."""

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
        d = x.shape[1]
        j = np.arange(d // 2)
        inv = (
            1.0 / np.float32(theta) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))
        ).astype(np.float32)
        axes = np.array([qwen_axis(int(k), section, interleaved) for k in j])
        if swap_hw:
            axes = np.array([{1: 2, 2: 1}.get(int(a), int(a)) for a in axes])
        p = positions[:, axes].astype(np.float32)
        angle = p * inv[None, :]
        c, s = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
        a, b = x[:, : d // 2].astype(np.float32), x[:, d // 2 :].astype(np.float32)
        return np.concatenate([a * c - b * s, b * c + a * s], axis=1).astype(np.float32)

    return backend


def numpy_flux(axes_dim: Sequence[int], adjacent: bool = True) -> Any:
    """A float32 Flux port: axis i gives ``axes_dim[i]``/2 angles p_i·10000^(−2j/dim),
    concatenated over the axes (one angle per pair); pairs adjacent (``adjacent``) or, as a
    NeoX-style kernel would pair them, (x_s, x_{s+D/2}) over the whole head."""

    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
        angles = []
        for axis, dim in enumerate(axes_dim):
            inv = 1.0 / 10000.0 ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
            angles.append(positions[:, axis : axis + 1].astype(np.float64) * inv[None, :])
        angle = np.concatenate(angles, axis=1)
        c, s = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
        v = x.astype(np.float32)
        half = v.shape[1] // 2
        a, b = (v[:, 0::2], v[:, 1::2]) if adjacent else (v[:, :half], v[:, half:])
        ya, yb = a * c - b * s, b * c + a * s
        if not adjacent:
            return np.concatenate([ya, yb], axis=1)
        out = np.empty_like(v)
        out[:, 0::2], out[:, 1::2] = ya, yb
        return out

    return backend
