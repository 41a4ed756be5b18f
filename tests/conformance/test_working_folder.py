"""Backends import from the working folder and from beside their file (issue 24, item 10).

Before: ``pespec check helpers:enc`` (a helpers.py in the current folder) and a
``file.py:attr`` whose file imports a module beside it stopped with "No module named", where
``python file.py`` works. Now a file's folder is importable while it loads, and the working
folder for ``module:attr``, as Python does for a script; the same for rotary backends and
the pytest plugin. Each case runs ``pespec`` in a fresh process from a temporary folder, as
the console script does (its sys.path does not hold the working folder).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ENCODE = """
from pespec.sinusoidal.reference.encoding import encode


def enc(positions, d_model, base):
    return encode(positions, d_model, base=base)
"""

ROTATE = """
from pespec.rope.reference import rotate


def rot(x, positions, rope):
    return rotate(x, positions, rope)
"""

USES_SIBLING = """
import sibling

enc = sibling.enc
rot = sibling.rot
"""


def _run(program: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``program ARGS`` (``pespec`` or ``pytest``) run from ``cwd``: the console script beside
    this interpreter, else ``python -I -m program`` (isolated: no working folder on sys.path
    either, unlike ``python -m``)."""
    found = shutil.which(str(Path(sys.executable).with_name(program)))
    command = [found] if found else [sys.executable, "-I", "-m", program]
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip


def _pespec(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return _run("pespec", *args, cwd=cwd)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """helpers.py in the working folder; sub/pe.py importing sub/sibling.py."""
    (tmp_path / "helpers.py").write_text(ENCODE + ROTATE, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "sibling.py").write_text(ENCODE + ROTATE, encoding="utf-8")
    (tmp_path / "sub" / "pe.py").write_text(USES_SIBLING, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("spec", ["helpers:enc", "sub/pe.py:enc"])
def test_check_imports_as_a_script_would(spec: str, folder: Path) -> None:
    done = _pespec("check", spec, "--stages", "contract,golden", "--quiet", cwd=folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{spec}: CONFORMANT" in done.stdout


@pytest.mark.parametrize("spec", ["helpers:rot", "sub/pe.py:rot"])
def test_rope_check_imports_as_a_script_would(spec: str, folder: Path) -> None:
    done = _pespec("rope", "check", spec, "--config", "Llama-2-7B", "--quiet", cwd=folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{spec}: CONFORMANT" in done.stdout


@pytest.mark.parametrize(
    ("option", "spec", "extra"),
    [
        ("--pe-backend", "helpers:enc", ["--pe-stages", "contract,golden"]),
        ("--pe-backend", "sub/pe.py:enc", ["--pe-stages", "contract,golden"]),
        ("--pe-rope-backend", "helpers:rot", ["--pe-rope-config", "Llama-2-7B"]),
    ],
)
def test_plugin_imports_as_a_script_would(
    option: str, spec: str, extra: list[str], folder: Path
) -> None:
    done = _run("pytest", "--pyargs", "pespec.conformance", "-q", "-p", "no:cacheprovider",
                option, spec, *extra, cwd=folder)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_the_folder_is_importable_only_while_loading(folder: Path) -> None:
    """sys.path is as it was after the load (the plugin runs inside the user's pytest)."""
    from pespec.conformance import load_backend

    before = list(sys.path)
    backend = load_backend(f"{folder}/sub/pe.py:enc")
    assert sys.path == before and backend.spec == f"{folder}/sub/pe.py:enc"
