"""The families are sibling folders and the engine names none of them (issue 25, items 4-5).

* ``pespec/sinusoidal`` (the absolute sinusoidal family) and ``pespec/rope`` (the rotary family)
  never import each other;
* no alias module is left (issue 38): no module of pespec/ is another module
  (``sys.modules[__name__] = ...``) or only re-exports another module's names, and the old
  paths of issue 25's moves import no more (pre-1.0: a move keeps no alias);
* the engine's fixture plumbing (``pespec/conformance/fixtures.py``: format registry,
  MANIFEST, folder replacement, export) names no family: no identifier, attribute or string
  of it (docstrings included) speaks a family's vocabulary.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from tests.project.source_words import source_texts
from tests.project.test_import_layers import (
    PACKAGE,
    imported,
    is_alias_facade,
    module_name,
    package_modules,
)

FAMILIES = ("pespec.sinusoidal", "pespec.rope", "pespec.fourier")

OLD_PATHS: tuple[str, ...] = (
    *(
        f"pespec.conformance.{name}"
        for name in (
            "adapters",
            "builtin_backends",
            "checkfile",
            "comparison_stages",
            "declared",
            "fromfile",
            "property_stage",
            "report_load",
            "reproductions",
            "runner",
            "suite_plan",
            "supervisor",
            "worker",
            "diagnosis",
            "diagnosis.fit",
        )
    ),
    *(
        f"pespec.reference.{name}"
        for name in (
            "golden",
            "golden_catalog",
            "golden_format",
            "golden_verify",
            "golden_write",
            "fixture_formats",
            "circle",
            "_kernels",
        )
    ),
    "pespec.properties.profiles",
    "pespec.properties.formats",
    "pespec.properties.ratio",
    # issue 38: each family one folder named as the registry names it
    "pespec.sincos",
    "pespec.reference",
    "pespec.properties",
    "pespec.mrope",
    *(f"pespec.multiaxis.{name}" for name in ("config", "golden", "presets", "run", "stages")),
)
"""Old paths of modules moved before 1.0 (issues 13, 25, 38): deleted, not aliased (issue 38)."""

VOCABULARY = ("d_model", "base", "convention", "RopeConfig", "rope", "rotary", "head_dim", "theta")
"""Words of a family that the engine's fixture plumbing must not use (issue 25)."""


def _family(module: str) -> str | None:
    return next((f for f in FAMILIES if module == f or module.startswith(f + ".")), None)


def _source(module: str) -> tuple[Path, str]:
    relative = Path(*module.split("."))
    path = PACKAGE.parent / relative.with_suffix(".py")
    if not path.is_file():
        path = PACKAGE.parent / relative / "__init__.py"
    return path, path.read_text(encoding="utf-8")


def cross_family_imports(sources: dict[str, tuple[str, bool]]) -> list[str]:
    """Imports from one family folder into another."""
    problems = []
    for importer, (source, is_package) in sorted(sources.items()):
        home = _family(importer)
        if home is None:
            continue
        for target, line in imported(source, importer, is_package):
            other = _family(target)
            if other is not None and other != home:
                problems.append(f"{importer}:{line} imports {target} ({other})")
    return problems


def test_the_two_family_folders_never_import_each_other() -> None:
    sources = {
        module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
        for path in package_modules()
    }
    for family in FAMILIES:
        assert any(_family(m) == family for m in sources), f"{family} holds no module"
    problems = cross_family_imports(sources)
    assert not problems, "imports between family folders:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("importer", "source", "expected"),
    [
        ("pespec.rope.golden", "from pespec.sinusoidal.golden import FORMAT\n", 1),
        ("pespec.sinusoidal.golden", "def f():\n    import pespec.rope.oracle\n", 1),
        ("pespec.rope.suite", "from pespec.sinusoidal.declared import resolve_convention\n", 1),
        ("pespec.rope.suite", "from pespec.conformance.fixtures import MANIFEST\n", 0),
        ("pespec.sinusoidal.golden", "from pespec.sinusoidal import golden_catalog\n", 0),
        ("pespec.conformance.engine", "from pespec.sinusoidal import golden\n", 0),  # no family
    ],
)
def test_the_walk_finds_cross_family_imports(importer: str, source: str, expected: int) -> None:
    """The checker itself: a direct and a function-local import across families."""
    assert len(cross_family_imports({importer: (source, False)})) == expected


@pytest.mark.parametrize("old", OLD_PATHS)
def test_an_old_path_imports_no_more(old: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def only_reexports(source: str) -> bool:
    """Whether a module (not a package) only re-exports: its body, docstring aside, is imports
    and ``__all__`` (the facades issue 38 deleted)."""
    body = ast.parse(source).body
    statements = [
        n for n in body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
    ]
    return bool(statements) and all(
        isinstance(n, (ast.Import, ast.ImportFrom))
        or (isinstance(n, ast.Assign) and [ast.unparse(t) for t in n.targets] == ["__all__"])
        for n in statements
    )


def test_no_module_is_an_alias_or_a_reexport_facade() -> None:
    found = [
        str(path.relative_to(PACKAGE.parent))
        for path in package_modules()
        if is_alias_facade(source := path.read_text(encoding="utf-8"))
        or (path.name != "__init__.py" and only_reexports(source))
    ]
    assert not found, f"alias or re-export-only modules: {found}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import sys\nfrom pespec.sinusoidal import run as _m\nsys.modules[__name__] = _m\n", True),
        ('"""Facade."""\nfrom pespec.numerics.ratio import f\n__all__ = ["f"]\n', True),
        ('"""Real."""\nfrom pespec.numerics.ratio import f\n\ndef g():\n    return f\n', False),
    ],
)
def test_the_walk_finds_aliases(source: str, expected: bool) -> None:
    assert (is_alias_facade(source) or only_reexports(source)) is expected


def family_words(source: str) -> list[str]:
    """Every family word (:data:`VOCABULARY`) in ``source``'s identifiers, attributes,
    arguments, keywords and string constants, with its line."""
    pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(VOCABULARY) + r")(?![A-Za-z0-9])", re.I)
    found = [  # "_" separates words ("base_hex"), letters do not ("database")
        f"{line}: {m.group(0)!r} in {text[:60]!r}"
        for line, text in source_texts(source)
        for m in pattern.finditer(text)
    ]
    return sorted(set(found))


def test_the_engine_fixture_plumbing_names_no_family() -> None:
    _, source = _source("pespec.conformance.fixtures")
    words = family_words(source)
    assert not words, "family words in pespec/conformance/fixtures.py:\n" + "\n".join(words)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(d_model):\n    pass\n", 1),
        ("x.base_hex = 1\n", 1),
        ('"""Writes the rotary sets."""\n', 1),
        ("from pespec.rope.config import RopeConfig\n", 1),
        ('y = "pespec-rope-golden/1"\n', 1),
        ('"""The database of formats."""\nmodel = 1\n', 0),
    ],
)
def test_the_walk_finds_family_words(source: str, expected: int) -> None:
    assert bool(family_words(source)) == bool(expected)
