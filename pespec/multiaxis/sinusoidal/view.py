"""What the multi-axis stages and diagnosis use of a run (so they need not import it)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pespec.multiaxis.sinusoidal.config import MultiAxisConfig
from pespec.multiaxis.sinusoidal.presets import Preset
from pespec.sinusoidal.properties.base import Level

__all__ = ["RunView"]


class RunView(Protocol):
    """A multi-axis run as its stages see it
    (:class:`pespec.multiaxis.sinusoidal.run.MultiAxisRun`)."""

    config: MultiAxisConfig
    preset: Preset
    positions: NDArray[Any]
    """The grid rows checked, (n, k)."""
    rows: NDArray[Any]
    """Their indices in the preset's grid."""
    grid_rows: int
    declared_out: int
    """Checked rows left out because the backend's capabilities do not admit them."""
    stages: tuple[str, ...]

    @property
    def level(self) -> str | None: ...

    output_dtype: str | None

    def output(self, positions: NDArray[Any]) -> NDArray[Any]: ...

    def blocks(self, positions: NDArray[Any]) -> list[NDArray[Any]]: ...

    def level_object(self) -> Level: ...

    def admits(self, positions: NDArray[Any]) -> NDArray[np.bool_]: ...

    def as_sent(self, positions: NDArray[Any]) -> NDArray[Any]: ...
