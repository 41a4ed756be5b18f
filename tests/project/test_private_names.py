"""Public names only across modules (issue 25, item 3; design note, rule 4).

Every module of ``pespec/`` is read with ``ast`` (function-local imports included) and each
use of a private name (one leading underscore; dunders such as ``__version__`` are public)
that belongs to *another* pespec module is reported:

* ``from pespec.a.b import _name`` (absolute or relative), where ``_name`` is not a module;
* ``b._name`` where ``b`` is bound in the file to a pespec module (``import pespec.a.b as b``,
  ``from pespec.a import b``, or the dotted chain ``pespec.a.b._name``).

How modules count:

* a package's ``__init__.py`` is a module of its own (the package's dotted name): its private
  names are private to it, and it may not import its submodules' private names either;
* a private *module* (``pespec._atomic``, ``pespec.sinusoidal.reference._kernels``) is private to
the
  package that holds it: that package's ``__init__`` and every module below it may import it
  (``pespec._atomic`` thus serves all of pespec), a module outside that package may not.

A private helper that another module needs gets a public name in its home module (in
``__all__``, with a docstring), or moves to a module both users can import publicly.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pespec

PACKAGE = Path(pespec.__file__).parent


def module_name(path: Path) -> str:
    """``pespec/a/b.py`` -> ``pespec.a.b``; a package's ``__init__.py`` -> the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    """Whether ``name`` is a module or package of pespec's source tree."""
    relative = Path(*name.split("."))
    root = PACKAGE.parent
    return (root / relative).with_suffix(".py").is_file() or (root / relative).is_dir()


def is_private(name: str) -> bool:
    """One leading underscore and not a dunder."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def within(importer: str, package: str) -> bool:
    """Whether ``importer`` is ``package`` or a module below it."""
    return importer == package or importer.startswith(package + ".")


def module_problem(target: str, importer: str) -> str | None:
    """Why ``importer`` may not reach the module ``target`` (a private module outside its
    package), or None."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if is_private(part) and not within(importer, ".".join(parts[:i])):
            return f"private module {target}"
    return None


def name_problem(owner: str, name: str, importer: str, modules: set[str]) -> str | None:
    """Why ``importer`` may not use ``owner.name`` (``owner`` a pespec module), or None."""
    candidate = f"{owner}.{name}"
    if candidate in modules:
        return module_problem(candidate, importer)
    if is_private(name) and owner != importer:
        return f"private name {candidate}"
    return module_problem(owner, importer)


def resolve(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module of a ``from ... import``."""
    if not node.level:
        return node.module or ""
    package = importer.split(".")
    package = package if is_package else package[:-1]
    package = package[: len(package) - node.level + 1]
    return ".".join([*package, *([node.module] if node.module else [])])


def bindings(tree: ast.AST, importer: str, is_package: bool, modules: set[str]) -> dict[str, str]:
    """Local name -> pespec module, for every name an import in ``tree`` binds to a module."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "pespec":
                    local = alias.asname or alias.name.split(".")[0]
                    bound[local] = alias.name if alias.asname else "pespec"
        elif isinstance(node, ast.ImportFrom):
            base = resolve(node, importer, is_package)
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    return bound


def chain(node: ast.Attribute) -> tuple[str, list[str]] | None:
    """``a.b.c`` -> ("a", ["b", "c"]); None when the chain does not start at a name."""
    attrs: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        attrs.insert(0, current.attr)
        current = current.value
    return (current.id, attrs) if isinstance(current, ast.Name) else None


def attribute_problems(
    tree: ast.AST, importer: str, bound: dict[str, str], modules: set[str]
) -> list[tuple[int, str]]:
    """(line, why) for every ``module._name`` whose module is another pespec module."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue
        if isinstance(getattr(node, "parent", None), ast.Attribute):
            continue  # only the full chain is judged
        start = chain(node)
        if start is None or start[0] not in bound:
            continue
        owner = bound[start[0]]
        for attr in start[1]:
            problem = name_problem(owner, attr, importer, modules)
            if problem:
                found.append((node.lineno, problem))
                break
            if f"{owner}.{attr}" not in modules:
                break
            owner = f"{owner}.{attr}"
    return found


def problems_in(
    source: str, importer: str, is_package: bool = False, modules: set[str] | None = None
) -> list[str]:
    """Every use in ``source`` of another module's private name or of a private module."""
    modules = set(modules) if modules is not None else all_modules()
    tree = ast.parse(source)
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            child.parent = parent  # type: ignore[attr-defined]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "pespec":
                    problem = module_problem(alias.name, importer)
                    found += [(node.lineno, problem)] if problem else []
        elif isinstance(node, ast.ImportFrom):
            base = resolve(node, importer, is_package)
            if base.split(".")[0] != "pespec":
                continue
            for alias in node.names:
                problem = name_problem(base, alias.name, importer, modules)
                found += [(node.lineno, problem)] if problem else []
    bound = bindings(tree, importer, is_package, modules)
    found += attribute_problems(tree, importer, bound, modules)
    return [f"{importer}:{line} uses {why}" for line, why in sorted(set(found))]


def package_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def all_modules() -> set[str]:
    return {module_name(path) for path in package_modules()}


@pytest.mark.slow  # over 25 s with the other core busy (issue 37)
def test_no_module_uses_another_modules_private_names() -> None:
    modules = all_modules()
    problems = []
    for path in package_modules():
        source = path.read_text(encoding="utf-8")
        problems += problems_in(source, module_name(path), path.name == "__init__.py", modules)
    assert not problems, (
        f"{len(problems)} uses of private names across modules (give them a public name "
        "in their home module, or move them):\n" + "\n".join(problems)
    )


MODULES = {
    "pespec",
    "pespec._atomic",
    "pespec.sinusoidal.reference",
    "pespec.sinusoidal.reference.exact",
    "pespec.sinusoidal.reference._kernels",
    "pespec.rope",
    "pespec.rope.properties",
    "pespec.rope.suite",
    "pespec.conformance",
    "pespec.conformance.contract",
}


@pytest.mark.parametrize(
    ("importer", "source", "expected"),
    [
        ("pespec.rope.suite", "from pespec.conformance.contract import _x\n", 1),
        (
            "pespec.rope.suite",
            "def f():\n    from pespec.sinusoidal.reference.exact import _x, y\n",
            1,
        ),
        ("pespec.rope.suite", "from ..conformance.contract import _x\n", 1),
        ("pespec.rope.suite", "from pespec.conformance.contract import __all__, y\n", 0),
        (
            "pespec.sinusoidal.reference.exact",
            "from pespec.sinusoidal.reference.exact import _x\n",
            0,
        ),  # its own
        ("pespec.rope.suite", "import pespec.rope.properties as p\np._fold(1)\n", 1),
        ("pespec.rope.suite", "from pespec.rope import properties\nproperties._f\n", 1),
        ("pespec.rope.suite", "import pespec.rope.properties\npespec.rope.properties._f\n", 1),
        ("pespec.rope.suite", "import pespec.rope.properties as p\np.fold(1)._x\n", 0),
        ("pespec.rope.suite", "from pespec.rope import _x\n", 1),  # a package's __init__
        ("pespec.rope", "from pespec.rope.suite import _x\n", 1),  # ... counts as a module
        (
            "pespec.sinusoidal.reference.exact",
            "from pespec.sinusoidal.reference import _kernels\n",
            0,
        ),
        ("pespec.sinusoidal.reference.exact", "from . import _kernels\n", 0),
        ("pespec.rope.suite", "from pespec.sinusoidal.reference import _kernels\n", 1),
        ("pespec.rope.suite", "import pespec.sinusoidal.reference._kernels\n", 1),
        ("pespec.rope.suite", "from pespec.sinusoidal.reference._kernels import fill_exact\n", 1),
        ("pespec.rope.suite", "from pespec._atomic import write\n", 0),  # private to pespec
    ],
)
def test_the_walk_finds_private_uses(importer: str, source: str, expected: int) -> None:
    """The checker itself: plain, function-local, relative, attribute and module cases."""
    assert len(problems_in(source, importer, modules=MODULES)) == expected
