"""The package's import graph follows its layers, with no edge back (issue 13, item 5).

Every ``import`` and ``from ... import`` in ``pespec/`` is read from the source (AST, so
function-local imports count as well as module-level ones) and each module is given a rank;
a module may import only modules of its own rank or a lower one. The order enforced, lowest
first:

0. ``pespec._version``, ``pespec._atomic``: helpers with no pespec imports of their own;
1. ``pespec.numerics``, the numerical ground floor that names no family (formats, generic
   validation, the angle kernel, certified rounding, the ratio rules and the one worst-ratio
   accumulator; ``tests/project/test_numerics_floor.py`` keeps it importing nothing of pespec
   but itself, ``_version`` and ``_atomic``, so it sits below everything else of rank 1), and
   ``pespec.reference`` (what the SPEC defines: encoding, conventions, oracle, exact
   reference, golden fixtures, and the argument validators of ``reference/validation.py``
   that every layer uses) and ``pespec.constants`` (the certified constants of SPEC Annex H);
2. ``pespec.teaching``: the non-normative teaching API, built on the reference only;
3. ``pespec.properties``: the error model and the properties, judged against the reference;
4. ``pespec.conformance``: the engine, running backends through the properties (guarded
   call, contract, report, the fixtures folder and its MANIFEST, ``conformance/fixtures.py``);
5. the families, siblings that never import each other (``tests/project/
   test_family_folders.py``): ``pespec.sincos``, the absolute sinusoidal family (its
   fixtures, stages, built-ins, from-file check, reproductions, diagnosis: issue 25), and
   ``pespec.rope``, the rotary family, and ``pespec.fourier``, the Fourier-features family
   (issue 43); all build on the engine, never the other way round;
6. ``pespec.plot``: pictures of a backend's error (loads backends through conformance), and
   ``pespec.multiaxis``, the multi-axis sin-cos family (issue 28): a combinator over the
   sinusoidal family (its reference, bounds, properties and comparisons, section by
   section), so it ranks above the families it combines, and the engine never names it;
   ``pespec.mrope``, the multi-axis rotary family (issue 28): the same over ``pespec.rope``;
7. ``pespec.specblocks``: the generated blocks of SPEC.md and the docs, rendered from every
   layer below (reference, properties, conformance, the families); only the front ends
   (``pespec constants``) and ``tools/`` may import it;
8. the front ends: ``pespec.cli`` (one module per sub-command), the family registry they
   read (``pespec.families``: each family named once, its parts as lazy ``module:attr``
   strings), ``python -m pespec`` and
   the pytest plugin ``pespec.pytest_plugin`` (the ``pytest11`` entry point), which serve
   both families, and the supervisor that both run the backend under
   (``pespec.supervised``: the supervisor, its child ``worker`` and ``report_load``, which
   rebuild any family's suite and report and draw the error picture: front-end machinery,
   out of the engine's folder since issue 25; the old ``pespec.conformance`` paths are
   aliases). The plugin's test module
   ``pespec.conformance.test_suite`` stays in the engine's folder, since ``pytest --pyargs
   pespec.conformance`` collects it there, and imports nothing of pespec: it ranks with the
   engine, and any import it gained from a front end would show here.

The lazy facades ``pespec/__init__.py``, ``pespec/conformance/__init__.py`` and
``pespec/rope/__init__.py`` (PEP 562 exports) are exempt as importers; an alias module (a
module body ending in ``sys.modules[__name__] = <another module>``, found by
:func:`is_alias_facade`) is not, and none is left (issue 38); importing
the root facade by a name that is not a submodule is refused, since such an import would
hide the real edge. :data:`PENDING` lists, each with its reason, the engine modules that
still import the sinusoidal family while the engine's split (issue 25, item 4) is under way;
an entry no longer needed fails, so the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pespec

PACKAGE = Path(pespec.__file__).parent

RANKS: tuple[tuple[str, int], ...] = (
    ("pespec._version", 0),
    ("pespec._exports", 0),
    ("pespec._atomic", 0),
    ("pespec._suggest", 0),
    ("pespec.numerics", 1),
    ("pespec.reference", 1),
    ("pespec.constants", 1),
    ("pespec.teaching", 2),
    ("pespec.properties", 3),
    ("pespec.conformance", 4),
    ("pespec.sincos", 5),
    ("pespec.rope", 5),
    ("pespec.fourier", 5),
    ("pespec.multiaxis", 6),
    ("pespec.mrope", 6),
    ("pespec.plot", 6),
    ("pespec.clients", 8),
    ("pespec.tablepage", 8),  # the table page (issue 40): reads the table JSON of clients
    ("pespec.specblocks", 7),
    ("pespec.cli", 8),
    ("pespec.families", 8),
    ("pespec.supervised", 8),
    ("pespec.__main__", 8),
    ("pespec.pytest_plugin", 8),
)
"""Module prefix -> rank, the most specific prefix first (see the module docstring)."""

FACADES = frozenset({"pespec", "pespec.conformance", "pespec.rope"})
"""Lazy facades, exempt as importers."""

PENDING: dict[str, str] = {}
"""Engine module -> why it still imports :mod:`pespec.sincos` (rank 4 -> 5): empty since the
engine stopped naming the sinusoidal family (issue 25); kept so that a temporary edge has a
place to be listed, with its reason."""


def is_alias_facade(source: str) -> bool:
    """Whether ``source`` is a deprecated alias module: a module-level statement
    ``sys.modules[__name__] = ...`` (the old path *is* the new module)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if (
                isinstance(target, ast.Subscript)
                and ast.unparse(target.value) == "sys.modules"
                and ast.unparse(target.slice) == "__name__"
            ):
                return True
    return False


def rank(module: str) -> int:
    """The rank of ``module`` (a dotted name inside pespec)."""
    for prefix, value in RANKS:
        if module == prefix or module.startswith(prefix + "."):
            return value
    raise AssertionError(f"{module} has no rank: place it in RANKS")


def module_name(path: Path) -> str:
    """``pespec/a/b.py`` -> ``pespec.a.b``; a package's ``__init__.py`` -> the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    """Whether ``name`` is a module or package of pespec's source tree."""
    relative = Path(*name.split("."))
    root = PACKAGE.parent
    return (root / relative).with_suffix(".py").is_file() or (root / relative).is_dir()


def imported(source: str, importer: str, is_package: bool) -> list[tuple[str, int]]:
    """(pespec module, line) of every import in ``source``, function-local ones included;
    ``from M import n`` names ``M.n`` when that is a module, else ``M``."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the importer's package
                package = importer.split(".")
                package = package if is_package else package[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, *([node.module] if node.module else [])])
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.append((candidate if is_module(candidate) else base, node.lineno))
    return [(name, line) for name, line in found if name.split(".")[0] == "pespec"]


def back_edges(importer: str, source: str, is_package: bool = False) -> list[str]:
    """The imports in ``source`` that go to a higher rank (or hide behind the root facade)."""
    if importer in FACADES:
        return []
    problems = []
    for target, line in imported(source, importer, is_package):
        if target == "pespec":
            problems.append(f"{importer}:{line} imports a name from the facade pespec")
        elif importer in PENDING and target.startswith("pespec.sincos"):
            continue
        elif rank(target) > rank(importer):
            problems.append(
                f"{importer}:{line} -> {target} (rank {rank(importer)} -> {rank(target)})"
            )
    return problems


def package_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_rank() -> None:
    for path in package_modules():
        if module_name(path) not in FACADES:
            rank(module_name(path))  # raises for a module outside RANKS


@pytest.mark.slow
def test_no_import_goes_back_down_the_layers() -> None:
    problems = []
    for path in package_modules():
        source = path.read_text(encoding="utf-8")
        problems += back_edges(module_name(path), source, path.name == "__init__.py")
    assert not problems, "imports against the layering:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("importer", "source", "expected"),
    [
        ("pespec.reference.golden", "def f():\n    from pespec.rope.golden import x\n", 1),
        ("pespec.conformance.report", "import pespec.plot\n", 1),
        ("pespec.properties.accuracy", "from pespec import cli\n", 1),
        ("pespec.properties.accuracy", "from pespec import encode\n", 1),
        ("pespec.conformance.report", "from ..properties import base\n", 0),
        ("pespec.reference.encoding", "from . import cli\n", 0),  # pespec.reference.cli: gone
        ("pespec.reference.encoding", "from .. import plot\n", 1),
        ("pespec.cli.check", "from pespec.conformance import runner\n", 0),
        ("pespec.rope", "from pespec.cli import main\n", 0),  # a facade: exempt
        ("pespec.rope.presets", "def f():\n    from pespec.specblocks import rope\n", 1),
        ("pespec.plot", "from pespec.specblocks.tables import tiny_table\n", 1),
        ("pespec.specblocks.rope", "from pespec.rope.presets import PRESETS\n", 0),
        ("pespec.cli.constants", "def f():\n    from pespec.specblocks import tables\n", 0),
    ],
)
def test_the_walk_finds_back_edges(importer: str, source: str, expected: int) -> None:
    """The checker itself: a function-local, a plain, a relative and a facade import."""
    assert len(back_edges(importer, source)) == expected


ALIAS = "import sys\n\nfrom pespec.sincos import golden as _m\n\nsys.modules[__name__] = _m\n"


def test_an_alias_module_is_found_and_no_longer_exempt() -> None:
    """An old path that *is* another module is an alias (issue 38: none may exist, see
    tests/project/test_family_folders.py); its import is checked like any other."""
    assert is_alias_facade(ALIAS)
    assert len(back_edges("pespec.reference.golden", ALIAS)) == 1
    plain = "import sys\nfrom pespec.sincos import golden\nx = sys.modules[golden.__name__]\n"
    assert not is_alias_facade(plain)
    assert len(back_edges("pespec.conformance.compare", "import pespec.sincos.golden\n")) == 1
    assert back_edges("pespec.rope.suite", "import pespec.sincos.golden\n") == []  # same rank


def test_each_pending_engine_edge_is_still_needed() -> None:
    """An engine module in :data:`PENDING` still imports the sinusoidal family; once it no
    longer does, its entry goes (the list only shrinks; empty now)."""
    for importer in sorted(PENDING):
        path = PACKAGE.parent / Path(*importer.split(".")).with_suffix(".py")
        source = path.read_text(encoding="utf-8")
        found = [t for t, _ in imported(source, importer, False) if t.startswith("pespec.sincos")]
        assert found, f"{importer} no longer imports pespec.sincos: remove it from PENDING"
