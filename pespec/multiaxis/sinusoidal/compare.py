"""A multi-axis output compared with a reference, section by section (SPEC §9.4).

Shared by the golden stage (reference: a certified fixture, error 2^-54), the from-file
check (the exact float64 reference, its proved error) and the diagnosis: each section's
columns within the 1-D comparison bound of that section at its axis coordinate (SPEC §4
bound at the level, plus the reference's own error). No tolerance of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.compare import Worst
from pespec.multiaxis.sinusoidal.config import MultiAxisConfig
from pespec.multiaxis.sinusoidal.reference import section_columns, section_positions
from pespec.sinusoidal.compare import REFERENCE_ERROR, comparison_bound
from pespec.sinusoidal.properties.base import EncodingConfig, Level
from pespec.sinusoidal.reference.exact import scaled_reference_error

__all__ = ["exact_error", "fold_sections"]


def exact_error(config: MultiAxisConfig, index: int) -> float:
    """The proved error of section ``index``'s exact float64 reference (SPEC Annex C)."""
    section = config.sections[index]
    return max(REFERENCE_ERROR, scaled_reference_error(section.convention, section.d_model))


def fold_sections(
    worst: Worst,
    output: NDArray[Any],
    positions: NDArray[Any],
    reference: NDArray[np.float64],
    config: MultiAxisConfig,
    level: Level,
    reference_error: float | None = None,
    slack: float = 0.0,
    only: int | None = None,
) -> None:
    """Fold rows ``output`` (n, D) at ``positions`` (n, k) against ``reference`` (n, D) into
    ``worst`` (columns reported as output columns, positions as the section's coordinate);
    ``reference_error`` None: each section's exact-reference error; ``slack`` is added to
    every bound (0 except for a text file's truncation recheck); ``only``: that section alone."""
    for index, section in enumerate(config.sections):
        if only is not None and index != only:
            continue
        p = section_positions(positions, config, index)
        expected = section_columns(reference, config, index)
        error = exact_error(config, index) if reference_error is None else reference_error
        one_d = EncodingConfig(p, section.d_model, section.base, section.convention)
        bound = comparison_bound(expected, one_d, level, error) + slack
        local = section_columns(output, config, index)
        worst.update(local, expected, bound, p, config.columns(index))
