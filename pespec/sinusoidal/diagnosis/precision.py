"""Working-precision inference (SPEC Annex D.3): the format a backend effectively computes in.

Three signs, each from the probes of :mod:`.probes`: how the angle error grows with |θ| and
|ln ω| (:func:`error_growth`, classified by :func:`classify_error_bits`), whether the measured
frequencies lie on a coarse format's grid (:func:`frequency_grid`), and which integer
positions the output can no longer tell apart (:func:`representability`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.formats import DTYPES, LIBRARY_ULPS, SIGNIFICAND_BITS
from pespec.sinusoidal.diagnosis.fit import Candidate, line_fits
from pespec.sinusoidal.diagnosis.probes import Probe
from pespec.sinusoidal.diagnosis.verify import angles, model

__all__ = [
    "AMPLITUDE_ULPS",
    "FORMATS_COARSE_TO_FINE",
    "REPRESENTABILITY_FORMATS",
    "SPREAD_BITS",
    "classify_error_bits",
    "coarser",
    "error_growth",
    "frequency_grid",
    "representability",
    "values_format",
]

FORMATS_COARSE_TO_FINE = ("bfloat16", "float16", "float32", "float64")

SPREAD_BITS = 2.5
"""bits = −log2(largest angle-error ratio) of a p-bit format lies near [p, p + 2.5]
(SPEC Annex D.3): p for frequencies computed through exp, up to p + 2.5 for singly rounded ones."""

REPRESENTABILITY_FORMATS = ("bfloat16", "float16", "float32")
"""Formats whose integer range (2^p) the large-position probe straddles."""

AMPLITUDE_ULPS = 2 * 2 * LIBRARY_ULPS
"""|sqrt(sin² + cos²)/A − 1| allowed, in units u of the format the values lie in: each of
sin, cos within LIBRARY_ULPS = 4 ulps = 8u (SPEC §4.1 A2), and the radius within 2 × that."""


def classify_error_bits(bits: float, floor_bits: float) -> str:
    """Working precision from bits = −log2(max angle-error ratio) (SPEC Annex D.3).

    A format with p significand bits shows bits near [p, p + 2.5]; the cut between two
    neighbouring formats is halfway between the coarse one's p + 2.5 and the fine one's p.
    bits below p_bfloat16 − 1.5 is more error than any format explains ("unknown"). When
    nothing was seen (bits = inf), the precision is finer than every format that the probes
    could have seen (those with p + 2.5 < floor_bits): float64 if float32 was visible.
    """
    if math.isinf(bits):
        float32_visible = SIGNIFICAND_BITS["float32"] + SPREAD_BITS < floor_bits
        return "float64" if float32_visible else "unknown"
    if bits < SIGNIFICAND_BITS["bfloat16"] - 1.5:
        return "unknown"
    for coarse, fine in itertools.pairwise(FORMATS_COARSE_TO_FINE):
        cut = (SIGNIFICAND_BITS[coarse] + SPREAD_BITS + SIGNIFICAND_BITS[fine]) / 2.0
        if bits < cut:
            return coarse
    return "float64"


def error_growth(candidate: Candidate, probes: list[Probe], u_out: float) -> tuple[float, float]:
    """(bits, floor_bits): −log2 of the largest angle-error ratio and of the resolution.

    ratio = max(0, |y/A − exact| − 2·u_out) / (1 + |θ|·(2 + |ln ω_k|)): output rounding
    removed, normalised by how a relative error of the working precision enters the angle
    (position, frequency — through exp of an argument of size |ln ω| — and product).
    """
    largest = 0.0
    resolution = math.inf
    for probe in probes:
        assert probe.values is not None
        scale = candidate.scale_for(probe.d_model)
        error = np.abs(probe.values - model(candidate, probe)) / scale
        theta, log_omega = angles(candidate, probe)
        denominator = 1.0 + theta * (2.0 + log_omega[None, :])
        finite = np.isfinite(error)
        ratio = np.maximum(error[finite] - 2.0 * u_out, 0.0) / denominator[finite]
        if ratio.size:
            largest = max(largest, float(ratio.max()))
            resolution = min(resolution, float((2.0 * u_out / denominator[finite]).min()))
    bits = -math.log2(largest) if largest > 0 else math.inf
    floor_bits = -math.log2(resolution) if resolution > 0 else math.inf
    return bits, floor_bits


def frequency_grid(candidate: Candidate, probes: list[Probe]) -> str | None:
    """The coarser of bfloat16/float16 whose grid holds every measured frequency, or None.

    The angular rate of each pair, measured by a straight-line fit of its unwrapped angle,
    is ω̂_k itself when c = 1. Frequencies stored in a format (a buffer cast with the model)
    are numbers of that format: every pair whose rate is pinned down to a margin below a
    quarter of the format's spacing must lie within that margin of a format number. A random
    rate does so with probability 2·margin/spacing; the product over the tested pairs must
    be ≤ 1e-6. Error growth alone hardly tells a singly rounded bfloat16 frequency from a
    float16 one computed through exp (Annex D.3).
    """
    if float(candidate.convention.argument_scale) != 1.0:
        return None
    rates: list[NDArray[np.float64]] = []
    margins: list[NDArray[np.float64]] = []
    for probe in probes:
        assert probe.values is not None
        convention = candidate.convention
        sin = probe.values[:, convention.sin_columns(probe.d_model)]
        cos = probe.values[:, convention.cos_columns(probe.d_model)]
        x = probe.positions.astype(np.float64)
        step = float(x[1] - x[0])
        rate, _, margin = line_fits(x, np.unwrap(np.arctan2(sin, cos), axis=0))
        keep = (rate > 0) & (rate * step < 2.0)
        rates.append(rate[keep])
        margins.append(margin[keep])
    rate = np.concatenate(rates)
    margin = np.maximum(np.concatenate(margins), 1e-12 * rate)  # float64 arithmetic of the fit
    for name in ("bfloat16", "float16"):
        with np.errstate(over="ignore", under="ignore"):
            nearest = rate.astype(DTYPES[name]).astype(np.float64)
        spacing = 2.0 ** (np.floor(np.log2(rate)) + 1 - SIGNIFICAND_BITS[name])
        testable = margin < 0.25 * spacing
        chance = float(np.prod(2.0 * margin[testable] / spacing[testable]))
        if chance <= 1e-6 and np.all(np.abs(rate - nearest)[testable] <= margin[testable]):
            return name
    return None


def representability(probe: Probe | None) -> str | None:
    """The coarsest format whose rounding of integer positions shows in the output.

    In a format with p significand bits 2^p + 1 rounds to 2^p while 2^p + 2 stays exact, so
    the rows of 2^p and 2^p + 1 are identical and the row of 2^p + 2 differs.
    """
    if probe is None or probe.values is None:
        return None
    index = {int(p): i for i, p in enumerate(probe.positions)}
    for name in REPRESENTABILITY_FORMATS:
        start = 2 ** SIGNIFICAND_BITS[name]
        if any(start + j not in index for j in range(3)):
            continue  # beyond the declared max_position
        rows = [probe.values[index[start + j]] for j in range(3)]
        if not all(np.isfinite(row).all() for row in rows):
            continue
        if np.array_equal(rows[0], rows[1]) and not np.array_equal(rows[0], rows[2]):
            return name
    return None


def coarser(first: str, second: str) -> str:
    return first if SIGNIFICAND_BITS[first] <= SIGNIFICAND_BITS[second] else second


def values_format(probes: list[Probe]) -> str:
    """The coarsest format holding every output value exactly: where the values were last
    rounded (bfloat16 values returned as float32 still lie on the bfloat16 grid)."""
    values = np.concatenate([probe.values.ravel() for probe in probes if probe.values is not None])
    for name in FORMATS_COARSE_TO_FINE:
        with np.errstate(over="ignore"):
            if np.array_equal(values.astype(DTYPES[name]).astype(np.float64), values):
                return name
    return "float64"
