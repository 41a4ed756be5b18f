"""The families are sibling folders and the engine names none of them (issue 25, items 4-5).

* ``pespec/sincos`` (the absolute sinusoidal family) and ``pespec/rope`` (the rotary family)
  never import each other, directly or through an old path that is now an alias of the
  other family's module;
* the sinusoidal modules that left the engine's folder keep their old paths for one release
  as alias modules only: each old path imports, *is* the new module, and holds nothing else;
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

FAMILIES = ("pespec.sincos", "pespec.rope", "pespec.fourier")

MOVED: dict[str, str] = {
    **{
        f"pespec.conformance.{name}": f"pespec.sincos.{name}"
        for name in (
            "adapters",
            "builtin_backends",
            "checkfile",
            "comparison_stages",
            "declared",
            "fromfile",
            "property_stage",
            "reproduce",
            "reproductions",
            "suite_plan",
            "diagnosis",
            "diagnosis.fit",
            "diagnosis.pipeline",
            "diagnosis.precision",
            "diagnosis.probes",
            "diagnosis.result",
            "diagnosis.rounding",
            "diagnosis.slips",
            "diagnosis.verify",
        )
    },
    **{
        f"pespec.reference.{name}": f"pespec.sincos.{name}"
        for name in ("golden", "golden_catalog", "golden_format", "golden_verify", "golden_write")
    },
    "pespec.reference.fixture_formats": "pespec.conformance.fixtures",
    "pespec.properties.profiles": "pespec.conformance.profiles",
}
"""Old path -> new home of every module moved by issue 25's family-folder step."""

PENDING: dict[tuple[str, str], str] = {
    ("pespec.rope.fromfile", "pespec.conformance.fromfile"): "read_output's home is now "
    "pespec.conformance.savedfile; rope/fromfile.py changes hands in the numerics step",
}
"""(importer, old path) -> why a family still reaches the other through an alias, for now."""

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
    """Imports from one family folder into the other (an alias resolved to its home)."""
    problems = []
    for importer, (source, is_package) in sorted(sources.items()):
        home = _family(importer)
        if home is None:
            continue
        for target, line in imported(source, importer, is_package):
            resolved = next(
                (new + target[len(old) :] for old, new in MOVED.items() if target == old), target
            )
            other = _family(resolved)
            if other is not None and other != home and (importer, target) not in PENDING:
                problems.append(f"{importer}:{line} imports {target} ({other})")
    return problems


@pytest.fixture(autouse=True)
def _package_attributes_kept() -> object:
    """Importing an old alias path sets it as an attribute of its package, where it would
    hide a function of the same name (``pespec.conformance.reproduce``) for the tests that
    run later in the same process: put each package's attributes back."""
    import sys

    packages = ("pespec.conformance", "pespec.reference", "pespec.properties")
    saved = {name: dict(vars(sys.modules[name])) for name in packages if name in sys.modules}
    yield
    for name, attributes in saved.items():
        namespace = vars(sys.modules[name])
        for key in set(namespace) - set(attributes):
            del namespace[key]
        namespace.update(attributes)


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
        ("pespec.rope.golden", "from pespec.sincos.golden import FORMAT\n", 1),
        ("pespec.sincos.golden", "def f():\n    import pespec.rope.oracle\n", 1),
        ("pespec.rope.suite", "from pespec.conformance.declared import resolve_convention\n", 1),
        ("pespec.rope.suite", "from pespec.conformance.fixtures import MANIFEST\n", 0),
        ("pespec.sincos.golden", "from pespec.sincos import golden_catalog\n", 0),
        ("pespec.conformance.runner", "from pespec.sincos import golden\n", 0),  # no family
    ],
)
def test_the_walk_finds_cross_family_imports(importer: str, source: str, expected: int) -> None:
    """The checker itself: a direct, a function-local and an alias import across families."""
    assert len(cross_family_imports({importer: (source, False)})) == expected


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_each_old_path_is_only_an_alias_of_the_new_module(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)
    path, source = _source(old)
    assert is_alias_facade(source), f"{path} is not an alias module"
    tree = ast.parse(source)
    defined = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert not defined, f"{path} defines {[n.name for n in defined]}: an alias holds nothing"
    assert ast.get_docstring(tree) is not None
    assert f"Deprecated alias of {new} (issue 25)" in (ast.get_docstring(tree) or "")


def test_the_diagnosis_submodules_keep_their_old_dotted_paths() -> None:
    fit = importlib.import_module("pespec.conformance.diagnosis.fit")
    assert fit is importlib.import_module("pespec.sincos.diagnosis.fit")
    from pespec.conformance.diagnosis import pipeline

    assert pipeline is importlib.import_module("pespec.sincos.diagnosis.pipeline")


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
