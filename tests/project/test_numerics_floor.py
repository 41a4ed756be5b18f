"""The numerical ground floor (issue 25, item 3): ``pespec/numerics`` names no family.

Read from the source with ``ast`` (function-local imports count):

* numerics imports nothing of pespec but itself, ``pespec._version``, ``pespec._atomic`` and
  ``pespec._exports`` (its package's lazy public names);
* no identifier, attribute, parameter or string in it names a family's vocabulary (d_model,
  base, convention, RopeConfig, rope, rotary, head_dim, theta);
* the rotary family imports no sinusoidal module (``pespec.sinusoidal.reference``,
  ``pespec.sinusoidal.properties``) but the fixture plumbing and the profiles a later step moves;
* the accuracy of library functions, ``LIBRARY_ULPS``, is defined once in the package.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import pespec
from tests.project.source_words import source_texts

PACKAGE = Path(pespec.__file__).parent
NUMERICS = PACKAGE / "numerics"

ALLOWED_FOR_NUMERICS = ("pespec.numerics", "pespec._version", "pespec._atomic", "pespec._exports")

FAMILY_WORDS = frozenset(
    {"d_model", "base", "convention", "ropeconfig", "rope", "rotary", "head_dim", "theta"}
)
"""Family vocabulary, compared lower-case with whole words (``check_base`` and ``RopeConfig``
count; ``database`` and ``property`` do not)."""

SINUSOIDAL_PACKAGES = (
    "pespec.sinusoidal",
    "pespec.sinusoidal.reference",
    "pespec.sinusoidal.properties",
)
"""The sinusoidal family: its suite folder and its definition and property layers."""


def _modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, importer: str) -> Iterator[str]:
    """Every module (or module attribute) ``source`` imports, absolute and relative, at any
    depth: ``from a.b import c`` gives ``a.b.c``, whether c is a module or a name in a.b."""
    package = importer.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield from (f"{module}.{alias.name}" for alias in node.names)


def _inside(module: str, prefixes: tuple[str, ...] | frozenset[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def numerics_import_problems(source: str, importer: str) -> list[str]:
    """Imports of pespec modules outside numerics/_version/_atomic."""
    problems = []
    for module in imported_modules(source, importer):
        if module.startswith("pespec") and not _inside(module, ALLOWED_FOR_NUMERICS):
            # "from pespec.numerics import x" also yields "pespec.numerics.x": allowed
            problems.append(f"{importer} imports {module}")
    return sorted(set(problems))


def _words(text: str) -> set[str]:
    """Lower-case words of an identifier or a text: split at non-letters, underscores and
    camel-case humps, plus the whole snake_case runs (so ``d_model`` and ``head_dim`` match)."""
    words = set(re.findall(r"[a-z]+(?:_[a-z]+)*", text.lower()))
    for run in re.findall(r"[A-Za-z]+", text):
        words |= {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", run)}
        words.add(run.lower())
    for snake in list(words):
        words |= set(snake.split("_"))
    return words


def vocabulary_problems(source: str, where: str) -> list[str]:
    """Family words in identifiers, attribute names, arguments and string constants."""
    problems = []
    for line, text in source_texts(source):
        found = _words(text) & FAMILY_WORDS
        if found:
            problems.append(f"{where}:{line}: {sorted(found)} in {text[:60]!r}")
    return problems


def test_numerics_imports_only_itself_version_and_atomic() -> None:
    problems = [
        problem
        for path in _modules(NUMERICS)
        for problem in numerics_import_problems(path.read_text("utf-8"), _module_name(path))
    ]
    assert _modules(NUMERICS), "pespec/numerics is missing"
    assert not problems, "\n".join(problems)


def test_numerics_names_no_family() -> None:
    assert _modules(NUMERICS), "pespec/numerics is missing"
    problems = [
        problem
        for path in _modules(NUMERICS)
        for problem in vocabulary_problems(path.read_text("utf-8"), path.name)
    ]
    assert not problems, "family vocabulary in pespec/numerics:\n" + "\n".join(problems)


def test_the_families_import_nothing_of_each_other() -> None:
    """The rotary family imports no sinusoidal module (the fixture plumbing and the profiles
    it once borrowed are the engine's now), and the sinusoidal packages import nothing of
    the rotary family: each family reaches the other's facts only through numerics and the
    engine."""
    problems = []
    for path in _modules(PACKAGE / "rope"):
        for module in imported_modules(path.read_text("utf-8"), _module_name(path)):
            if _inside(module, SINUSOIDAL_PACKAGES):
                problems.append(f"{_module_name(path)} imports {module}")
    for package in SINUSOIDAL_PACKAGES:
        for path in _modules(PACKAGE / package.split(".")[1]):
            for module in imported_modules(path.read_text("utf-8"), _module_name(path)):
                if _inside(module, ("pespec.rope",)):
                    problems.append(f"{_module_name(path)} imports {module}")
    assert not problems, "\n".join(sorted(set(problems)))


def test_library_ulps_is_defined_once() -> None:
    definitions = []
    for path in _modules(PACKAGE):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            if any(isinstance(t, ast.Name) and t.id == "LIBRARY_ULPS" for t in targets):
                definitions.append(f"{_module_name(path)}:{node.lineno}")
    assert definitions == ["pespec.numerics.formats:" + definitions[0].split(":")[1]], definitions


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = 1\n", 0),
        ("def check_base(v): ...\n", 1),  # snake_case part
        ("class RopeConfig: ...\n", 1),  # camel-case part and whole
        ("y = obj.head_dim\n", 1),  # attribute
        ("def f(d_model): ...\n", 1),  # argument
        ("s = 'the rotary family'\n", 1),  # string constant
        ("s = 'a database of properties'\n", 0),  # words containing a family word
        ("def f(): return theta\n", 1),
        ("import numpy as np\nnp.frexp(1.0)\n", 0),
    ],
)
def test_the_vocabulary_walk(source: str, expected: int) -> None:
    assert len(vocabulary_problems(source, "m.py")) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from pespec.numerics.formats import DTYPES\n", 0),
        ("from pespec import _version\n", 0),
        ("from . import kernels\n", 0),
        ("from pespec.sinusoidal.reference.validation import check_positions\n", 1),
        ("def f():\n    import pespec.rope.config\n", 1),
        ("from ..properties import base\n", 1),
    ],
)
def test_the_import_walk(source: str, expected: int) -> None:
    assert len(numerics_import_problems(source, "pespec.numerics.angle")) == expected
