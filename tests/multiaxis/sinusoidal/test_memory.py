"""Memory of checking a large grid (issue 28: a 128×128×64 grid in chunks within 512 MiB
above baseline), measured with tracemalloc as the rotary suite's million-position test.

The grid has 64·128·128 = 1,048,576 rows; its positions alone are 24 MiB (int64, 3 axes),
its output at D = 192 would be 1.5 GiB: both routes must cut it into chunks."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.multiaxis.sinusoidal.fromfile import check_file
from pespec.multiaxis.sinusoidal.run import check
from tests.multiaxis.sinusoidal import ports

LIMIT = 512 * 2**20
SIZES = [64, 128, 128]
"""(t, h, w): 64 frames of a 128×128 grid."""


def _config(dim: int) -> dict[str, Any]:
    """CogVideoX's 3-D layout [t: D/4 | w: 3D/8 | h: 3D/8] on the 128×128×64 grid."""
    sections = [
        {"axis": 0, "d_model": dim // 4},
        {"axis": 2, "d_model": 3 * dim // 8},
        {"axis": 1, "d_model": 3 * dim // 8},
    ]
    return {"config": {"axes": 3, "sections": sections, "name": "big-3d"}, "grid": SIZES}


def _peak(run: Any) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        result = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, peak


def test_the_suite_on_a_128x128x64_grid_stays_within_512_mib() -> None:
    report, peak = _peak(lambda: check(ports.correct_3d, config=_config(192)))
    assert report.verdict == "conformant", report.summary()
    assert peak < LIMIT, f"peak {peak / 2**20:.0f} MiB"


@pytest.mark.slow
def test_a_whole_grid_file_is_checked_in_chunks_within_512_mib(tmp_path: Path) -> None:
    """Every one of the 1,048,576 rows (D = 32: a 256 MiB .npy, memory-mapped) against the
    exact reference, 4096 rows at a time."""
    from pespec.multiaxis.sinusoidal.presets import resolve_config

    preset = resolve_config(_config(32))
    grid = preset.positions()
    path = tmp_path / "grid.npy"
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(grid.shape[0], 32))
    for r0 in range(0, grid.shape[0], 1 << 16):
        out[r0 : r0 + (1 << 16)] = ports.correct_3d(grid[r0 : r0 + (1 << 16)], preset.config)
    out.flush()
    del out, grid
    report, peak = _peak(lambda: check_file(path, _config(32)))
    assert report.verdict == "conformant", report.summary()
    assert report.family_data["rows"] == 1 << 20
    assert peak < LIMIT, f"peak {peak / 2**20:.0f} MiB"
