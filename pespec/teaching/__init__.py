"""pespec.teaching: the non-normative teaching API built on the reference encoding.

Nothing here is defined by the SPEC; it shows the encoding at work: layer-style wrappers
(:mod:`pespec.teaching.modules`: fixed sinusoidal and learned tables), position
interpolation and base choice for longer contexts (:mod:`pespec.teaching.extension`), a
small self-attention layer for integration tests (:mod:`pespec.teaching.attention`) and
analysis tools (:mod:`pespec.teaching.analysis`: rotation matrix, dot products, statistics,
wavelengths; not re-exported here).
"""

from pespec.teaching.extension import (
    InterpolatedPositionalEncoding,
    choose_base,
    interpolated_encoding,
    interpolated_positions,
)
from pespec.teaching.modules import LearnedPositionalEncoding, SinusoidalPositionalEncoding

__all__ = [
    "InterpolatedPositionalEncoding",
    "LearnedPositionalEncoding",
    "SinusoidalPositionalEncoding",
    "choose_base",
    "interpolated_encoding",
    "interpolated_positions",
]
