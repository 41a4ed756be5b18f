"""The pytest plugin is a front end, outside the engine (issue 25, item 4).

Before: the plugin was ``pespec/conformance/plugin.py``, the ``pytest11`` entry point named it
there, and the engine's folder imported pytest. Now the entry point names
:mod:`pespec.pytest_plugin`, which ranks as a front end; the engine's folder keeps only the
test module that ``pytest --pyargs pespec.conformance`` collects (the documented command, run
by ``tests/conformance/test_plugin.py``), and that module imports nothing of pespec.
"""

from __future__ import annotations

import ast
import importlib

import pytest
from paths import ROOT

from tests.project.test_import_layers import PACKAGE, imported, rank

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ENGINE = PACKAGE / "conformance"
COLLECTED = ENGINE / "test_suite.py"
"""The one module of the engine's folder that pytest collects (``--pyargs pespec.conformance``)."""


def _entry_point() -> str:
    """The module the ``pytest11`` entry point ``pespec`` names in pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project["entry-points"]["pytest11"]["pespec"])


def _imports_pytest(source: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] in ("pytest", "_pytest") for name in names):
            return True
    return False


def test_the_entry_point_names_a_front_end_outside_the_engine() -> None:
    module = _entry_point()
    assert not module.startswith("pespec.conformance"), module
    assert rank(module) == rank("pespec.cli"), module  # a front end, as the CLI
    assert hasattr(importlib.import_module(module), "pytest_addoption"), module


def test_no_engine_module_but_the_collected_one_imports_pytest() -> None:
    found = sorted(
        str(path.relative_to(PACKAGE.parent))
        for path in ENGINE.rglob("*.py")
        if path != COLLECTED and _imports_pytest(path.read_text(encoding="utf-8"))
    )
    assert found == [], f"engine modules importing pytest (a front end's job): {found}"


def test_the_collected_test_module_imports_nothing_of_pespec() -> None:
    source = COLLECTED.read_text(encoding="utf-8")
    assert imported(source, "pespec.conformance.test_suite", False) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [("import pytest\n", True), ("from _pytest.fixtures import x\n", True),
     ("def f():\n    import pytest\n", True), ("import pytest_foo\n", False), ("x = 1\n", False)],
)  # fmt: skip
def test_the_walk_finds_pytest_imports(source: str, expected: bool) -> None:
    assert _imports_pytest(source) is expected
