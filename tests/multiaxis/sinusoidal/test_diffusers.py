"""diffusers' real ``get_2d_sincos_pos_embed`` (0.42.1) through the multi-axis suite, and
hand ports of its documented bug classes (SPEC §9; issue 28 item 5). The real functions run
through the adapters of their clients (:mod:`pespec.clients.multiaxis_clients`), the same the
conformance table runs.

diffusers computes the grid coordinates in float32 (``torch.arange(..., float32) /
(grid_size / base_size) / interpolation_scale``) and everything after in float64. Where the
coordinates are integers or halves (DiT, PixArt-α) float32 holds them exactly and the float64
table is CONFORMANT at float64. Where they are thirds (SD3's base_size 64 on a 192 grid) the
float64 table is NON-CONFORMANT at float64, and the test confirms the cause with mpmath: the
values are within the float64 bound of the encoding at the float32-rounded coordinates
fl32(i/3), not at i/3. PatchEmbed keeps the table as float32 (``pos_embed.float()``): that
output is CONFORMANT at float32, whose bound allows the float32 coordinate.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import pytest

from pespec.clients import multiaxis_clients as adapters
from pespec.clients.catalog import get_client
from pespec.multiaxis.sinusoidal.adapters import grid_table_backend
from pespec.multiaxis.sinusoidal.presets import PRESETS, sincos_2d
from pespec.multiaxis.sinusoidal.run import check
from pespec.sinusoidal.properties.base import LEVELS, EncodingConfig
from pespec.sinusoidal.properties.errormodel import element_bound
from pespec.sinusoidal.reference.conventions import Convention

embeddings = pytest.importorskip("diffusers.models.embeddings")
torch = pytest.importorskip("torch")

SD3_LIKE = {
    "config": sincos_2d(64, name="sd3-scaling").to_dict(),
    "grid": [192, 192],
    "base_size": 64,
    "interpolation_scale": 1.0,
    "source": "SD3's grid scaling (192 grid, base_size 64) at D = 64",
}
"""SD3's coordinates i/3 at a small width (the 192² × 1536 table would take 450 MB)."""


SINCOS_2D = get_client("diffusers:get_2d_sincos_pos_embed")
SINCOS_3D = get_client("diffusers:get_3d_sincos_pos_embed")


@pytest.mark.parametrize("name", ["dit-xl-2-256", "pixart-alpha-1024"])
def test_diffusers_is_conformant_at_float64_where_float32_holds_the_coordinates(
    name: str,
) -> None:
    chosen = PRESETS[name]
    # 0.42.1 accepts output_type="np" and still returns a torch tensor (the NumPy path was
    # removed), the same as "pt", which the client's adapter asks for.
    args = (chosen.config.d_model, chosen.sizes[0])
    scaling = {"base_size": chosen.base_size, "interpolation_scale": chosen.interpolation_scale}
    as_np = embeddings.get_2d_sincos_pos_embed(*args, output_type="np", **scaling)
    assert isinstance(as_np, torch.Tensor)
    assert torch.equal(as_np, embeddings.get_2d_sincos_pos_embed(*args, **scaling))
    report = check(adapters.sincos_2d(SINCOS_2D, "float64", name), config=name)
    assert report.verdict == "conformant", report.summary()
    assert report.level == "float64"


def _sd3_rows() -> tuple[Any, Any]:
    backend = adapters.sincos_2d(SINCOS_2D, "float64", SD3_LIKE)
    return backend, check(backend, config=SD3_LIKE)


def test_diffusers_sd3_scaling_fails_at_float64_for_its_float32_coordinates() -> None:
    backend, report = _sd3_rows()
    assert report.verdict == "non-conformant"
    assert "grid coordinates rounded to float32" in (report.diagnosis_sentence or "")
    failed = [c for c in report.checks if c.status == "failed"]
    assert failed and all(c.stage in ("reference", "property") for c in failed)
    worst = next(c for c in failed if c.stage == "reference")
    # mpmath, independently: the worst element at h or w = p (an i/3) and its column.
    p = float(worst.worst_position)
    i = round(p * 3)
    assert p == i / 3
    column = int(worst.details["section_column"])
    quarter = 16
    k, is_sin = column % quarter, column < quarter
    p32 = float(np.float32(i) / np.float32(3))  # torch's float32 division, correctly rounded
    assert p32 != p
    with mpmath.workprec(400):
        omega = mpmath.power(10000, -mpmath.mpf(k) / quarter)
        f = mpmath.sin if is_sin else mpmath.cos
        at_exact, at_f32 = f(mpmath.mpf(p) * omega), f(mpmath.mpf(p32) * omega)
    grid = np.array([[i, 0]]) if worst.id.endswith("-1") else np.array([[0, i]])
    row = backend(np.array([[g / 3 for g in grid[0]]]), None)[0]
    got = float(row[int(worst.worst_column)])
    halves = Convention(layout="sin_cos_halves")
    one_d = EncodingConfig(np.array([p]), 32, 10000.0, halves)
    bound = float(element_bound(one_d, LEVELS["float64"])[0, column])
    assert abs(got - float(at_exact)) > bound  # the failure is real
    assert abs(got - float(at_f32)) <= bound  # and is the float32 coordinate's encoding


def test_patch_embed_float32_table_is_conformant_at_float32() -> None:
    report = check(adapters.sincos_2d(SINCOS_2D, "float32", SD3_LIKE), config=SD3_LIKE)
    assert report.verdict == "conformant", report.summary()
    assert report.level == "float32"


def _port(dim: int, grid: int, base: float, scale: float, *, swap: bool, scaled: bool) -> Any:
    """A NumPy hand port of get_2d_sincos_pos_embed, with a slip on request."""

    def one_d(d: int, pos: Any) -> Any:
        omega = 1.0 / 10000 ** (np.arange(d // 2, dtype=np.float64) / (d / 2.0))
        out = np.outer(pos, omega)
        return np.concatenate([np.sin(out), np.cos(out)], axis=1)

    def table() -> Any:
        axis = np.arange(grid, dtype=np.float64)
        if scaled:
            axis = axis / (grid / base) / scale
        gw, gh = np.meshgrid(axis, axis)  # w varies along rows' last axis
        first, second = (gh, gw) if swap else (gw, gh)
        return np.concatenate(
            [one_d(dim // 2, first.reshape(-1)), one_d(dim // 2, second.reshape(-1))], axis=1
        )

    return table


def test_a_faithful_port_is_conformant_and_the_slips_fail_with_their_cause() -> None:
    name = "pixart-alpha-1024"
    right = _port(1152, 64, 64, 2.0, swap=False, scaled=True)
    assert check(grid_table_backend(right, name), config=name).verdict == "conformant"
    swapped = check(
        grid_table_backend(_port(1152, 64, 64, 2.0, swap=True, scaled=True), name), config=name
    )
    assert swapped.verdict == "non-conformant"
    assert "h and w swapped" in (swapped.diagnosis_sentence or "")
    unscaled = check(
        grid_table_backend(_port(1152, 64, 64, 2.0, swap=False, scaled=False), name), config=name
    )
    assert unscaled.verdict == "non-conformant"
    assert "grid scaling left out" in (unscaled.diagnosis_sentence or "")


COGVIDEOX_LIKE = {
    "config": {
        "name": "cogvideox-scaling",
        "axes": 3,
        "sections": [
            {"axis": 0, "d_model": 16},
            {"axis": 2, "d_model": 24},
            {"axis": 1, "d_model": 24},
        ],
    },
    "grid": [13, 30, 45],
    "interpolation_scale": [1.0, 1.875, 1.875],
    "source": "CogVideoX-2b's grid and scales at D = 64",
}
"""CogVideoX-2b's 3-D grid (13 × 30 × 45, h and w at i/1.875) at a small width."""


def test_diffusers_3d_is_non_conformant_at_float64_and_conformant_as_float32() -> None:
    """t is an integer (exact); h and w are i/1.875 = 8i/15, divided in float32: float64
    fails on the spatial sections only, float32 (the level of its coordinates) passes."""
    as_float64 = adapters.sincos_3d(SINCOS_3D, "float64", COGVIDEOX_LIKE)
    report = check(as_float64, config=COGVIDEOX_LIKE)
    status = {c.id: c.status for c in report.checks if c.stage == "reference"}
    assert status == {
        "reference:section-0": "passed",
        "reference:section-1": "failed",
        "reference:section-2": "failed",
    }
    assert "grid coordinates rounded to float32" in (report.diagnosis_sentence or "")
    as_float32 = adapters.sincos_3d(SINCOS_3D, "float32", COGVIDEOX_LIKE)
    report32 = check(as_float32, config=COGVIDEOX_LIKE)
    assert report32.verdict == "conformant", report32.summary()
    assert report32.level == "float32"


def test_a_correct_3d_port_is_conformant_on_the_cogvideox_preset() -> None:
    from tests.multiaxis.sinusoidal.ports import correct_3d

    assert check(correct_3d, config="cogvideox-2b").verdict == "conformant"
