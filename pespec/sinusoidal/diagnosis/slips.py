"""Named mistakes the convention family cannot express (SPEC Annex D.4).

Two common slips give outputs that no member of the family of SPEC §3 explains, so the fit
alone could only say "no known convention":

* sin and cos swapped within each pair (cos in the even columns, sin in the odd ones):
  cosines-first interleaving is no convention of the family;
* the index off by one, ω_i = base^(−2(i+1)/d): the canonical law at every position scaled
  by base^(−2/d), a factor that changes with d, so no convention's argument scale fits;
* the exponent m·i/d with m ≠ 2 (``base ** (-4 * i / d)``, or ``i / d``): ω_i =
  base^(−m·i/d) = (base^(m/2))^(−2i/d) is the canonical law at the base base^(m/2), which
  follows the requested base but is not it, so no fixed or followed base fits.

:func:`find_slip` checks each against the diagnosis probes with the element bound of SPEC §4,
as the family fit is verified (Annex D.4): every element within the bound, at least a quarter of
them informative. The finest working precision that passes is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import SIGNIFICAND_BITS
from pespec.sinusoidal.properties.base import EncodingConfig, Level
from pespec.sinusoidal.properties.errormodel import element_bound
from pespec.sinusoidal.reference.encoding import encode

__all__ = ["SLIPS", "Slip", "find_slip"]

_MIN_INFORMATIVE_FRACTION = 0.25
"""As in the family verification: elements with a bound below 0.05 must be a quarter."""

_FORMATS_FINE_TO_COARSE = ("float64", "float32", "float16", "bfloat16")


@dataclass(frozen=True)
class Slip:
    """A mistake: the canonical encoding with the base raised to ``base_power`` (exponent
    m·i/d: power m/2) and, with ``swap_pairs``, sin and cos exchanged within each pair."""

    name: str
    description: str
    base_power: float = 1.0
    swap_pairs: bool = False
    index_shift: int = 0

    def model(
        self, positions: NDArray[Any], d_model: int, base: float, level: Level
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(exact output of this slip, its §4 element bound at ``level``), both (n, d)."""
        actual = float(base) ** self.base_power
        if self.index_shift:  # ω_(i+s) = ω_i·base^(−2s/d): the positions scaled, exactly
            positions = np.asarray(positions, dtype=np.float64) * actual ** (
                -2.0 * self.index_shift / d_model
            )
        values = encode(positions, d_model, base=actual)
        bound = element_bound(EncodingConfig(positions, d_model, actual), level)
        if self.swap_pairs:
            order = np.arange(d_model).reshape(-1, 2)[:, ::-1].ravel()
            values, bound = values[:, order], bound[:, order]
        return values, bound


SLIPS: tuple[Slip, ...] = (
    Slip(
        "sin_cos_swapped",
        "sin and cos swapped within each pair (cos in the even columns, sin in the odd ones)",
        swap_pairs=True,
    ),
    Slip(
        "exponent_4i_over_d",
        "the exponent 4i/d instead of 2i/d (ω_i = base^(−4i/d))",
        base_power=2.0,
    ),
    Slip(
        "exponent_i_over_d",
        "the exponent i/d instead of 2i/d (ω_i = base^(−i/d))",
        base_power=0.5,
    ),
    Slip(
        "exponent_index_off_by_one",
        "the exponent 2(i+1)/d instead of 2i/d, the index off by one (ω_i = base^(−2(i+1)/d))",
        index_shift=1,
    ),
)
"""The named mistakes, tried in this order."""

Probe = tuple[NDArray[Any], int, float, NDArray[np.float64]]
"""(positions (n,), d_model, requested base, the backend's output as float64 (n, d))."""


def _holds(slip: Slip, probes: Sequence[Probe], level: Level) -> tuple[bool, float]:
    """(every element within the bound and enough informative, max error/bound)."""
    worst = 0.0
    informative = 0
    total = 0
    for positions, d_model, base, values in probes:
        expected, bound = slip.model(positions, d_model, base, level)
        with np.errstate(invalid="ignore"):
            ratio = np.abs(values - expected) / bound
        if not np.isfinite(ratio).all():
            return False, float("inf")
        worst = max(worst, float(ratio.max()))
        informative += int((bound <= 0.05).sum())
        total += bound.size
    enough = total > 0 and informative >= _MIN_INFORMATIVE_FRACTION * total
    return worst <= 1.0 and enough, worst


def find_slip(probes: Sequence[Probe], level: Level) -> dict[str, Any] | None:
    """The first slip that explains every probe, or None.

    Working precisions are tried from the level's own to the coarsest format; the JSON
    object gives ``name``, ``description``, ``working_precision`` (the finest that holds)
    and ``max_error_over_bound`` there.
    """
    if not probes:
        return None
    own = SIGNIFICAND_BITS[level.working_dtype]
    formats = [f for f in _FORMATS_FINE_TO_COARSE if SIGNIFICAND_BITS[f] <= own]
    for slip in SLIPS:
        for working in formats:
            holds, worst = _holds(slip, probes, Level(level.output_dtype, working))
            if holds:
                return {
                    "name": slip.name,
                    "description": slip.description,
                    "working_precision": working,
                    "max_error_over_bound": worst,
                }
    return None
