"""Front ends import lazily (issue 38, design note rule 7), measured in a fresh interpreter.

* ``pespec --help`` and ``pespec check --help`` import no NumPy, mpmath or gmpy2 and no module
  of a family (sinusoidal: ``pespec.sinusoidal``, ``pespec.sinusoidal.reference``,
  ``pespec.sinusoidal.properties``;
  ``pespec.rope``, ``pespec.multiaxis``, ``pespec.multiaxis.rope``, ``pespec.fourier``) but its
  registry entry: the lazy package and its ``family.py`` (data that ``pespec check --help``
  reads its options from);
* ``pespec rope check`` imports nothing of the sinusoidal family but its registry entry (its
  error model and 18 more modules were loaded through the engine's comparison module before
  issue 38).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "mpmath", "gmpy2")
FAMILY_PACKAGES = (
    "pespec.sinusoidal",
    "pespec.sinusoidal.reference",
    "pespec.sinusoidal.properties",
    "pespec.rope",
    "pespec.multiaxis",
    "pespec.multiaxis.sinusoidal",
    "pespec.multiaxis.rope",
    "pespec.fourier",
)
SINUSOIDAL = ("pespec.sinusoidal", "pespec.sinusoidal.reference", "pespec.sinusoidal.properties")

PROBE = """
import json, sys
from pespec.cli import main
try:
    code = main({argv!r})
except SystemExit as exc:
    code = exc.code
print(json.dumps({{"code": code, "modules": sorted(sys.modules)}}))
"""


def imported(argv: list[str]) -> tuple[int, list[str]]:
    """(exit code, every module loaded) of ``pespec ARGV`` in a new interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return int(data["code"] or 0), list(data["modules"])


def loaded(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    """The ``modules`` under ``prefixes``, but a family's registry entry (the package's lazy
    ``__init__`` and its ``family.py``)."""
    return [
        m
        for m in modules
        if (
            any(m.startswith(p + ".") for p in prefixes)
            and m not in prefixes  # a family package nested in another (pespec.multiaxis.rope)
            and not (m.endswith(".family") and m.rsplit(".", 1)[0] in prefixes)
        )
        or (m in prefixes and m.split(".")[0] != "pespec")
    ]


@pytest.mark.parametrize("argv", [["--help"], ["check", "--help"], ["rope", "--help"]])
def test_help_imports_no_numpy_mpmath_or_family(argv: list[str]) -> None:
    code, modules = imported(argv)
    assert code == 0
    assert loaded(modules, HEAVY) == []
    assert loaded(modules, FAMILY_PACKAGES) == []


def test_rope_check_imports_nothing_of_the_sinusoidal_family() -> None:
    argv = ["rope", "check", "numpy", "--config", "Llama-2-7B", "--in-process"]
    code, modules = imported([*argv, "--profile", "ci"])
    assert code == 0
    assert "pespec.rope.suite" in modules  # the check ran
    assert loaded(modules, SINUSOIDAL) == []


def test_the_probe_sees_an_import() -> None:
    """The measurement itself: a command that loads NumPy shows it."""
    code, modules = imported(["conventions"])
    assert code == 0
    assert loaded(modules, ("numpy",)) or loaded(modules, ("pespec.sinusoidal.reference",))
