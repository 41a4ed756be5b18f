"""pespec: the verified reference specification for sinusoidal positional encoding.

The public names live in :mod:`pespec.sinusoidal.reference` (what the SPEC defines) and
:mod:`pespec.teaching` (the non-normative teaching API) and are re-exported here, lazily
(PEP 562): pytest loads the plugin :mod:`pespec.pytest_plugin` in every run of an
environment where pespec is installed, and importing this package must not pull NumPy,
mpmath or gmpy2 in for projects that never use it. ``import pespec; pespec.encode(...)``
and ``from pespec import encode`` import :mod:`pespec.sinusoidal.reference` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pespec._exports import lazy_exports as _lazy_exports
from pespec._version import SPEC_VERSION, __version__

if TYPE_CHECKING:
    from pespec.sinusoidal.reference import (
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
"""Names re-exported from :mod:`pespec.sinusoidal.reference` on first access."""

_SUBPACKAGES = frozenset({"conformance", "sinusoidal", "teaching"})
"""Subpackages reachable as attributes (``pespec.sinusoidal``) without importing them first."""


__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        **{name: "pespec.teaching" for name in _TEACHING},
        **{name: "pespec.sinusoidal.reference" for name in _LAZY},
        **{name: f"pespec.{name}" for name in _SUBPACKAGES},
    },
)
del TYPE_CHECKING
