"""Probes at the positions where a check failed (SPEC Annex D.8; issue 27 item 4).

The basis-vector probes of :mod:`.probes` send integer positions up to 2^20. A slip visible
only at fractional positions (a framework that casts float positions to bfloat16 while the
integer ones stay exact) or beyond the probes' range (int64 positions cast to float32 past
2^24) is invisible to them. This probe sends the failing positions themselves (float64 when
any is fractional, else int64), with a few fractional ones when a failing position is
fractional, in one backend call, and tries what the backend may have done to each position:
rounded to bfloat16, float16 or float32, or truncated to an integer (a table looked up by
integer index). A hypothesis explains when every row is within the element bound of the
exact rotation at the changed positions while the rows are not all within it at the given
positions. Expected values: the exact float64 reference (:func:`pespec.rope.reference.rotate`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.rope.config import RopeConfig
from pespec.rope.diagnosis.formats import round_to
from pespec.rope.errormodel import RopeLevel, tolerance

__all__ = ["FRACTIONAL_EXTRA", "HYPOTHESES", "PROBED_MAX", "PositionFinding", "probe_positions"]

HYPOTHESES: Final = ("bfloat16", "float16", "float32", "integer")
"""What a backend may do to a position before the phase, tried in this order."""

FRACTIONAL_EXTRA: Final = (0.5, 1.25, 3.75, 100.5, 1234.75)
"""Fractional positions added when a failing position is fractional (exact in float64)."""

PROBED_MAX: Final = 1048575
"""The largest position of the basis-vector probes: beyond it a position is "large"."""

Call = Callable[[NDArray[np.float64], NDArray[Any]], NDArray[Any]]


@dataclass(frozen=True)
class PositionFinding:
    """What the probe at the failing positions found: ``hypothesis`` (a format name,
    "integer", or None when none explains), the worst ratio at the given positions, the
    position it was at and what the hypothesis turns it into; ``kind`` "fractional"/"large"."""

    kind: str
    positions: tuple[float, ...]
    hypothesis: str | None
    ratio: float
    worst_position: float
    taken_as: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "positions": list(self.positions),
            "hypothesis": self.hypothesis,
            "max_ratio": self.ratio if np.isfinite(self.ratio) else None,
            "worst_position": self.worst_position,
            "taken_as": self.taken_as,
        }

    def sentence(self) -> str:
        """The clause: what the backend does to these positions, or that nothing tried
        explains the departure there."""
        p = _show(self.worst_position)
        if self.ratio <= 1.0:
            return f"at the failing {self.kind} positions the probes found the exact rotation"
        if self.hypothesis is None:
            return (
                f"at {self.kind} positions the output departs from the exact rotation "
                f"({self.ratio:.3g}× the bound at position {p}); positions rounded to "
                "bfloat16, float16 or float32, or truncated to integers, do not explain it"
            )
        shown = _show(self.taken_as) if self.taken_as is not None else "?"
        if self.hypothesis == "integer":
            what = "truncated to an integer (a table looked up by integer index)"
        else:
            what = f"rounded to {self.hypothesis} before the phase"
        exact = " (integer positions stay exact)" if self.kind == "fractional" else ""
        return (
            f"at {self.kind} positions the backend uses each position {what}: position {p} "
            f"is taken as {shown}{exact}"
        )


def _show(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{int(value)}" if float(value).is_integer() else f"{value!r}"


def _changed(positions: NDArray[np.float64], hypothesis: str) -> NDArray[np.float64]:
    if hypothesis == "integer":
        return np.trunc(positions)
    return round_to(positions, hypothesis)


def _ratios(
    y: NDArray[np.float64],
    x: NDArray[np.float64],
    used: NDArray[np.float64],
    config: RopeConfig,
    bound: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Per row, the worst |y − exact rotation at ``used``| / bound."""
    from pespec.rope.reference import rotate

    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.abs(y - rotate(x, used, config)) / bound
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    worst: NDArray[np.float64] = np.max(ratio, axis=1)
    return worst


def probe_positions(
    call: Call,
    config: RopeConfig,
    failing: Sequence[float],
    level: RopeLevel,
    output_dtype: str,
    max_position: float,
) -> PositionFinding | None:
    """Probe the failing fractional or large positions (None when there are none, or the
    call fails); one backend call."""
    from pespec.rope.inputs import SUITE_HALF, rotary_x

    wanted = [float(p) for p in failing if not float(p).is_integer() or p > PROBED_MAX]
    if not wanted:
        return None
    fractional = any(not p.is_integer() for p in wanted)
    extra = [p for p in FRACTIONAL_EXTRA if p <= max_position] if fractional else []
    chosen = np.unique(np.array([*wanted, *extra], dtype=np.float64))
    positions: NDArray[Any] = chosen if fractional else chosen.astype(np.int64)
    x = rotary_x(chosen.shape[0], config.head_dim, seed=19, half=SUITE_HALF)
    try:
        y = np.asarray(call(x, positions), dtype=np.float64)
    except Exception:  # advice only: a failing probe names nothing
        return None
    if y.shape != x.shape:
        return None
    bound = tolerance(x, chosen, config, level, output_dtype)
    bound = np.where(bound > 0, bound, np.finfo(np.float64).tiny)
    given = _ratios(y, x, chosen, config, bound)
    row = int(np.argmax(given))
    kind = "fractional" if fractional else "large"
    found: str | None = None
    taken: float | None = None
    if given[row] > 1.0:
        for hypothesis in HYPOTHESES:
            used = _changed(chosen, hypothesis)
            if np.array_equal(used, chosen) or not np.all(np.isfinite(used)):
                continue
            if np.all(_ratios(y, x, used, config, bound) <= 1.0):
                found, taken = hypothesis, float(used[row])
                break
    return PositionFinding(
        kind,
        tuple(chosen.tolist()),
        found,
        float(given[row]),
        float(chosen[row]),
        taken,
    )
