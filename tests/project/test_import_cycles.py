"""No import cycles between pespec modules (issue 25, item 3).

The graph is the one of ``test_import_layers``: an edge for every ``import`` and
``from ... import`` in ``pespec/``, read with ``ast``, function-local imports included (a
cycle hidden inside a function is still two modules that need each other). ``from M import n``
is an edge to ``M.n`` when that is a module, else to ``M``. The implicit edge from a module to
the packages above it (Python runs ``pespec/rope/__init__.py`` before ``pespec/rope/x.py``) is
not counted: the lazy facades ``pespec`` and ``pespec.rope`` import their submodules on first
attribute access only, and the layering test already refuses imports of names from the root
facade. The strongly connected components are found with Tarjan's algorithm; any component of
more than one module, or a module importing itself, fails.
"""

from __future__ import annotations

import pytest

from tests.project.test_import_layers import imported, module_name, package_modules


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Module -> the pespec modules it imports; ``sources``: module -> (source, is package)."""
    graph: dict[str, set[str]] = {}
    for module, (source, is_package) in sources.items():
        graph[module] = {target for target, _ in imported(source, module, is_package)}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components that are cycles (Tarjan), each sorted, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def package_sources() -> dict[str, tuple[str, bool]]:
    return {
        module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
        for path in package_modules()
    }


def test_no_import_cycles() -> None:
    """Issue 25 found four (``runner``/``comparison_stages``, ``exact``/``_kernels``, rope
    ``config``/``hf``, ``report``/``report_text``); all are broken: a protocol for the stages,
    the circle table in ``reference/circle.py``, the config.json reading in
    ``rope/hf_fields.py`` with the validation facts in ``rope/schedules/``, a ``ReportView``
    protocol with ``SUITE_VERSION`` in ``pespec._version``. A new one fails here."""
    found = cycles(import_graph(package_sources()))
    assert not found, f"{len(found)} import cycles:\n" + "\n".join(
        " <-> ".join(component) for component in found
    )


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (
            {
                "pespec.conformance.engine": ("import pespec.conformance.report\n", False),
                "pespec.conformance.report": (
                    "def f():\n    from pespec.conformance import engine\n",
                    False,
                ),
            },
            [["pespec.conformance.engine", "pespec.conformance.report"]],
        ),
        (
            {
                "pespec.reference.exact": ("from . import oracle\n", False),
                "pespec.reference.oracle": ("import math\n", False),
            },
            [],
        ),
        (
            {
                "pespec.reference.exact": ("from .oracle import x\n", False),
                "pespec.reference.oracle": ("from .naive import y\n", False),
                "pespec.reference.naive": ("from .exact import z\n", False),
            },
            [["pespec.reference.exact", "pespec.reference.naive", "pespec.reference.oracle"]],
        ),
    ],
)
def test_the_walk_finds_cycles(
    sources: dict[str, tuple[str, bool]], expected: list[list[str]]
) -> None:
    """The checker itself: a function-local two-cycle, no cycle, a relative three-cycle."""
    assert cycles(import_graph(sources)) == expected
