"""pespec.reference: the float64 NumPy reference, conventions, oracle and analysis tools.

Submodules not re-exported here: :mod:`pespec.reference.analysis` (rotation matrix, dot
products, statistics, wavelengths) and :mod:`pespec.reference.attention` (a small
self-attention layer for integration tests).
"""

from pespec.reference.conventions import CANONICAL, PRESETS, Convention
from pespec.reference.encoding import (
    encode,
    frequencies,
    iter_encoding_chunks,
    sinusoidal_positional_encoding,
)
from pespec.reference.extension import (
    InterpolatedPositionalEncoding,
    choose_base,
    interpolated_encoding,
    interpolated_positions,
)
from pespec.reference.modules import LearnedPositionalEncoding, SinusoidalPositionalEncoding

__all__ = [
    "CANONICAL",
    "PRESETS",
    "Convention",
    "InterpolatedPositionalEncoding",
    "LearnedPositionalEncoding",
    "SinusoidalPositionalEncoding",
    "choose_base",
    "encode",
    "frequencies",
    "interpolated_encoding",
    "interpolated_positions",
    "iter_encoding_chunks",
    "sinusoidal_positional_encoding",
]
