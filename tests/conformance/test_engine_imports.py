"""The engine imports only the numerical floor (issue 38, design note rule 2).

Every import of every module of ``pespec/conformance/`` (read from the source: function-local
imports count, and so do imports under ``if TYPE_CHECKING``) names ``pespec.numerics``, the
engine itself or a private helper (``pespec._version``, ``_atomic``, ``_suggest``,
``_exports``). One exception, named here with its reason: the package facade
``pespec/conformance/__init__.py`` resolves the default family's names (``check``, ``Suite``,
... declared in its ``__all__``; report reproductions print ``from pespec.conformance import
reproduce``) through the registry on first access, and names their homes for type checkers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pespec.conformance

ENGINE = Path(pespec.conformance.__file__).parent
ALLOWED = ("pespec.numerics", "pespec.conformance", "pespec._")
FACADE_ALLOWED = ("pespec.families", "pespec.sinusoidal")
"""What the facade (and only it) may name besides :data:`ALLOWED`: the registry at run time,
the default family's modules for type checkers."""


def pespec_imports(source: str) -> list[tuple[str, int]]:
    """(module, line) of every absolute ``pespec`` import in ``source``; a relative import
    is reported as ``.`` (the engine writes none, so one is a finding)."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.startswith("pespec")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.append((".", node.lineno))
            elif (node.module or "").startswith("pespec"):
                module = node.module or ""
                names = [f"{module}.{a.name}" for a in node.names] if module == "pespec" else []
                found += [(n, node.lineno) for n in names] or [(module, node.lineno)]
    return found


def outside_floor(path: Path) -> list[str]:
    """The imports of ``path`` the engine may not make."""
    allowed = ALLOWED + (FACADE_ALLOWED if path == ENGINE / "__init__.py" else ())
    return [
        f"{path.relative_to(ENGINE.parent.parent)}:{line} imports {module}"
        for module, line in pespec_imports(path.read_text(encoding="utf-8"))
        if not (module.startswith(allowed) or module in ("pespec.numerics", "pespec.conformance"))
    ]


def test_the_engine_imports_only_numerics() -> None:
    problems = [p for path in sorted(ENGINE.rglob("*.py")) for p in outside_floor(path)]
    assert not problems, "the engine imports outside pespec.numerics:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from pespec.numerics.ratio import WorstRatio\n", []),
        ("from pespec.conformance.report import Report\n", []),
        ("from pespec._atomic import write_atomic\n", []),
        (
            "def f():\n    from pespec.sinusoidal.properties.base import Level\n",
            ["pespec.sinusoidal.properties.base"],
        ),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pespec.rope.config\n",
            ["pespec.rope.config"],
        ),
        ("from pespec import sinusoidal\n", ["pespec.sinusoidal"]),
        ("from ..sinusoidal import golden\n", ["."]),
    ],
)
def test_the_walk_sees_each_kind_of_import(source: str, expected: list[str]) -> None:
    """The checker itself: function-local, type-only, ``from pespec import`` and relative
    imports are all seen (and the allowed ones pass)."""
    found = [m for m, _ in pespec_imports(source) if not m.startswith(ALLOWED)]
    assert found == expected
