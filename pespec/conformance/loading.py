"""How a backend spec names a backend: :func:`load_backend` (SPEC §6.1).

Backend specs accepted:

* the built-in names of the family that loads it (the family passes its look-up, e.g.
  ``numpy``, ``torch[-DTYPE][:DEVICE]``);
* ``package.module:attr`` (or ``path/to/file.py:attr``) for any callable or
  :class:`~pespec.conformance.backends.Backend`;
* a name registered by a third-party package in the entry-point group ``pespec.backends``;
* an object: a callable (with optional ``pespec_capabilities``) or a Backend.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from pespec._suggest import did_you_mean
from pespec.conformance.backends import Backend, BackendCapabilities, callable_name
from pespec.conformance.guard import (
    BACKEND_ERRORS,
    BackendLoadError,
    protocol_error,
    raised_text,
    signature_misfit,
)

__all__ = ["ENTRY_POINT_GROUP", "BuiltinLookup", "load_backend"]

BuiltinLookup = Callable[[str], "Backend | None"]
"""A family's built-in backends: the Backend a name builds, or None for no built-in name."""

ENTRY_POINT_GROUP = "pespec.backends"
"""Entry-point group through which third-party packages register named backends."""


def _wrap(
    obj: Any,
    name: str,
    spec: str | None,
    capabilities_type: type[BackendCapabilities],
) -> Backend:
    """A Backend from a loaded object: a Backend, or a callable with optional capabilities
    (read as ``capabilities_type``: the family's :class:`BackendCapabilities`). Loaded from
    a ``spec``, it carries that spec and is called ``name`` (the spec the user typed):
    reports and reproductions name what rebuilds it."""
    if isinstance(obj, Backend):  # e.g. from table_backend: named by the spec that loaded it
        return obj if spec is None else replace(obj, name=name, spec=spec)
    calling = capabilities_type.calling_convention
    if not callable(obj):
        raise BackendLoadError(
            f"backend {name!r} must be a callable {calling.call} or a "
            f"pespec.conformance.Backend; got {type(obj).__name__}"
        )
    misfit = signature_misfit(obj, calling)
    if misfit is not None:
        raise protocol_error(name, misfit, calling)
    declared = getattr(obj, "pespec_capabilities", None)
    try:
        if declared is None:
            capabilities = capabilities_type()
        elif isinstance(declared, capabilities_type):
            capabilities = declared
        elif isinstance(declared, Mapping):
            capabilities = capabilities_type.from_mapping(declared)
        else:
            raise TypeError(
                f"pespec_capabilities must be a dict or Capabilities; got {type(declared).__name__}"
            )
    except (TypeError, ValueError) as exc:
        raise BackendLoadError(f"backend {name!r} declares invalid capabilities: {exc}") from None
    return Backend(name, obj, capabilities=capabilities, spec=spec)


@contextmanager
def _importable_from(folder: Path) -> Iterator[None]:
    """``folder`` first on ``sys.path`` while a backend module is imported, as Python puts a
    script's folder there (``python file.py``; the working folder for ``python -m``): a
    backend file's ``import helpers`` finds the ``helpers.py`` beside it. Removed after."""
    entry = str(folder)
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        if entry in sys.path:
            sys.path.remove(entry)


def _import_file(spec: str, module_name: str) -> Any:
    """Run ``path/to/file.py`` as a module (registered in ``sys.modules``, as an import is,
    so that dataclasses and pickling inside it work), with its folder importable."""
    path = Path(module_name)
    if not path.is_file():
        raise BackendLoadError(f"backend {spec!r}: no such file {module_name!r}")
    name = f"pespec_backend_{path.stem}"
    file_spec = importlib.util.spec_from_file_location(name, path.resolve())
    if file_spec is None or file_spec.loader is None:
        raise BackendLoadError(f"backend {spec!r}: cannot import {module_name!r}")
    module = importlib.util.module_from_spec(file_spec)
    sys.modules[name] = module
    try:
        with _importable_from(path.resolve().parent):
            file_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _load_attribute(spec: str, capabilities_type: type[BackendCapabilities]) -> Backend:
    """``package.module:attr`` or ``path/to/file.py:attr`` (attr may be dotted); the file's
    folder, or the working folder for a module, is importable while it loads."""
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise BackendLoadError(f"backend spec {spec!r} must look like package.module:attr")
    try:
        if module_name.endswith(".py"):
            module = _import_file(spec, module_name)
        else:
            with _importable_from(Path.cwd()):
                module = importlib.import_module(module_name)
    except BackendLoadError:
        raise
    except BACKEND_ERRORS as exc:  # importing user code may raise anything, even SystemExit
        hint = ""
        if isinstance(exc, SystemExit):
            hint = (
                "; a backend module must not exit when imported: put the script part under "
                "`if __name__ == '__main__':`"
            )
        raise BackendLoadError(
            f"backend {spec!r}: importing {module_name} {raised_text(exc)}{hint}"
        ) from None
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise BackendLoadError(f"backend {spec!r}: {module_name!r} has no attribute {part!r}")
        obj = getattr(obj, part)
    return _wrap(obj, spec, spec, capabilities_type)


def _entry_point(
    name: str,
    group: str,
    capabilities_type: type[BackendCapabilities],
) -> Backend | None:
    for entry in importlib.metadata.entry_points(group=group):
        if entry.name == name:
            try:
                obj = entry.load()
            except BACKEND_ERRORS as exc:  # third-party import errors of any kind
                raise BackendLoadError(
                    f"backend {name!r}: loading the entry point {entry.value} {raised_text(exc)}"
                ) from None
            return _wrap(obj, name, name, capabilities_type)
    return None


def _import_spec(obj: Any) -> str | None:
    """``module:qualname`` when that names ``obj`` in an imported module (so that a fresh
    interpreter can rebuild it for a reproduction), else None (``__main__``, closures, ...)."""
    module_name = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module_name, str) or not isinstance(qualname, str):
        return None
    if module_name == "__main__" or "<" in qualname:
        return None
    found: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return f"{module_name}:{qualname}" if found is obj else None


def load_backend(
    spec: str | Backend | Callable[..., Any],
    *,
    capabilities_type: type[BackendCapabilities] = BackendCapabilities,
    group: str = ENTRY_POINT_GROUP,
    builtin: BuiltinLookup | None = None,
    builtin_names: Sequence[str] = (),
) -> Backend:
    """Resolve a backend spec (see the module docstring) into a :class:`Backend`.

    A family passes its ``capabilities_type``, its entry-point ``group`` and, when it has
    built-in backends, their look-up ``builtin`` and the names to offer (``builtin_names``);
    without a look-up only objects, ``module:attr`` and entry points are resolved here.
    Raises :class:`BackendLoadError` with a message saying what was tried and what is
    allowed when nothing matches.
    """
    if isinstance(spec, Backend):
        return spec
    if not isinstance(spec, str):
        return _wrap(spec, callable_name(spec), _import_spec(spec), capabilities_type)
    text = spec.strip()
    if builtin is None:
        return _load_other_family(text, group, capabilities_type)
    found = builtin(text)
    if found is None and ":" in text:
        found = _load_attribute(text, capabilities_type)
    if found is None and text.endswith(".py"):
        raise BackendLoadError(_missing_attribute(text, capabilities_type))
    if found is None:
        found = _entry_point(text, group, capabilities_type)
    if found is not None:
        return found
    raise BackendLoadError(
        f"backend must be a built-in name ({', '.join(builtin_names)}), "
        f"package.module:attr, or a name in the entry-point group {group!r}; "
        f"got {spec!r}{did_you_mean(text, builtin_names)}"
    )


def _load_other_family(
    text: str, group: str, capabilities_type: type[BackendCapabilities]
) -> Backend:
    """``module:attr``, ``file.py:attr`` or an entry point of ``group`` (no built-ins)."""
    if ":" in text:
        return _load_attribute(text, capabilities_type)
    if text.endswith(".py"):
        raise BackendLoadError(_missing_attribute(text, capabilities_type))
    found = _entry_point(text, group, capabilities_type)
    if found is not None:
        return found
    raise BackendLoadError(
        f"this family has no built-in backends (numpy, torch, ... are other families'): "
        f"backend must be package.module:attr, path/to/file.py:attr, or a name in the "
        f"entry-point group {group!r}; got {text!r}"
    )


def _missing_attribute(spec: str, capabilities_type: type[BackendCapabilities]) -> str:
    """The message for ``file.py`` given without ``:function``; names the file's top-level
    functions and classes (read with ``ast``, the file is not run)."""
    import ast

    names: list[str] = []
    try:
        tree = ast.parse(Path(spec).read_text(encoding="utf-8"))
        names = [
            node.name
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")
        ]
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        pass
    example = names[0] if names else "pe"
    arguments = capabilities_type.calling_convention.arguments
    found = f"; it defines {', '.join(names[:8])}" if names else ""
    return (
        f"backend {spec!r} names a file but not the function in it: add :function, e.g. "
        f"{spec}:{example} for a callable {example}{arguments}{found}"
    )
