"""The package's import graph follows its layers, with no edge back (issue 13, item 5).

Every ``import`` and ``from ... import`` in ``pespec/`` is read from the source (AST, so
function-local imports count as well as module-level ones) and each module is given a rank;
a module may import only modules of its own rank or a lower one. The order enforced, lowest
first:

0. ``pespec._version``, ``pespec._atomic``, ``pespec._suggest``, ``pespec._exports``: helpers
   with no pespec imports of their own;
1. ``pespec.numerics``, the numerical ground floor that names no family (formats, generic
   validation, the angle kernel, certified rounding, the ratio rules and the one worst-ratio
   accumulator, what is wrong with an output; ``tests/project/test_numerics_floor.py`` keeps
   it importing nothing of pespec but itself, ``_version`` and ``_atomic``), and
   ``pespec.constants`` (the certified constants of SPEC Annex H, no pespec import);
2. ``pespec.conformance``: the engine, naming no family and importing only ``numerics``
   (``tests/conformance/test_engine_imports.py``): guarded call, contract, report, the
   comparisons, the fixtures folder and its MANIFEST (``conformance/fixtures.py``);
3. the families, siblings that never import each other (``tests/project/
   test_family_folders.py``), each one folder named as the registry names it (issue 38):
   ``pespec.sinusoidal`` (what SPEC §1-§7 define: ``reference/`` the encoding, conventions,
   oracle, exact reference, argument validators; ``properties/`` the error model and the
   properties; and the family's fixtures, stages, built-ins, from-file check,
   reproductions, diagnosis), ``pespec.rope``, the rotary family, and ``pespec.fourier``,
   the Fourier-features family (issue 43); all build on the engine, never the other way;
4. ``pespec.multiaxis``, the multi-axis combinator (issue 28, one folder since issue 38):
   ``multiaxis/sinusoidal`` (the family ``multiaxis``) and ``multiaxis/rope`` (the family
   ``multiaxis-rope``) combine the 1-D families section by section, so they rank above them;
5. ``pespec.teaching`` (the non-normative teaching API, on the sinusoidal reference) and
   ``pespec.plot`` (pictures of a backend's error);
6. ``pespec.specblocks``: the generated blocks of SPEC.md and the docs, rendered from every
   layer below; only the front ends (``pespec constants``) and ``tools/`` may import it;
8. the front ends: ``pespec.cli`` (one module per sub-command), the family registry they
   read (``pespec.families``: each family named once, its parts as lazy ``module:attr``
   strings), ``python -m pespec``, the pytest plugin ``pespec.pytest_plugin`` (the
   ``pytest11`` entry point), the supervisor (``pespec.supervised``: the supervisor, its
   child ``worker`` and ``report_load``), the clients and the table page. The plugin's test
   module ``pespec.conformance.test_suite`` stays in the engine's folder, since ``pytest
   --pyargs pespec.conformance`` collects it there, and imports nothing of pespec.

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
    ("pespec._markdown", 0),
    ("pespec.numerics", 1),
    ("pespec.constants", 1),
    ("pespec.conformance", 2),
    ("pespec.sinusoidal", 3),
    ("pespec.rope", 3),
    ("pespec.fourier", 3),
    ("pespec.multiaxis", 4),
    ("pespec.teaching", 5),
    ("pespec.plot", 5),
    ("pespec.specblocks", 6),
    ("pespec.clients", 8),
    ("pespec.tablepage", 8),  # the table page (issue 40): reads the table JSON of clients
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
"""Engine module -> why it still imports :mod:`pespec.sinusoidal` (rank 2 -> 3): empty since the
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
        elif importer in PENDING and target.startswith("pespec.sinusoidal"):
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
        ("pespec.conformance.report", "def f():\n    from pespec.rope.golden import x\n", 1),
        ("pespec.conformance.report", "import pespec.plot\n", 1),
        ("pespec.sinusoidal.properties.accuracy", "from pespec import cli\n", 1),
        ("pespec.sinusoidal.properties.accuracy", "from pespec import encode\n", 1),
        ("pespec.conformance.report", "from ..numerics import ratio\n", 0),
        (
            "pespec.sinusoidal.reference.encoding",
            "from . import cli\n",
            0,
        ),  # pespec.sinusoidal.reference.cli: gone
        ("pespec.sinusoidal.reference.encoding", "from ... import plot\n", 1),
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


ALIAS = "import sys\n\nfrom pespec.sinusoidal import golden as _m\n\nsys.modules[__name__] = _m\n"


def test_an_alias_module_is_found_and_no_longer_exempt() -> None:
    """An old path that *is* another module is an alias (issue 38: none may exist, see
    tests/project/test_family_folders.py); its import is checked like any other."""
    assert is_alias_facade(ALIAS)
    assert len(back_edges("pespec.conformance.fixtures", ALIAS)) == 1
    plain = "import sys\nfrom pespec.sinusoidal import golden\nx = sys.modules[golden.__name__]\n"
    assert not is_alias_facade(plain)
    assert len(back_edges("pespec.conformance.compare", "import pespec.sinusoidal.golden\n")) == 1
    assert back_edges("pespec.rope.suite", "import pespec.sinusoidal.golden\n") == []  # same rank


def test_each_pending_engine_edge_is_still_needed() -> None:
    """An engine module in :data:`PENDING` still imports the sinusoidal family; once it no
    longer does, its entry goes (the list only shrinks; empty now)."""
    for importer in sorted(PENDING):
        path = PACKAGE.parent / Path(*importer.split(".")).with_suffix(".py")
        source = path.read_text(encoding="utf-8")
        found = [
            t for t, _ in imported(source, importer, False) if t.startswith("pespec.sinusoidal")
        ]
        assert found, f"{importer} no longer imports pespec.sinusoidal: remove it from PENDING"
