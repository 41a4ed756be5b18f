"""The multi-axis clients (issue 29): each real entry point run through its catalog
declaration (``Client.build``: the adapter, options and ``--config`` the table uses) gets the
verdict its integration test establishes (tests/multiaxis/sinusoidal/test_diffusers.py,
tests/multiaxis/rope/
test_real.py, tests/multiaxis/rope/test_video.py), on the same small grids; a table row's
reproduction
line runs; and the table's two NON-CONFORMANT rows (float64 sin-cos tables at fractional grid
coordinates) have their cause confirmed at the row's own preset by mpmath."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest

from pespec.clients.catalog import get_client
from pespec.clients.table import planned_rows, reproduction, run_row, select_clients
from pespec.multiaxis.rope.presets import PRESETS as MROPE_PRESETS
from tests.clirun import run_cli
from tests.multiaxis.sinusoidal.test_diffusers import COGVIDEOX_LIKE, SD3_LIKE  # the same grids

pytest.importorskip("torch")
pytest.importorskip("diffusers")

FLOAT32_COORDINATES = "grid coordinates rounded to float32"


def _rotary(name: str, grid: list[int], ids: str | None = None, **more: int) -> dict[str, Any]:
    preset = MROPE_PRESETS[name]
    return {"config": preset.config.to_dict(), "ids": ids or preset.ids, "grid": grid, **more}


QWEN_SMALL = {"text_before": 4, "text_after": 4}
ROTARY_CASES = [  # (client, its integration test's small configuration)
    ("transformers:qwen2_vl", _rotary("qwen2.5-vl-7b", [2, 6, 6], **QWEN_SMALL)),
    ("transformers:qwen2_5_vl", _rotary("qwen2.5-vl-7b", [2, 6, 6], **QWEN_SMALL)),
    ("transformers:qwen3_vl", _rotary("qwen3-vl-4b", [2, 6, 6], **QWEN_SMALL)),
    ("diffusers:FluxPosEmbed", _rotary("flux.1", [1, 16, 16], text_before=8, text_after=4)),
    ("diffusers:WanRotaryPosEmbed", _rotary("wan2.1", [3, 10, 12], "grid")),
    ("diffusers:HunyuanVideoRotaryPosEmbed", _rotary("hunyuanvideo", [3, 10, 12], "grid")),
    ("diffusers:get_3d_rotary_pos_embed", _rotary("cogvideox-5b", [3, 10, 12], "grid")),
]


def _file(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("name", "config"), ROTARY_CASES, ids=[c[0] for c in ROTARY_CASES])
def test_each_rotary_client_is_conformant_at_float32(
    name: str, config: dict[str, Any], tmp_path: Path
) -> None:
    from pespec.multiaxis.rope.run import check

    client = get_client(name)
    if client.library == "transformers":
        pytest.importorskip("transformers")
    path = _file(tmp_path, config)
    report = check(client.build("float32", path), config=path)
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]
    assert report.level == "float32/float32/float32"


@pytest.mark.parametrize(("name", "config"), ROTARY_CASES[:3], ids=[c[0] for c in ROTARY_CASES[:3]])
def test_the_qwen_vl_rotaries_in_bfloat16_are_conformant_at_the_bfloat16_level(
    name: str, config: dict[str, Any], tmp_path: Path
) -> None:
    """As a bfloat16 model runs them: float32 angles (the module disables autocast), cos and
    sin cast to the query's bfloat16, the rotation in bfloat16 (SPEC §8's level
    float32/bfloat16/bfloat16, read from the output dtype)."""
    from pespec.multiaxis.rope.run import check

    pytest.importorskip("transformers")
    path = _file(tmp_path, config)
    report = check(get_client(name).build("bfloat16", path), config=path)
    assert report.conformant, [c.message for c in report.checks if c.status != "passed"]
    assert report.level == "float32/bfloat16/bfloat16"


SINCOS_CASES = [  # (client, dtype, configuration, level if CONFORMANT else None)
    ("diffusers:get_2d_sincos_pos_embed", "float64", "dit-xl-2-256", "float64"),
    ("diffusers:get_2d_sincos_pos_embed", "float64", SD3_LIKE, None),
    ("diffusers:get_2d_sincos_pos_embed", "float32", SD3_LIKE, "float32"),
    ("diffusers:get_3d_sincos_pos_embed", "float64", COGVIDEOX_LIKE, None),
    ("diffusers:get_3d_sincos_pos_embed", "float32", COGVIDEOX_LIKE, "float32"),
]


@pytest.mark.parametrize(("name", "dtype", "config", "level"), SINCOS_CASES)
def test_each_sincos_client_gets_its_integration_verdict(
    name: str, dtype: str, config: Any, level: str | None, tmp_path: Path
) -> None:
    """float64 tables at thirds (SD3) or i/1.875 (CogVideoX) miss by their float32 grid
    coordinates (confirmed by mpmath in test_diffusers and below); float32 tables pass."""
    from pespec.multiaxis.sinusoidal.run import check

    path = config if isinstance(config, str) else _file(tmp_path, config)
    report = check(get_client(name).build(dtype, path), config=path)
    assert report.conformant is (level is not None), report.summary()
    if level is None:
        assert FLOAT32_COORDINATES in (report.diagnosis_sentence or "")
    else:
        assert report.level == level


def test_a_table_row_reproduces_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = planned_rows(select_clients(client="diffusers:get_2d_sincos_pos_embed"))
    assert [(r["config"], r["dtype"]) for r in rows][:2] == [
        ("dit-xl-2-256", "float64"),
        ("dit-xl-2-256", "float32"),
    ]
    row = rows[1]
    line = reproduction(row)
    assert line == (
        "pespec check --client diffusers:get_2d_sincos_pos_embed --dtype float32 "
        "--config dit-xl-2-256"
    )
    out = tmp_path / "report.json"
    code, _, err = run_cli(
        [*line.split()[1:], "--json", str(out), "--quiet", "--in-process"], capsys
    )
    assert code == 0, err
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["conformant"] and report["family"] == "multiaxis"
    assert report["backend"]["spec"] == "client:diffusers:get_2d_sincos_pos_embed@float32"


def test_a_rotary_row_runs_in_the_table(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    rows = planned_rows(select_clients(client="transformers:qwen3_vl"))
    assert [r["dtype"] for r in rows] == ["float32", "bfloat16"]
    row = rows[0]
    assert reproduction(row).endswith("--dtype float32 --config qwen3-vl-4b")
    done = run_row(row)
    assert done["verdict"] == "CONFORMANT", done
    assert done["level"] == "float32/float32/float32"
    assert 0 < done["worst_ratio"] <= 1 and done["versions"]["transformers"]


def _fl32_coordinate(name: str, i: int, axis: int, preset: Any) -> float:
    """The grid coordinate diffusers computes for index ``i`` on ``axis`` (its float32
    arithmetic, written out): 2-D ``arange(float32) / (grid / base_size) / scale``, 3-D
    ``arange(float32) / scale``; each float32 division correctly rounded."""
    f32 = np.float32
    if name.endswith("get_2d_sincos_pos_embed"):
        step = f32(preset.sizes[axis] / preset.base_size)
        return float(f32(f32(f32(i) / step) / f32(preset.interpolation_scale)))
    return float(f32(f32(i) / f32(preset.interpolation_scale[axis])))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("diffusers:get_2d_sincos_pos_embed", "sd3-medium"),
        ("diffusers:get_3d_sincos_pos_embed", "cogvideox-2b"),
    ],
)
def test_the_non_conformant_rows_miss_by_their_float32_coordinates(name: str, config: str) -> None:
    """At the row's own preset: every failed section's worst element is, by mpmath (400
    bits), outside the float64 bound of the encoding at the exact coordinate and within it
    at the float32 coordinate the library computes."""
    from pespec.multiaxis.sinusoidal.presets import PRESETS
    from pespec.multiaxis.sinusoidal.run import check
    from pespec.sinusoidal.properties.base import LEVELS, EncodingConfig
    from pespec.sinusoidal.properties.errormodel import element_bound
    from pespec.sinusoidal.reference.conventions import Convention

    preset = PRESETS[config]
    backend = get_client(name).build("float64", config)
    report = check(backend, config=config)
    assert not report.conformant and FLOAT32_COORDINATES in (report.diagnosis_sentence or "")
    failed = [c for c in report.checks if c.stage == "reference" and c.status == "failed"]
    assert failed
    grid = preset.positions()
    for worst in failed:
        section = preset.config.sections[int(worst.details["section"])]
        quarter = section.d_model // 2
        column = int(worst.details["section_column"])
        p = float(worst.worst_position)
        row = grid[np.flatnonzero(grid[:, section.axis] == p)[0]]
        index = int(np.flatnonzero(np.unique(grid[:, section.axis]) == p)[0])
        p32 = _fl32_coordinate(name, index, section.axis, preset)
        assert p32 != p
        with mpmath.workprec(400):
            omega = mpmath.power(10000, -mpmath.mpf(column % quarter) / quarter)
            f = mpmath.sin if column < quarter else mpmath.cos
            at_exact, at_f32 = float(f(mpmath.mpf(p) * omega)), float(f(mpmath.mpf(p32) * omega))
        got = float(backend(row[None, :], None)[0, int(worst.worst_column)])
        one_d = EncodingConfig(
            np.array([p]), section.d_model, 10000.0, Convention(layout="sin_cos_halves")
        )
        bound = float(element_bound(one_d, LEVELS["float64"])[0, column])
        assert abs(got - at_exact) > bound  # the failure is real
        assert abs(got - at_f32) <= bound  # and is the float32 coordinate's encoding
