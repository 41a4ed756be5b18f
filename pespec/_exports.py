"""One way for a package to declare its public names and load them on first use (PEP 562).

A package lists each public name with the module that defines it; :func:`lazy_exports`
gives it the ``__getattr__`` and ``__dir__`` that import that module on first access, so
importing the package imports none of them (``pespec --help`` stays free of NumPy and of
every family). A name that is a submodule (``"formats": "pespec.numerics.formats"`` with the
attribute left empty) imports the submodule itself. tests/project/test_public_surface.py
checks that every declared name imports and that a package advertises nothing else.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``homes`` maps a public name to the module
    defining it (the name's attribute there), or to ``package.name`` (the submodule)."""

    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(home)
        value = module if home == f"{package}.{name}" else getattr(module, name)
        vars(sys.modules[package])[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return getattr_, dir_
