"""pespec.sinusoidal.reference: what the SPEC defines: the encoding, its conventions, the certified
oracle, the exact float64 reference and the golden fixtures.

The non-normative teaching API (layer wrappers, context extension, attention, analysis)
is :mod:`pespec.teaching`.
"""

from pespec.sinusoidal.reference.conventions import CANONICAL, PRESETS, Convention
from pespec.sinusoidal.reference.encoding import (
    encode,
    frequencies,
    iter_encoding_chunks,
    sinusoidal_positional_encoding,
)

__all__ = [
    "CANONICAL",
    "PRESETS",
    "Convention",
    "encode",
    "frequencies",
    "iter_encoding_chunks",
    "sinusoidal_positional_encoding",
]
