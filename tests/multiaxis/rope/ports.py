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


def small(name: str, **grid: Any) -> dict[str, Any]:
    """The multiaxis-rope preset ``name`` on a small grid: 2 frames of 6 × 6 between 4 text
    tokens (``grid``: other values of those keys)."""
    from pespec.multiaxis.rope.presets import PRESETS

    preset = PRESETS[name]
    data: dict[str, Any] = {"config": preset.config.to_dict(), "ids": preset.ids, "grid": [2, 6, 6]}
    data.update({"text_before": 4, "text_after": 4, **grid})
    return data


def small_config(preset: str) -> dict[str, Any]:
    """The small grid a port of :data:`BUG_CLASSES` is checked on (Flux: one 8 × 8 image)."""
    return small(preset, grid=[1, 8, 8], text_before=4) if preset == "flux.1" else small(preset)


BUG_CLASSES: tuple[tuple[str, Any, str, str | None], ...] = (
    (
        "numpy_mrope(5e6, (24, 20, 20), interleaved)",
        numpy_mrope(5e6, (24, 20, 20), True),
        "qwen3-vl-4b",
        None,
    ),
    (
        "numpy_mrope(5e6, (24, 20, 20), sectioned)",
        numpy_mrope(5e6, (24, 20, 20), False),
        "qwen3-vl-4b",
        "sectioned M-RoPE instead of interleaved",
    ),
    (
        "numpy_mrope(1e6, (16, 24, 24), sectioned)",
        numpy_mrope(1e6, (16, 24, 24), False),
        "qwen2.5-vl-7b",
        None,
    ),
    (
        "numpy_mrope(1e6, (16, 24, 24), interleaved)",
        numpy_mrope(1e6, (16, 24, 24), True),
        "qwen2.5-vl-7b",
        "interleaved M-RoPE instead of sectioned",
    ),
    (
        "numpy_mrope(1e6, (24, 24, 16), sectioned)",
        numpy_mrope(1e6, (24, 24, 16), False),
        "qwen2.5-vl-7b",
        "mrope_section permuted to [24, 24, 16]",
    ),
    (
        "numpy_mrope(1e6, (24, 20, 20), sectioned)",
        numpy_mrope(1e6, (24, 20, 20), False),
        "qwen2.5-vl-7b",
        "mrope_section resized to [24, 20, 20]",
    ),
    (
        "numpy_mrope(1e6, (16, 24, 24), sectioned, h/w swapped)",
        numpy_mrope(1e6, (16, 24, 24), False, swap_hw=True),
        "qwen2.5-vl-7b",
        "axes mixed up (h feeds w's sections, w feeds h's sections)",
    ),
    ("numpy_flux((16, 56, 56))", numpy_flux((16, 56, 56)), "flux.1", None),
    (
        "numpy_flux((56, 56, 16))",
        numpy_flux((56, 56, 16)),
        "flux.1",
        "axes_dim permuted to [56, 56, 16]",
    ),
    (
        "numpy_flux((16, 56, 56), halves)",
        numpy_flux((16, 56, 56), adjacent=False),
        "flux.1",
        "pairs in halves instead of interleaved",
    ),
)
"""(name, port, preset, the cause the diagnosis names; None: the port is conformant): the
correct ports of Qwen2.5-VL, Qwen3-VL and Flux and one port per documented bug class, each
checked on :func:`small_config` (tests/multiaxis/rope/test_real.py, the multi-axis rotary
verdict snapshot)."""
