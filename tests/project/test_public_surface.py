"""The public surface is declared once (issue 38, design note rule 6).

``__all__`` of ``pespec``, ``pespec.conformance``, each family package and ``pespec.numerics``
is the package's public surface: every declared name imports, and nothing else public is
advertised (no public attribute, no name in ``dir()``) but the package's own submodules.
Everything else may move before 1.0 without an alias.
"""

from __future__ import annotations
import __future__

import importlib
import types

import pytest

PACKAGES = (
    "pespec",
    "pespec.conformance",
    "pespec.numerics",
    "pespec.sinusoidal",
    "pespec.sinusoidal.reference",
    "pespec.sinusoidal.properties",
    "pespec.rope",
    "pespec.multiaxis",
    "pespec.multiaxis.sinusoidal",
    "pespec.multiaxis.rope",
    "pespec.fourier",
)
"""The packages whose ``__all__`` is the public surface (the engine, the floor, the families)."""


def undeclared(package: types.ModuleType, names: list[str]) -> list[str]:
    """The public ``names`` of ``package`` that are neither in ``__all__`` nor its
    submodules (nor ``from __future__`` features)."""
    declared = set(package.__all__)
    extra = []
    for name in names:
        if name.startswith(("_", "@")) or name in declared:  # "@py_*": pytest's rewriting
            continue
        value = getattr(package, name, None)
        if isinstance(value, types.ModuleType) and value.__name__ == f"{package.__name__}.{name}":
            continue
        if isinstance(value, __future__._Feature):
            continue
        extra.append(name)
    return sorted(extra)


@pytest.mark.parametrize("name", PACKAGES)
def test_each_declared_name_imports(name: str) -> None:
    package = importlib.import_module(name)
    assert package.__all__ == sorted(set(package.__all__), key=package.__all__.index)
    for public in package.__all__:
        assert getattr(package, public) is not None, f"{name}.{public}"


@pytest.mark.parametrize("name", PACKAGES)
def test_nothing_else_is_advertised(name: str) -> None:
    package = importlib.import_module(name)
    for public in package.__all__:
        getattr(package, public)
    extra = undeclared(package, [*vars(package), *dir(package)])
    assert not extra, f"{name} advertises {extra} outside its __all__"


def test_the_check_finds_an_undeclared_name() -> None:
    fake = types.ModuleType("pespec.fake")
    fake.__all__ = ["declared"]  # type: ignore[attr-defined]
    fake.declared = 1  # type: ignore[attr-defined]
    fake.leaked = 2  # type: ignore[attr-defined]
    fake.sub = types.ModuleType("pespec.fake.sub")  # type: ignore[attr-defined]
    fake.other = types.ModuleType("pespec.other")  # type: ignore[attr-defined]
    assert undeclared(fake, list(vars(fake))) == ["leaked", "other"]
