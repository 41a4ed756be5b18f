"""One engine, no family subclasses (issue 25, item 4; rule 1: the engine names no family).

Every module of ``pespec/conformance/`` (the deprecated alias modules aside) runs every
family's plan and names none: its source (code, strings and docstrings, read with ``ast``)
holds no family vocabulary, with an explicit, reasoned allow-list (:data:`ALLOWED`) that only
shrinks. On main at acf34ad the whole-folder check failed (``runner.py``, ``contract.py``,
``backends.py``, ``report.py``, ... held ``d_model``, ``base``, ``convention``, family names);
only ``engine.py`` was checked. And no class in
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
from tests.project.source_words import source_texts

PACKAGE = Path(pespec.__file__).parent

ENGINE = PACKAGE / "conformance"


def _is_alias(source: str) -> bool:
    """Whether ``source`` is a deprecated alias module (``sys.modules[__name__] = ...``)."""
    from tests.project.test_import_layers import is_alias_facade

    return is_alias_facade(source)


def engine_modules() -> list[str]:
    """Every module of the engine's folder (``pespec/conformance/``, sub-packages included)
    but the deprecated alias modules, whose whole body is the new path."""
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        if not _is_alias(path.read_text(encoding="utf-8")):
            found.append(path.relative_to(PACKAGE).as_posix())
    return found


FAMILY_NAMES = r"rope|rotary|sinusoidal|sincos"
VOCABULARY = re.compile(
    rf"\b(?:d_model|base|convention|RopeConfig|head_dim|theta|{FAMILY_NAMES})\b"
    rf"|(?<![a-z0-9])(?:{FAMILY_NAMES})(?-i:(?![a-z]))",
    re.IGNORECASE,
)
"""Family words: the sinusoidal family's parameters (``d_model``, ``base``, ``convention``) and
the rotary one's (``head_dim``, ``theta``) as whole words, and the families' names (``rope``,
``rotary``, ``sinusoidal``, ``sincos``) also as a part of an identifier (``RopeConfig``,
``_rope_level``, ``SINUSOIDAL_CALL``), but not inside a word (``property``). A whole word:
``max_d_model`` or ``calling_convention`` is one identifier, not the family word."""

ALLOWED: dict[tuple[str, str], str] = {
    ("conformance/guard.py", " does not fit the calling convention "): "The message of a "
    "CallProtocolError says 'calling convention', the general term for how a backend is "
    "called (each family's CallingConvention, not the sinusoidal Convention), and users and "
    "tests (tests/sinusoidal/test_adapters.py) match that text, so it stays until a release "
    "may change messages.",
    ("conformance/report.py", "sinusoidal"): "Report.family's default: a Report built by "
    "hand with no family (code written before reports had one) is the default family's, and "
    "the engine cannot read DEFAULT_FAMILY from the registry (pespec.families ranks above "
    "it); every report pespec builds names its family itself.",
}
"""(module, the text that holds a family word) -> why it stays in the engine for now. Each
entry is one sentence; an entry whose text is no longer there fails
(:func:`test_each_allowed_family_word_is_still_needed`), so the list only shrinks."""

ENGINE_BASES = frozenset({"Suite", "Report", "GuardedBackend", "EngineSuite"})


def _words(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every identifier, attribute, argument and string of ``tree``."""
    return source_texts(tree)


def family_words(module: str) -> list[str]:
    """``module:line: 'word' in 'text'`` for each family word of ``module`` not allowed."""
    source = (PACKAGE / module).read_text(encoding="utf-8")
    hits = []
    for line, text in _words(ast.parse(source)):
        found = VOCABULARY.search(text)
        if found and (module, text) not in ALLOWED:
            hits.append(f"{module}:{line}: {found.group()!r} in {text[:70]!r}")
    return hits


def test_every_engine_module_is_checked() -> None:
    """The check covers the whole engine folder: a new engine module is checked too."""
    modules = engine_modules()
    assert "conformance/engine.py" in modules and "conformance/report.py" in modules
    assert "conformance/runner.py" not in modules  # an alias of pespec.sinusoidal.run
    assert len(modules) >= 15


@pytest.mark.parametrize("module", engine_modules())
def test_the_engine_names_no_family(module: str) -> None:
    """No identifier, attribute, argument, string constant or docstring of an engine module
    holds a family word (issue 25, rule 1: the engine names no family)."""
    hits = family_words(module)
    assert not hits, "family vocabulary in an engine module:\n" + "\n".join(hits)


def test_each_allowed_family_word_is_still_needed() -> None:
    """An :data:`ALLOWED` entry whose text is no longer in its module goes."""
    for module, text in ALLOWED:
        source = (PACKAGE / module).read_text(encoding="utf-8")
        texts = {found for _, found in _words(ast.parse(source))}
        assert text in texts, f"{module} no longer holds {text!r}: remove it from ALLOWED"
        assert ALLOWED[(module, text)].strip().endswith("."), "each entry is a sentence"


def test_the_vocabulary_check_finds_a_family_word() -> None:
    tree = ast.parse('def f(d_model):\n    """the rotary call"""\n    return x.convention\n')
    found = [text for _, text in _words(tree) if VOCABULARY.search(text)]
    assert sorted(found) == ["convention", "d_model", "the rotary call"]
    for word in ("_rope_level", "RopeConfig", "SINUSOIDAL_CALL", "pespec.sinusoidal.run", "base"):
        assert VOCABULARY.search(word), word
    for word in ("property", "max_d_model", "calling_convention", "CallingConvention"):
        assert not VOCABULARY.search(word), word
    assert not VOCABULARY.search("BaseException") and not VOCABULARY.search("database")
    assert VOCABULARY.search("the Base") and VOCABULARY.search("RopeCapabilities")


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
    from pespec.rope.suite import RopeSuite
    from pespec.sinusoidal.run import Suite as sinusoidal_suite

    sinusoidal = sinusoidal_suite("numpy", stages=("contract",))
    rotary = RopeSuite("numpy", "Llama-2-7B", stages=("contract",))
    assert type(sinusoidal) is Suite and type(rotary) is Suite
    assert (sinusoidal.family, rotary.family) == ("sinusoidal", "rope")
    report = rotary.run()
    assert report.family == "rope" and report.conformant is False  # contract only: no primary
    assert [c.status for c in report.checks] == ["passed"] * 5
