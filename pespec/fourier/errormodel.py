"""The Fourier family's error model (SPEC §10.4): the argument's magnitude drives the bound.

For a real input x the value sin(a_j) is only as good as the angle a_j = c·s·Σ_i W_ji·x_i a
backend forms in its working format T (unit roundoff u); no position index bounds it. The
derivation (SPEC §10.4, assumptions F1-F4):

F1. x_i, s, c and ω_j (or B_ji) are each rounded once to T, and at most four products and one
    k-term sum form â_j, plus one optional phase addition â_j + π/2 (cos as a shifted sin, as
    nerfstudio writes it): k + 8 roundings, so |â_j − a_j| ≤ γ(k + 8 + w_j)·A_j + π·u, with
    A_j = |c·s|·Σ_i |W_ji·x_i| (Higham, Lemma 3.1 and §3.1 for the sum; the π·u is the
    rounding of π/2 and of the shifted sum's π/2 part).
F2. A band frequency evaluated as b^e (pow, c_f ulps, and e itself from linspace, 3 roundings)
    or as a linspace f0 + j·Δ (3 roundings) is off by a relative w_j·u more:
    w_j = 2c_f + 3·|e_j|·ln b (base2, geometric), 3·(|f0| + j|Δ|)/|ω_j| (linear), 0 (matrix).
F3. sin and cos are 1-Lipschitz and the library's sin/cos is within c_f ulps (≤ 2c_f·u for a
    value of magnitude ≤ 1, SPEC §4.1 A2); storing in T adds at most u.
F4. A raw input column is x_i rounded to T: error ≤ u·|x_i|.
F5. With ``input_log`` the angle takes log x_i: x_i rounded to T moves it by ≤ 1.01u
    (absolute) and the library's log adds c_f ulps (≤ 2c_f·u·|log x_i|), so the angle gains
    2c_f·u·A_j + 1.01u·|c·s|·Σ_i |W_ji| (and 2c_f more roundings in the count).

F6. The low-precision levels ``float16`` and ``bfloat16`` are a table computed in float32
    (F1-F5 with u = 2^-24) and then cast to the output format, as users cast a buffer
    (fairseq2's fp16/bf16 buffers): the cast may round through float32 first (torch and
    ml_dtypes casts of float64), so storing adds ½·ulp*_out(m) + ½·ulp*_32(m),
    m = min(|v| + E_32, 1) (SPEC §4.2's output rounding; m = 1 when |v| is not given), and
    u_out·|x_i| for a raw column.

So |out − f(a_j)| ≤ γ(k + 8 + w_j)·A_j + (π + 2c_f + 1)·u (+ F5) for a sine or cosine
column and u·|x_i| for a raw column (plus F6 at a low-precision level). The tolerance of a
check adds the reference's own error, half an ulp of float64 (the oracle rounds correctly;
SPEC §10.5).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from pespec.fourier.convention import FourierConvention
from pespec.fourier.oracle import angle_terms
from pespec.numerics.formats import LIBRARY_ULPS, gamma, rounding_term, unit_roundoff

__all__ = ["LEVELS", "column_slack", "element_bounds", "tolerance"]

LEVELS = ("float64", "float32", "float16", "bfloat16")
"""The levels a backend may claim: its output's dtype (float64 and float32 also the working
format; float16 and bfloat16 a float32 table cast to them, F6)."""

CAST_LEVELS = ("float16", "bfloat16")
"""The levels of a float32 table cast to a narrower output format (F6)."""

ROUNDINGS = 8
"""k + ROUNDINGS roundings form an angle (F1)."""


def column_slack(conv: FourierConvention) -> NDArray[np.float64]:
    """w_j of each angle (F2), (m,)."""
    if conv.law == "matrix":
        return np.zeros(conv.angles)
    bands = np.empty(conv.bands)
    for j in range(conv.bands):
        omega, exponent = conv.frequency(j)
        if conv.law == "linear":
            start, stop = abs(conv.linear_start), abs(conv.linear_stop - conv.linear_start)
            size = abs(float(omega)) if omega is not None else 0.0
            step = stop / (conv.bands - 1) if conv.bands > 1 else 0.0
            bands[j] = 3.0 * (start + j * step) / size if size > 0 else 0.0
        else:
            bands[j] = 2 * LIBRARY_ULPS + 3.0 * abs(float(exponent)) * math.log(conv.base)
    return np.array([bands[j] for j, _ in conv.angle_index()])


def _weight_sums(conv: FourierConvention) -> NDArray[np.float64]:
    """|c·s|·Σ_i |W_ji| of each angle (m,), rounded up by 2^-40."""
    from pespec.fourier.reference import weights

    c = abs(conv.input_scale) * {"none": 1.0, "pi": math.pi, "2pi": 2 * math.pi}[conv.pi]
    sums: NDArray[np.float64] = np.abs(weights(conv)).sum(axis=1) * c * (1 + 2.0**-40)
    return sums


def element_bounds(
    x: NDArray[np.float64],
    conv: FourierConvention,
    level: str,
    magnitude: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """The bound on |out − exact| of every element (n, D) at ``level`` (F1-F6);
    ``magnitude``: |exact| of every element (n, D), for F6's output rounding (None: 1)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    if level in CAST_LEVELS:
        return _cast_bounds(x, conv, level, magnitude)
    u = unit_roundoff(level)
    terms = angle_terms(x, conv)  # (n, m)
    counts = conv.in_dims + ROUNDINGS + column_slack(conv)
    trig = gamma(counts, u)[None, :] * terms + (math.pi + 2 * LIBRARY_ULPS + 1) * u
    if conv.input_log:  # F5
        trig += gamma(2 * LIBRARY_ULPS, u) * terms + 1.01 * u * _weight_sums(conv)[None, :]
    out = np.empty((x.shape[0], conv.width), dtype=np.float64)
    for column, (kind, j) in enumerate(conv.columns()):
        out[:, column] = u * np.abs(x[:, j]) if kind == "raw" else trig[:, j]
    return out


def _cast_bounds(
    x: NDArray[np.float64],
    conv: FourierConvention,
    level: str,
    magnitude: NDArray[np.float64] | None,
) -> NDArray[np.float64]:
    """F6: the float32 bound plus the cast to ``level`` (through float32)."""
    bound = element_bounds(x, conv, "float32")
    size = np.ones_like(bound) if magnitude is None else np.minimum(magnitude + bound, 1.0)
    cast = rounding_term(size, level) + rounding_term(size, "float32")
    u_out = unit_roundoff(level)
    for column, (kind, j) in enumerate(conv.columns()):
        cast[:, column] = u_out * np.abs(x[:, j]) if kind == "raw" else cast[:, column]
    out: NDArray[np.float64] = bound + cast
    return out


def tolerance(
    x: NDArray[np.float64],
    conv: FourierConvention,
    level: str,
    reference: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """The tolerance of a comparison with the correctly rounded reference (n, D): the level's
    bound plus the reference's own error, half an ulp of float64 (≤ 2^-53) for a sine or
    cosine, 0 for a raw column (the reference holds x exactly). ``reference``: the values
    compared with (their magnitude, plus 2^-53, sizes F6's output rounding)."""
    size = None if reference is None else np.abs(reference) + 2.0**-53
    bound = element_bounds(x, conv, level, size)
    trig = [column for column, (kind, _) in enumerate(conv.columns()) if kind != "raw"]
    bound[:, trig] += 2.0**-53
    return bound
