"""The Fourier-features family (SPEC §10): NeRF frequency encodings, random Fourier features
given B, timm's Fourier grids; the convention, presets, oracle, reference, error model,
properties, run and diagnosis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pespec._exports import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from pespec.fourier.convention import FourierConvention
    from pespec.fourier.presets import PRESETS, convention_from

__all__ = ["PRESETS", "FourierConvention", "convention_from"]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "FourierConvention": "pespec.fourier.convention",
        "PRESETS": "pespec.fourier.presets",
        "convention_from": "pespec.fourier.presets",
    },
)
del TYPE_CHECKING
