"""One fixture loop that dispatches on each file's ``format`` field (issue 25, item 4).

``pespec golden verify`` and ``export`` read the ``"format"`` every fixture file carries and
hand the file to the handler its family registered (:mod:`pespec.conformance.fixtures`);
no file-name prefix decides anything, so a renamed file is still verified and exported by its
format, and a file of a format no family registered is an error naming the file and the known
formats.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from pespec.cli import main as cli_main
from pespec.conformance.fixtures import (
    MANIFEST,
    FixtureError,
    FixtureFormat,
    fixture_directory,
    handler_for,
    read_manifest,
    sha256_hex,
)
from pespec.sinusoidal.golden import FORMAT, load_fixture_sets

ROOT = Path(__file__).resolve().parents[3]
ROTARY = "rope-llama-2-7b.json"
RENAMED = "llama-2-7b-rotary.json"
UNKNOWN = "pespec-nope/9"
SHIPPED_VALUES = 190471
"""Values ``pespec golden verify`` checks in the shipped folder (its output before this
change: "all 99054 values equal the certified oracle values"; + 640 of convention-mlx.json;
+ 17921 of rope-gemma-4-31b-global-layers.json (issue 26); + 57600 of the 7 multi-axis sets:
7 rows × (1536 + 1152 + 1152 + 768 + 768 + 384) of the 2-D presets and 9 rows × 1920 of
cogvideox-2b (issue 28); + 4480 of the 3 multi-axis rotary sets: 13 rows × 128 of
qwen2.5-vl-7b and of qwen3-vl-4b, 9 rows × 128 of flux.1 (issue 28); + 6888 of the 10 Fourier
sets: 8 rows × (3·63 + 5·32 + 2·256) (issue 43); + 560 of qwen2.5-vl-vision's set: 7 rows × 80
(issue 35))."""
SHIPPED_FILES = 59
"""Fixture files: 32 + convention-mlx + rope-gemma-4-31b-global-layers + 7 multi-axis sets
+ 7 multi-axis rotary sets (4 of them, 3328 values, for the Wan, HunyuanVideo, CogVideoX and
EVA-02 presets: "all 183023 values equal") + 10 Fourier sets (issue 43) + the qwen2.5-vl-vision
set (issue 35)."""


def _write_manifest(directory: Path) -> None:
    """A MANIFEST that lists the folder's files as they are (so only the format is at stake)."""
    names = sorted(p.name for p in directory.glob("*.json"))
    text = "".join(f"{sha256_hex((directory / n).read_bytes())}  {n}\n" for n in names)
    (directory / MANIFEST).write_text(text, encoding="ascii")


@pytest.fixture
def copy_dir(tmp_path: Path) -> Path:
    target = tmp_path / "golden"
    shutil.copytree(fixture_directory(), target)
    return target


@pytest.fixture
def renamed(copy_dir: Path) -> Path:
    """The shipped folder with one rotary set renamed so that no prefix says what it is."""
    (copy_dir / ROTARY).rename(copy_dir / RENAMED)
    _write_manifest(copy_dir)
    assert ROTARY not in read_manifest(copy_dir) and RENAMED in read_manifest(copy_dir)
    return copy_dir


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_a_renamed_rotary_file_is_verified_by_its_format(
    renamed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["golden", "verify", "--fixtures", str(renamed)]) == 0
    out = capsys.readouterr().out
    assert f"all {SHIPPED_VALUES} values equal" in out and f"{SHIPPED_FILES} files" in out


def test_a_tampered_renamed_rotary_file_is_still_caught(
    renamed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Verified, not skipped: one wrong rotated value in the renamed file fails the run."""
    doc = json.loads((renamed / RENAMED).read_text(encoding="ascii"))
    stored = float.fromhex(doc["y_hex"][2][3])
    wrong = stored + 2.0**-40 if stored else 2.0**-40
    doc["y"][2][3], doc["y_hex"][2][3] = wrong, wrong.hex()
    (renamed / RENAMED).write_text(json.dumps(doc), encoding="ascii")
    _write_manifest(renamed)
    assert cli_main(["golden", "verify", "--fixtures", str(renamed)]) == 1
    out = capsys.readouterr().out
    assert "wrong value: rope-llama-2-7b: y[2, 3]" in out and "1 wrong value(s)" in out


def test_a_renamed_rotary_file_is_exported_by_its_format(renamed: Path, tmp_path: Path) -> None:
    """Exported with the rotary writer under the set's own name (the ``name`` field)."""
    out = tmp_path / "csv"
    assert cli_main(["golden", "export", "--fixtures", str(renamed), "--format", "csv",
                     str(out)]) == 0  # fmt: skip
    exported = (out / "rope-llama-2-7b.csv").read_text(encoding="ascii")
    assert exported.startswith("quantity,row,column,value\n")  # the rotary CSV layout
    assert len(list(out.glob("*.csv"))) == SHIPPED_FILES


def test_the_absolute_reader_selects_its_files_by_format(renamed: Path) -> None:
    """The absolute sets' loader reads its own format only, whatever the file names."""
    sets = load_fixture_sets(renamed)
    assert len(sets) == 23 and all(not s.name.startswith("rope-") for s in sets)


def _unknown(copy_dir: Path) -> Path:
    path = copy_dir / "future-set.json"
    path.write_text(json.dumps({"format": UNKNOWN, "name": "future-set"}), encoding="ascii")
    _write_manifest(copy_dir)
    return path


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_an_unknown_format_is_an_error_naming_the_file_and_the_known_formats(
    copy_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _unknown(copy_dir)
    assert cli_main(["golden", "verify", "--fixtures", str(copy_dir)]) == 1
    out = capsys.readouterr().out
    expected = (f"malformed: future-set.json: unknown fixture format {UNKNOWN!r}; known "
                f"formats: 'pespec-fourier-golden/1', {FORMAT!r}, 'pespec-multiaxis-golden/1', "
                "'pespec-multiaxis-rope-golden/1', 'pespec-rope-golden/1'")  # fmt: skip
    assert expected in out and "FAILED: 1 file problem(s)" in out
    assert cli_main(["golden", "export", "--fixtures", str(copy_dir), "--format", "npz",
                     str(copy_dir.parent / "out")]) == 1  # fmt: skip
    err = capsys.readouterr().err
    assert "future-set.json: unknown fixture format" in err and FORMAT in err


def test_a_file_without_a_format_is_named(copy_dir: Path) -> None:
    with pytest.raises(FixtureError, match=r"x\.json: has no \"format\" field"):
        handler_for("x.json", b'{"name": "x"}')
    with pytest.raises(FixtureError, match=r"x\.json: not valid ASCII JSON"):
        handler_for("x.json", b"{")


def test_each_shipped_file_names_a_registered_format() -> None:
    from pespec.cli.golden import load_fixture_formats

    load_fixture_formats()
    directory = fixture_directory()
    for path in sorted(directory.glob("*.json")):
        assert isinstance(handler_for(path.name, path.read_bytes()), FixtureFormat)


def test_no_file_name_prefix_is_checked_below_the_families() -> None:
    """No string naming the rotary files' prefix in the fixture engine or the front end."""
    found = []
    for folder in ("reference", "cli"):
        for path in sorted((ROOT / "pespec" / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if "rope-" in node.value and "pe-rope-" not in node.value:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, "file-name prefix checks: " + ", ".join(found)
