"""The Fourier-features family (SPEC §10): NeRF frequency encodings, random Fourier features
given B, timm's Fourier grids; the convention, presets, oracle, reference, error model,
properties, run and diagnosis.
"""

from __future__ import annotations

__all__ = ["PRESETS", "FourierConvention", "convention_from"]

from pespec.fourier.convention import FourierConvention
from pespec.fourier.presets import PRESETS, convention_from
