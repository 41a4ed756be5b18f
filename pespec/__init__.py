"""pespec: the verified reference specification for sinusoidal positional encoding.

The public names live in :mod:`pespec.reference` and are re-exported here.
"""

from pespec._version import SPEC_VERSION, __version__
from pespec.reference import (
    CANONICAL,
    PRESETS,
    Convention,
    InterpolatedPositionalEncoding,
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    choose_base,
    encode,
    frequencies,
    interpolated_encoding,
    interpolated_positions,
    iter_encoding_chunks,
    sinusoidal_positional_encoding,
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
