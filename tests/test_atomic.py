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


def test_new_files_get_the_umask_mode_and_replaced_files_keep_theirs(tmp_path: Path) -> None:
    """mkstemp's 0600 must not leak: a report is as readable as one written with open()."""
    import os

    old = os.umask(0o022)
    try:
        fresh = tmp_path / "report.json"
        write_atomic(fresh, "{}")
        assert fresh.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.md"
        kept.write_text("old", encoding="utf-8")
        kept.chmod(0o640)
        write_atomic(kept, "new")
        assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_text(encoding="utf-8") == "new"
    finally:
        os.umask(old)
