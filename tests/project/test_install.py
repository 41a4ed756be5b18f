"""A non-editable install works outside the source checkout (issue 11).

The package is built from a copy of what a source distribution holds (``pyproject.toml``,
README, LICENSE, ``pespec/``), installed into a new virtual environment without the network
(``--no-deps --no-build-isolation --no-index``), and ``pespec check numpy --quiet`` and
``pespec golden verify`` are run from a folder outside the checkout: the installed package must
find everything it needs (its golden fixtures included) inside itself.

The new environment sees the running environment's packages (numpy, mpmath, setuptools, ...)
through ``--system-site-packages`` and a ``.pth`` line naming the running environment's
site-packages (a venv's ``--system-site-packages`` would reach only the base interpreter's).
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

SOURCE = ("pyproject.toml", "README.md", "LICENSE", "pespec")


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=240
    )


def _venv(where: Path) -> Path:
    """A new venv seeing the running environment's packages; returns its python."""
    created = _run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(where)], where.parent
    )
    assert created.returncode == 0, created.stderr
    python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], where
    )
    outer = [p for p in site.getsitepackages() if Path(p).is_dir()]
    pth = Path(purelib.stdout.strip()) / "_outer_environment.pth"
    pth.write_text("".join(f"{p}\n" for p in outer), encoding="utf-8")
    return python


@pytest.mark.slow
def test_non_editable_install_runs_outside_the_checkout(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCE:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    python = _venv(tmp_path / "venv")
    pip = [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    installed = _run([*pip, "--no-index", str(source)], tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    shutil.rmtree(source)  # nothing may be read from the tree it was built from either

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([str(python), "-c", "import pespec; print(pespec.__file__)"], elsewhere)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "venv"), where.stdout
    pespec = python.parent / ("pespec.exe" if os.name == "nt" else "pespec")
    for command in (["check", "numpy", "--quiet"], ["golden", "verify"]):
        ran = _run([str(pespec), *command], elsewhere)
        assert ran.returncode == 0, f"pespec {' '.join(command)}:\n{ran.stdout}{ran.stderr}"
