"""pespec: the verified reference specification for sinusoidal positional encoding.

The public names live in :mod:`pespec.reference` (what the SPEC defines) and
:mod:`pespec.teaching` (the non-normative teaching API) and are re-exported here, lazily
(PEP 562): pytest loads the plugin :mod:`pespec.pytest_plugin` in every run of an
environment where pespec is installed, and importing this package must not pull NumPy,
mpmath or gmpy2 in for projects that never use it. ``import pespec; pespec.encode(...)``
and ``from pespec import encode`` import :mod:`pespec.reference` on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pespec._version import SPEC_VERSION, __version__

if TYPE_CHECKING:
    from pespec.reference import (
        CANONICAL,
        PRESETS,
        Convention,
        encode,
        frequencies,
        iter_encoding_chunks,
        sinusoidal_positional_encoding,
    )
    from pespec.teaching import (
        InterpolatedPositionalEncoding,
        LearnedPositionalEncoding,
        SinusoidalPositionalEncoding,
        choose_base,
        interpolated_encoding,
        interpolated_positions,
    )

__all__ = [
    "CANONICAL",
    "PRESETS",
    "SPEC_VERSION",
    "Convention",
    "InterpolatedPositionalEncoding",
    "LearnedPositionalEncoding",
    "SinusoidalPositionalEncoding",
    "__version__",
    "choose_base",
    "encode",
    "frequencies",
    "interpolated_encoding",
    "interpolated_positions",
    "iter_encoding_chunks",
    "sinusoidal_positional_encoding",
]

_TEACHING = frozenset(
    {
        "InterpolatedPositionalEncoding",
        "LearnedPositionalEncoding",
        "SinusoidalPositionalEncoding",
        "choose_base",
        "interpolated_encoding",
        "interpolated_positions",
    }
)
"""Names re-exported from :mod:`pespec.teaching` on first access."""

_LAZY = frozenset(__all__) - {"SPEC_VERSION", "__version__"} - _TEACHING
"""Names re-exported from :mod:`pespec.reference` on first access."""

_SUBPACKAGES = frozenset({"conformance", "properties", "reference", "teaching"})
"""Subpackages reachable as attributes (``pespec.reference``) without importing them first."""


def __getattr__(name: str) -> Any:
    if name in _LAZY or name in _TEACHING:
        source = "pespec.teaching" if name in _TEACHING else "pespec.reference"
        value = getattr(importlib.import_module(source), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f"pespec.{name}")
    else:
        raise AttributeError(f"module 'pespec' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_SUBPACKAGES})
