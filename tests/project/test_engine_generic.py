"""One engine, no family subclasses (issue 25, item 4).

``pespec/conformance/engine.py`` runs every family's plan and names none: its source (code,
strings and docstrings, read with ``ast``) holds no family vocabulary. And no class in
``pespec/`` subclasses the engine's ``Suite``, the one ``Report`` or the ``GuardedBackend``:
a family gives the engine data and hooks (a run object, report fields, a describe function),
never a subclass. Both failed on main before the move (``RopeSuite(Suite)``,
``RopeReport(Report)``, ``RopeGuard(GuardedBackend)``; there was no engine module).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import pespec

PACKAGE = Path(pespec.__file__).parent

GENERIC_MODULES: tuple[str, ...] = ("conformance/engine.py",)
"""The engine modules that name no family (the report and its loader still carry the
sinusoidal family's ``convention`` as a shared field: the JSON key order keeps it there)."""

VOCABULARY = re.compile(
    r"d_model|\bbase\b|convention|RopeConfig|(?<![a-z])rope|rotary|head_dim|theta|sinusoidal",
    re.IGNORECASE,
)
"""Family words: the sinusoidal family's (d_model, base, convention) and the rotary one's
(``rope`` not inside a word: ``property`` is no family word)."""

ENGINE_BASES = frozenset({"Suite", "Report", "GuardedBackend", "EngineSuite"})


def _words(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every identifier, attribute, argument and string of ``tree``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name):
            found.append((line, node.id))
        elif isinstance(node, ast.Attribute):
            found.append((line, node.attr))
        elif isinstance(node, ast.arg):
            found.append((line, node.arg))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            found.append((line, node.name))
        elif isinstance(node, ast.alias):
            found.append((line, node.name))
        elif isinstance(node, ast.keyword) and node.arg:
            found.append((line, node.arg))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((line, node.value))
    return found


@pytest.mark.parametrize("module", GENERIC_MODULES)
def test_the_engine_names_no_family(module: str) -> None:
    path = PACKAGE / module
    assert path.exists(), f"{module} is the engine's; it must exist"
    hits = [
        f"{module}:{line}: {VOCABULARY.search(text).group()!r}"  # type: ignore[union-attr]
        for line, text in _words(ast.parse(path.read_text(encoding="utf-8")))
        if VOCABULARY.search(text)
    ]
    assert not hits, "family vocabulary in an engine module:\n" + "\n".join(hits)


def test_the_vocabulary_check_finds_a_family_word() -> None:
    tree = ast.parse('def f(d_model):\n    """the rotary call"""\n    return x.convention\n')
    found = [text for _, text in _words(tree) if VOCABULARY.search(text)]
    assert sorted(found) == ["convention", "d_model", "the rotary call"]
    assert not VOCABULARY.search("property") and VOCABULARY.search("_rope_level")


def _subclasses() -> list[str]:
    """``module: Class(Base)`` for each class of pespec/ whose base is an engine class."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
                if name in ENGINE_BASES:
                    found.append(f"{path.relative_to(PACKAGE)}: {node.name}({name})")
    return found


def test_no_class_subclasses_the_engine_suite_report_or_guard() -> None:
    found = _subclasses()
    assert not found, "a family subclasses an engine class:\n" + "\n".join(found)


def test_one_engine_suite_serves_both_families() -> None:
    from pespec.conformance.engine import Suite
    from pespec.conformance.runner import Suite as sinusoidal_suite
    from pespec.rope.suite import RopeSuite

    sinusoidal = sinusoidal_suite("numpy", stages=("contract",))
    rotary = RopeSuite("numpy", "Llama-2-7B", stages=("contract",))
    assert type(sinusoidal) is Suite and type(rotary) is Suite
    assert (sinusoidal.family, rotary.family) == ("sinusoidal", "rope")
    report = rotary.run()
    assert report.family == "rope" and report.conformant is False  # contract only: no primary
    assert [c.status for c in report.checks] == ["passed"] * 5
