"""Multi-axis: per-axis frequencies computed over the whole width D (issue 39 item 3).

A Flux port whose axis i uses 10000^(−2j/D) (D = 128, the whole head) instead of
10000^(−2j/dim_i) must be named as that, not "no neighbouring configuration"."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.rope.run import check
from tests.multiaxis.rope.ports import small


def _whole_width_flux(axes_dim: tuple[int, ...]) -> Any:
    def backend(x: NDArray[Any], positions: NDArray[Any], config: Any) -> NDArray[Any]:
        width = sum(axes_dim)
        angles = []
        for axis, dim in enumerate(axes_dim):
            inv = 1.0 / 10000.0 ** (np.arange(0, dim, 2, dtype=np.float64) / width)
            angles.append(positions[:, axis : axis + 1].astype(np.float64) * inv[None, :])
        angle = np.concatenate(angles, axis=1)
        c, s = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
        v = x.astype(np.float32)
        a, b = v[:, 0::2], v[:, 1::2]
        out = np.empty_like(v)
        out[:, 0::2], out[:, 1::2] = a * c - b * s, b * c + a * s
        return out

    return backend


def test_whole_width_per_axis_frequencies_are_named() -> None:
    report = check(_whole_width_flux((16, 56, 56)), config=small("flux.1", grid=[1, 8, 8]))
    assert not report.conformant
    assert report.diagnosis is not None
    assert "computed over the whole width D = 128" in report.diagnosis["cause"]
