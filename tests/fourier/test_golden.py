"""The Fourier golden sets (SPEC §10.8): every stored value equals an independent 400-bit
mpmath transcription of the cited source, the files regenerate byte for byte, the ``golden``
stage uses them, and a changed file is caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pespec.conformance.fixtures import FixtureError, fixture_directory
from pespec.fourier import golden
from pespec.fourier.presets import PRESETS
from pespec.fourier.run import check
from tests.fourier import mp, ports


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_value_is_the_mpmath_value(name: str) -> None:
    (fixture,) = [f for f in golden.GOLDEN.load() if f.preset == name]
    for x, values in zip(fixture.x.tolist(), fixture.values, strict=True):
        want = np.array(mp.ROWS[name](x))
        assert want.view(np.int64).tolist() == values.view(np.int64).tolist()


def test_every_preset_has_its_set() -> None:
    for name, conv in PRESETS.items():
        fixture = golden.fixture_for(conv)
        assert fixture is not None and fixture.preset == name


def test_the_files_regenerate_byte_identical() -> None:
    directory = fixture_directory()
    for name, data in golden.GOLDEN.render_files().items():
        assert (directory / name).read_bytes() == data, name


def test_the_golden_stage_passes_the_code_and_fails_a_wrong_value() -> None:
    ok = check(ports.nerf_code, config="nerf", stages=["golden"])
    assert [(c.id, c.status) for c in ok.checks] == [("golden:fourier-nerf", "passed")]

    def off(x: np.ndarray, config: object) -> np.ndarray:
        out = ports.nerf_code(x, config)
        out[3, 10] += 2.0**-30  # row 3 is a golden row; the bound there is ~1e-15
        return out

    (result,) = check(off, config="nerf", stages=["golden"]).checks
    assert result.status == "failed" and result.worst_column == 10


def test_a_changed_file_is_caught(tmp_path: Path) -> None:
    copy = tmp_path / "golden"
    shutil.copytree(fixture_directory(), copy)
    path = copy / golden.GOLDEN.file_name("nerf")
    path.write_bytes(path.read_bytes().replace(b"-1.0,-1.0,-1.0", b"-1.0,-1.0,-0.5", 1))
    with pytest.raises(FixtureError, match=r"fourier-nerf\.json"):
        golden.GOLDEN.load(copy)
