"""The multi-axis golden sets (SPEC §9.4): every stored value equals an independent 400-bit
mpmath transcription of the published formula, the files regenerate byte for byte, the
``golden`` stage uses them, and a changed file is caught."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pespec.conformance.fixtures import FixtureError, fixture_directory, verified_directory
from pespec.multiaxis.sinusoidal import golden
from pespec.multiaxis.sinusoidal.presets import PRESETS
from pespec.multiaxis.sinusoidal.run import check
from tests.multiaxis.sinusoidal import mp, ports

ROWS = {
    "sd3-medium": mp.diffusers_row,
    "pixart-alpha-1024": mp.diffusers_row,
    "dit-xl-2-256": mp.diffusers_row,
    "mae-vit-b-16": mp.diffusers_row,
    "timm-sincos2d-768": mp.grouped_row,
    "big-vision-vit-s16": mp.big_vision_row,
}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_value_is_the_mpmath_value(name: str) -> None:
    (fixture,) = [f for f in golden.GOLDEN.load() if f.preset == name]
    dim = PRESETS[name].config.d_model
    for position, values in zip(fixture.positions.tolist(), fixture.values, strict=True):
        if name == "cogvideox-2b":
            expected = mp.cogvideox_row(*position, dim)
        else:
            expected = ROWS[name](*position, dim)
        assert np.array(expected).view(np.int64).tolist() == values.view(np.int64).tolist()


def test_every_preset_has_a_set_of_its_grid() -> None:
    for name, preset in PRESETS.items():
        fixture = golden.fixture_for(preset)
        assert fixture is not None and fixture.preset == name
        assert fixture.rows.tolist() == golden.golden_rows(preset.sizes).tolist()


def test_golden_rows_meet_each_axis_at_both_ends() -> None:
    rows = golden.golden_rows((13, 30, 45))
    index = np.unravel_index(rows, (13, 30, 45))
    for axis, size in enumerate((13, 30, 45)):
        assert {0, 1, size - 1} <= set(index[axis].tolist())


def test_the_files_regenerate_byte_identical() -> None:
    directory = fixture_directory()
    for name, data in golden.GOLDEN.render_files().items():
        assert (directory / name).read_bytes() == data, name


def _backend_wrong_at_the_centre(positions: Any, config: Any) -> Any:
    """Correct except at the centre row of MAE's grid (7, 7): column 0 off by 2^-30."""
    out = ports.correct(positions, config)
    centre = np.all(np.asarray(positions) == 7, axis=1)
    out[centre, 0] += 2.0**-30
    return out


def test_the_golden_stage_passes_a_correct_port_and_fails_a_wrong_row() -> None:
    ok = check(ports.correct, config="mae-vit-b-16", stages=["golden"])
    assert [(c.id, c.status) for c in ok.checks] == [("golden:multiaxis-mae-vit-b-16", "passed")]
    bad = check(_backend_wrong_at_the_centre, config="mae-vit-b-16", stages=["golden"])
    (result,) = bad.checks
    assert result.status == "failed" and result.worst_column == 0


def test_a_json_config_has_no_set() -> None:
    data = PRESETS["mae-vit-b-16"].to_dict()
    data["grid"] = [4, 4]
    report = check(ports.correct, config=data, stages=["contract", "golden"])
    assert {c.stage for c in report.checks} == {"contract"}


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "golden"
    shutil.copytree(fixture_directory(), target)
    return target


def test_a_changed_file_fails_its_checksum(tmp_path: Path) -> None:
    target = _copy(tmp_path)
    path = target / "multiaxis-mae-vit-b-16.json"
    path.write_bytes(path.read_bytes().replace(b'"rows": [0,', b'"rows": [ 0,', 1))
    with pytest.raises(FixtureError, match=r"multiaxis-mae-vit-b-16\.json"):
        verified_directory(target)


def test_a_wrong_value_is_found_by_verify() -> None:
    fixture = golden.compute_fixture("big-vision-vit-s16")
    fixture.values[2, 5] = np.nextafter(fixture.values[2, 5], 2.0)
    wrong, messages = golden.GOLDEN.differences(fixture)
    assert wrong == 1 and "values[2][5]" in messages[0]


def test_positions_off_the_stated_grid_are_malformed() -> None:
    data = golden.GOLDEN.render(golden.compute_fixture("big-vision-vit-s16"))
    doc = json.loads(data)
    doc["rows"][1] += 1
    with pytest.raises(FixtureError, match="not the grid's rows"):
        golden.GOLDEN.parse("x.json", json.dumps(doc).encode("ascii"))
