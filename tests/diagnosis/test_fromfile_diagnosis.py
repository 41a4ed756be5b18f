"""A sinusoidal ``--from-file`` failure gets a diagnosis line (issue 39 item 3): the
convention fit (layout, frequency shift, offset positions) is determinable from a table."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pespec.sinusoidal.checkfile import check_file
from pespec.sinusoidal.reference.conventions import Convention
from pespec.sinusoidal.reference.exact import exact_encode


def _saved(tmp_path: Path, convention: Convention) -> Path:
    path = tmp_path / "table.npy"
    np.save(path, exact_encode(np.arange(64), 32, convention=convention).astype(np.float32))
    return path


def test_a_halves_table_is_named(tmp_path: Path) -> None:
    report = check_file(_saved(tmp_path, Convention(layout="sin_cos_halves")))
    assert not report.conformant
    assert report.diagnosis_sentence is not None
    assert "sin cos halves layout, ω_k = base^(−k/(d/2))" in report.diagnosis_sentence


def test_offset_positions_are_named(tmp_path: Path) -> None:
    report = check_file(_saved(tmp_path, Convention(position_offset=1)))
    assert report.diagnosis_sentence is not None
    assert "positions shifted by +1" in report.diagnosis_sentence


def test_noise_is_not_explained(tmp_path: Path) -> None:
    path = tmp_path / "noise.npy"
    np.save(path, np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32))
    report = check_file(path)
    assert report.diagnosis_sentence is not None
    assert report.diagnosis_sentence.startswith("no convention within reach of a file")
