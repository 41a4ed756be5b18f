"""pespec._atomic: an interrupted write leaves the previous file intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from pespec._atomic import atomic_path, write_atomic


def test_write_atomic_replaces_text_and_bytes(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "file.txt"
    write_atomic(target, "first\n")
    assert target.read_bytes() == b"first\n"
    write_atomic(target, b"\x00second")
    assert target.read_bytes() == b"\x00second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.txt"]  # no temp left


def test_interrupted_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_path(target) as tmp:
        tmp.write_text("half-written")
        raise KeyboardInterrupt
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]
