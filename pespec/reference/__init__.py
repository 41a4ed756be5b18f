"""pespec.reference: the float64 NumPy reference, conventions, oracle and analysis tools."""

from pespec.reference.conventions import CANONICAL, PRESETS, Convention
from pespec.reference.encoding import encode, frequencies, sinusoidal_positional_encoding

__all__ = [
    "CANONICAL",
    "PRESETS",
    "Convention",
    "encode",
    "frequencies",
    "sinusoidal_positional_encoding",
]
