"""How a backend spec names a sinusoidal backend: :func:`load_backend` (SPEC §6.1).

The engine's :func:`pespec.conformance.loading.load_backend` with this family's parts: its
built-in names (:mod:`pespec.sinusoidal.builtin_backends`: ``numpy`` (the float64 reference),
``numpy-float32``, ``numpy-float16``, ``numpy-bfloat16``; ``torch[-DTYPE][:DEVICE]`` and
``jax[-DTYPE]`` when those libraries are installed), its :class:`Capabilities` and the
entry-point group ``pespec.backends``; a backend given with no capabilities gets this
family's defaults (:func:`~pespec.sinusoidal.capabilities.as_sinusoidal`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pespec.conformance import loading
from pespec.conformance.backends import Backend
from pespec.sinusoidal.builtin_backends import BUILTIN_BACKENDS, builtin_backend
from pespec.sinusoidal.capabilities import Capabilities, as_sinusoidal

__all__ = ["ENTRY_POINT_GROUP", "load_backend"]

ENTRY_POINT_GROUP = loading.ENTRY_POINT_GROUP
"""Entry-point group through which third-party packages register named backends."""


def load_backend(spec: str | Backend | Callable[..., Any]) -> Backend:
    """Resolve a backend spec (see the module docstring) into a :class:`Backend` whose
    capabilities are the sinusoidal :class:`Capabilities`.

    Raises :class:`~pespec.conformance.guard.BackendLoadError` with a message saying what
    was tried and what is allowed when nothing matches.
    """
    backend = loading.load_backend(
        spec,
        capabilities_type=Capabilities,
        group=ENTRY_POINT_GROUP,
        builtin=builtin_backend,
        builtin_names=BUILTIN_BACKENDS,
    )
    return as_sinusoidal(backend)
