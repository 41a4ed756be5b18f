"""Built-in backends on optional array libraries: the parts every family's built-ins share.

A family's built-in names such as ``torch[-DTYPE][:DEVICE]`` are parsed by
:func:`library_spec`; :func:`import_optional` imports the library or says how to install it;
:func:`torch_device` checks that a torch device can hold a tensor. Each raises
:class:`~pespec.conformance.guard.BackendLoadError` naming the spec and what is allowed.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

from pespec.conformance.guard import BackendLoadError
from pespec.numerics.formats import DTYPES

__all__ = ["LibrarySpec", "import_optional", "library_spec", "torch_device"]


class LibrarySpec(NamedTuple):
    """``LIBRARY[-DTYPE][:DEVICE]`` split: the dtype defaults to float32, the device to ""."""

    library: str
    dtype_name: str
    device: str


def library_spec(spec: str) -> LibrarySpec:
    """``spec`` split into library, dtype name (checked against the known dtypes) and device."""
    head, _, device = spec.partition(":")
    library, _, dtype_name = head.partition("-")
    dtype_name = dtype_name or "float32"
    if dtype_name not in DTYPES:
        raise BackendLoadError(
            f"backend {spec!r}: dtype must be one of {sorted(DTYPES)}; got {dtype_name!r}"
        )
    return LibrarySpec(library, dtype_name, device)


def import_optional(module: str, extra: str, spec: str) -> Any:
    """The optional library ``module`` that backend ``spec`` needs, or how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise BackendLoadError(
            f"backend {spec!r} needs {module}, which is not installed ({exc}); "
            f"install it with: pip install 'pespec[{extra}]'"
        ) from None


def torch_device(torch: Any, device: str, spec: str) -> Any:
    """``torch.device(device)`` once a tensor was placed on it (BackendLoadError if it cannot)."""
    try:
        found = torch.device(device)
        torch.zeros(1, device=found)
    except (RuntimeError, AssertionError) as exc:
        raise BackendLoadError(
            f"backend {spec!r}: torch device {device!r} is not available: {exc}"
        ) from None
    return found
