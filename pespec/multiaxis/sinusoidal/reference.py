"""The multi-axis encoding, its oracle and its bounds, section by section (SPEC §9.2, §9.4).

Nothing here evaluates a sinusoid: each section's columns are the 1-D family's values at
that section's axis coordinate (:mod:`pespec.sinusoidal.reference`), scattered to the section's
output
columns (:meth:`MultiAxisConfig.columns`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.sinusoidal.config import MultiAxisConfig, check_positions_nd
from pespec.sinusoidal.reference import oracle
from pespec.sinusoidal.reference.encoding import encode as exact_encode_1d

__all__ = ["encode", "oracle_encode", "section_columns", "section_positions"]


def section_positions(positions: NDArray[Any], config: MultiAxisConfig, index: int) -> NDArray[Any]:
    """The 1-D positions section ``index`` sees: its axis's coordinates, shape (n,)."""
    return np.ascontiguousarray(positions[:, config.sections[index].axis])


def section_columns(output: NDArray[Any], config: MultiAxisConfig, index: int) -> NDArray[Any]:
    """Section ``index``'s d columns of an (n, D) output, in its 1-D layout order."""
    return np.asarray(output)[:, config.columns(index)]


def _combine(
    positions: Any, config: MultiAxisConfig, one_d: Callable[..., NDArray[np.float64]]
) -> NDArray[np.float64]:
    p = check_positions_nd(positions, config.axes)
    out = np.empty((p.shape[0], config.d_model), dtype=np.float64)
    for index, section in enumerate(config.sections):
        out[:, config.columns(index)] = one_d(
            section_positions(p, config, index),
            section.d_model,
            base=section.base,
            convention=section.convention,
        )
    return out


def encode(positions: Any, config: MultiAxisConfig) -> NDArray[np.float64]:
    """The exact float64 reference (SPEC Annex C per section: each element within 2^-52 of
    the exact value for |coordinate| < 2^31); shape (n, D)."""
    return _combine(positions, config, exact_encode_1d)


def oracle_encode(positions: Any, config: MultiAxisConfig) -> NDArray[np.float64]:
    """The certified oracle (SPEC Annex B per section: every element correctly rounded);
    shape (n, D)."""
    return _combine(positions, config, oracle.encode)
