"""Compiled kernels of the exact angle kernel (SPEC Annex C.5), used when numba is installed.

Each kernel performs the same IEEE 754 binary64 operations, in the same order, as the
NumPy code of :mod:`pespec.numerics.angle` it replaces (``turns`` + ``sincos_turns``,
``f32_split`` and ``rotate``; the fractional path of :mod:`pespec.numerics.faithful`):
numba compiles without fast-math, so no operation is reassociated or fused into an FMA,
and the results are the NumPy path's bit for bit
(tested). The kernels only save the NumPy path's temporaries and per-call overhead.

Install with ``pip install pespec[fast]``; ``PESPEC_PURE_NUMPY=1`` (read at import) or
:func:`set_enabled` selects the NumPy path. Shapes: x (n,), pieces (K, 5), factors (6, m, K)
stacked as h_re, h_im, t_re, t_im, f_re, f_im (see ``angle.Factors``).
"""

from __future__ import annotations

import math
import os
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.numerics.circle import circle_table

__all__ = ["available", "enabled", "factors", "fill_exact", "rotate_gather", "set_enabled"]

F64 = NDArray[np.float64]

_SPLITTER = 134217729.0  # 2^27 + 1, as in circle.veltkamp_split
_TWO_PI_HI = float.fromhex("0x1.921fb54442d18p+2")
_TWO_PI_LO = float.fromhex("0x1.1a62633145c07p-52")
_N = 256
_TWO_52 = 2.0**52
_S3, _S5, _S7 = -1 / 6, 1 / 120, -1 / 5040
_C2, _C4, _C6, _C8 = -1 / 2, 1 / 24, -1 / 720, 1 / 40320
_GAMMA_2PI = _SPLITTER * _TWO_PI_HI
_TWO_PI_A = _GAMMA_2PI - (_GAMMA_2PI - _TWO_PI_HI)
_TWO_PI_B = _TWO_PI_HI - _TWO_PI_A


def _rint(x: float) -> float:
    """np.rint(x) (nearest, ties to even), inline: |x| + 2^52 rounds |x| to an integer."""
    if abs(x) >= _TWO_52:
        return x  # already an integer
    return math.copysign((abs(x) + _TWO_52) - _TWO_52, x)


def _frac(x: float) -> float:
    return x - _rint(x)


def _split(x: float) -> tuple[float, float]:
    """Veltkamp's split x = hi + lo, each of at most 26 bits (as circle.veltkamp_split)."""
    gamma = _SPLITTER * x
    hi = gamma - (gamma - x)
    return hi, x - hi


def _two_sum(a: float, b: float) -> tuple[float, float]:
    """Knuth's TwoSum: s = fl(a + b) and the exact error a + b − s."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _product_error(p: float, a_hi: float, a_lo: float, b_hi: float, b_lo: float) -> float:
    """Dekker's error of p = fl(a·b) from the splits of a and b: a·b − p."""
    return (((a_hi * b_hi - p) + a_hi * b_lo) + a_lo * b_hi) + a_lo * b_lo


def _add_turn(total: float, low: float, product: float) -> tuple[float, float]:
    """One step of exact._turns: TwoSum of total and frac(product), error into low."""
    s, err = _two_sum(total, _frac(product))
    return _frac(s), low + err


def _turns(x_hi: float, x_lo: float, pieces_t: F64, k: int) -> tuple[float, float]:
    """total + low ≡ x·W_k turns, |total| ≤ 1/2 (exact._turns op for op, before ``extra``)."""
    w0, w1, w2 = pieces_t[0, k], pieces_t[1, k], pieces_t[2, k]
    total = _frac(x_hi * w0)
    low = 0.0
    total, low = _add_turn(total, low, x_lo * w0)
    total, low = _add_turn(total, low, x_hi * w1)
    total, low = _add_turn(total, low, x_lo * w1)
    total, low = _add_turn(total, low, x_hi * w2)
    total, low = _add_turn(total, low, x_lo * w2)
    # x_lo = 0 makes its terms +0, which change no bit: exact._turns skips them
    w3, w4 = pieces_t[3, k], pieces_t[4, k]
    low += (x_hi * w3 + x_lo * w3) + (x_hi * w4 + x_lo * w4)
    return total, low


def _add_extra(total: float, low: float, ex_hi: float, ex_lo: float) -> tuple[float, float]:
    """The extra turns ex_hi + ex_lo added to total + low (exact._turns with ``extra``)."""
    s, err = _two_sum(total, ex_hi)
    return _frac(s), low + (err + ex_lo)


def _reduce(t_hi: float, t_lo: float) -> tuple[int, float, float, float]:
    """The table index m mod N and ρ = 2π(t − m/N) as r_hi, sin ρ − r_hi and cos ρ − 1
    (the first half of exact._sincos_turns)."""
    scaled = t_hi * _N
    m = _rint(scaled)
    tau = (scaled - m) * (1.0 / _N)
    tau_a, tau_b = _split(tau)
    r_hi = _TWO_PI_HI * tau
    r_lo = _product_error(r_hi, _TWO_PI_A, _TWO_PI_B, tau_a, tau_b)
    r_lo += _TWO_PI_HI * t_lo + _TWO_PI_LO * tau
    r2 = r_hi * r_hi
    sin_tail = r_lo + r_hi * r2 * (_S3 + r2 * (_S5 + r2 * _S7))
    cos_m1 = r2 * (_C2 + r2 * (_C4 + r2 * (_C6 + r2 * _C8))) - r_hi * r_lo
    return np.int64(m) & (_N - 1), r_hi, sin_tail, cos_m1


def _rotate_by_table(work: F64, k: int) -> tuple[float, float, float, float]:
    """s_hi, s_lo, c_hi, c_lo of the table angle m/N turned by ρ (column k of work: r_hi,
    sin ρ − r_hi, cos ρ − 1, then the table row; the second half of exact._sincos_turns)."""
    r_hi, sin_tail, cos_m1 = work[0, k], work[1, k], work[2, k]
    ch, cl, sh, sl = work[3, k], work[4, k], work[5, k], work[6, k]
    ca, cb, sa, sb = work[7, k], work[8, k], work[9, k], work[10, k]
    r_a, r_b = _split(r_hi)
    p = ch * r_hi
    p_err = _product_error(p, ca, cb, r_a, r_b)
    head, err = _two_sum(sh, p)
    tail = err + ((((p_err + sl) + ch * sin_tail) + sh * cos_m1) + cl * r_hi)
    s_hi, s_lo = _two_sum(head, tail)
    q = sh * r_hi
    q_err = _product_error(q, sa, sb, r_a, r_b)
    head, err = _two_sum(ch, -q)
    tail = err + ((((cl - q_err) + ch * cos_m1) - sh * sin_tail) - sl * r_hi)
    c_hi, c_lo = _two_sum(head, tail)
    return s_hi, s_lo, c_hi, c_lo


def _sincos_row(
    x: float,
    pieces_t: F64,
    ex_hi: F64,
    ex_lo: F64,
    has_extra: bool,
    table: F64,
    work: F64,
    index: NDArray[np.int64],
    result: F64,
) -> None:
    """result (4, K) ← s_hi, s_lo, c_hi, c_lo at x·W_k (+ extra): exact._turns, then
    exact._sincos_turns, op for op. Three loops over k so that the first and the last
    vectorise (the table gather between them does not). The steps are inlined
    (``inline="always"``); ``has_extra`` is tested here: inside ``_turns`` it made the first
    loop 3.3x slower (measured)."""
    x_hi, x_lo = _split(x)
    for k in range(pieces_t.shape[1]):
        total, low = _turns(x_hi, x_lo, pieces_t, k)
        if has_extra:
            total, low = _add_extra(total, low, ex_hi[k], ex_lo[k])
        s, t_lo = _two_sum(total, low)
        index[k], work[0, k], work[1, k], work[2, k] = _reduce(_frac(s), t_lo)
    for k in range(pieces_t.shape[1]):
        for j in range(8):
            work[3 + j, k] = table[index[k], j]
    for k in range(pieces_t.shape[1]):
        result[0, k], result[1, k], result[2, k], result[3, k] = _rotate_by_table(work, k)


def _write_row(out: F64, r: int, layout: int, sin_row: F64, cos_row: F64) -> None:
    """out[r] ← the row's sines and cosines in the layout (0 interleaved, 1 sin|cos halves,
    2 cos|sin halves), with unit-stride indices the compiler can vectorise."""
    half = sin_row.shape[0]
    if layout == 0:
        for k in range(half):
            out[r, 2 * k] = sin_row[k]
            out[r, 2 * k + 1] = cos_row[k]
    elif layout == 1:
        for k in range(half):
            out[r, k] = sin_row[k]
            out[r, half + k] = cos_row[k]
    else:
        for k in range(half):
            out[r, half + k] = sin_row[k]
            out[r, k] = cos_row[k]


def _faithful_turns(
    x_hi: float, x_lo: float, pieces_t: F64, k: int, has_extra: bool, ex_hi: float, ex_lo: float
) -> tuple[float, float]:
    """(total, low) of faithful.sincos_faithful for column k, op for op."""
    w0, w1, w2, w3 = pieces_t[0, k], pieces_t[1, k], pieces_t[2, k], pieces_t[3, k]
    t0 = x_hi * w0
    t0 = t0 - _rint(t0)
    t1 = x_lo * w0
    t1 = t1 - _rint(t1)
    t2 = x_hi * w1
    t2 = t2 - _rint(t2)
    total, low = _two_sum(t0, t1)
    total, err = _two_sum(total, t2)
    low = low + err
    if has_extra:
        total, err = _two_sum(total, ex_hi)
        low = low + err
        low = low + ex_lo
    low = low + x_lo * w1
    low = low + x_hi * w2
    low = low + (x_hi * w3 + x_lo * w2)
    return total, low


def _faithful_sincos(total: float, low: float, table: F64) -> tuple[float, float]:
    """sin and cos of 2π·(total + low) as faithful._rotate_by_table computes them, op for op."""
    scaled = total * _N
    m = _rint(scaled)
    scaled = scaled - m
    tau = scaled * (1.0 / _N)
    tau = tau + low
    r = tau * _TWO_PI_HI
    i = np.int64(m) & (_N - 1)
    ch, cl, sh, sl = table[i, 0], table[i, 1], table[i, 2], table[i, 3]
    r2 = r * r
    sin_tail = ((((r2 * _S7 + _S5) * r2) + _S3) * r2) * r
    cos_m1 = ((r2 * _C6 + _C4) * r2 + _C2) * r2
    small = cl * r + sl
    part = sh * cos_m1 + ch * sin_tail
    small = small + part
    small = small + ch * r
    sin = sh + small
    small = cl - sl * r
    part = ch * cos_m1 - sh * sin_tail
    small = small + part
    small = small - sh * r
    return sin, ch + small


def _fill_exact(
    x: F64,
    pieces_t: F64,
    ex_hi: F64,
    ex_lo: F64,
    has_extra: bool,
    table: F64,
    sign: float,
    out: F64,
    layout: int,
    limit: float,
) -> None:
    """out (n, d) ← sign·sin, cos of the fractional path in the layout (rotation._fill_exact,
    faithful.sincos_faithful); rows with x > ``limit`` by the exact path (s_hi + s_lo)."""
    half = pieces_t.shape[1]
    sin_row, cos_row = np.empty(half), np.empty(half)
    work, result = np.empty((11, half)), np.empty((4, half))
    index = np.empty(half, dtype=np.int64)
    for r in range(x.shape[0]):
        if x[r] > limit:
            _sincos_row(x[r], pieces_t, ex_hi, ex_lo, has_extra, table, work, index, result)
            for k in range(half):
                sin_row[k] = sign * (result[0, k] + result[1, k])
                cos_row[k] = result[2, k] + result[3, k]
            _write_row(out, r, layout, sin_row, cos_row)
            continue
        x_hi, x_lo = _split(x[r])
        for k in range(half):
            total, low = _faithful_turns(x_hi, x_lo, pieces_t, k, has_extra, ex_hi[k], ex_lo[k])
            sin, cos = _faithful_sincos(total, low, table)
            sin_row[k] = sign * sin
            cos_row[k] = cos
        _write_row(out, r, layout, sin_row, cos_row)


def _factors(x: F64, pieces_t: F64, table: F64, anchor: bool, out: F64) -> None:
    """out (6, n, K) ← the split factors of angle.Factors at the angles x·W (no offset)."""
    half = pieces_t.shape[1]
    work, result = np.empty((11, half)), np.empty((4, half))
    index = np.empty(half, dtype=np.int64)
    zero = np.zeros(half)
    for r in range(x.shape[0]):
        _sincos_row(x[r], pieces_t, zero, zero, False, table, work, index, result)
        for k in range(half):
            s_hi, s_lo, c_hi, c_lo = result[0, k], result[1, k], result[2, k], result[3, k]
            s_head = np.float64(np.float32(s_hi))
            c_head = np.float64(np.float32(c_hi))
            s_tail = (s_hi - s_head) + s_lo
            c_tail = (c_hi - c_head) + c_lo
            if anchor:
                out[0, r, k], out[1, r, k], out[2, r, k] = s_head, c_head, s_tail
                out[3, r, k], out[4, r, k], out[5, r, k] = c_tail, s_hi, c_hi
            else:
                out[0, r, k], out[1, r, k], out[2, r, k] = c_head, s_head, c_tail
                out[3, r, k], out[4, r, k], out[5, r, k] = s_tail, c_hi, s_hi


def _rotate_gather(
    a_index: NDArray[np.intp],
    f_index: NDArray[np.intp],
    anchor: F64,
    fine: F64,
    out: F64,
    layout: int,
) -> None:
    """Row r ← rotation of anchor row a_index[r] by fine row f_index[r] (exact._rotate)."""
    half = anchor.shape[2]
    sin_row, cos_row = np.empty(half), np.empty(half)
    for r in range(a_index.shape[0]):
        j = a_index[r]
        q = f_index[r]
        for k in range(half):
            a1, c1, a2, c2 = anchor[0, j, k], anchor[1, j, k], anchor[2, j, k], anchor[3, j, k]
            b1, d1, b2, d2 = fine[0, q, k], fine[1, q, k], fine[2, q, k], fine[3, q, k]
            bh, dh = fine[4, q, k], fine[5, q, k]
            big_re = a1 * b1 + c1 * d1  # exact products: one rounding, as the complex multiply
            big_im = c1 * b1 - a1 * d1
            acc = a1 * b2
            acc = acc + c1 * d2
            acc = acc + a2 * bh
            acc = acc + c2 * dh
            sin_row[k] = big_re + acc
            acc = c1 * b2
            acc = acc - a1 * d2
            acc = acc + c2 * bh
            acc = acc - a2 * dh
            cos_row[k] = big_im + acc
        _write_row(out, r, layout, sin_row, cos_row)


def _compile() -> dict[str, Any] | None:
    """The njit-compiled kernels (cached on disk), or None without numba."""
    if os.environ.get("PESPEC_PURE_NUMPY", "") not in ("", "0"):
        return None
    try:
        import numba
    except Exception:  # absent, or unusable with this NumPy (numba raises ImportError or more)
        return None
    jit = numba.njit(cache=True, fastmath=False, error_model="numpy")
    inline = numba.njit(cache=True, fastmath=False, error_model="numpy", inline="always")
    steps: tuple[str, ...] = ("_turns", "_add_extra", "_reduce", "_rotate_by_table", "_write_row")
    steps = (*steps, "_faithful_turns", "_faithful_sincos")  # the fractional path
    for name in ("_rint", "_frac", "_split", "_two_sum", "_product_error", "_add_turn", *steps):
        globals()[name] = inline(globals()[name])
    globals()["_sincos_row"] = jit(_sincos_row)
    kernels = {
        "fill_exact": jit(_fill_exact),
        "factors": jit(_factors),
        "rotate_gather": jit(_rotate_gather),
    }
    try:  # compile now (or load from the cache): a failure falls back to the NumPy path
        _smoke_test(kernels)
    except Exception as exc:
        warnings.warn(
            f"pespec: numba kernels unavailable ({type(exc).__name__}: {exc}); using the "
            "NumPy path, which gives the same values",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return kernels


def _smoke_test(kernels: dict[str, Any]) -> None:
    """Run each kernel once on a tiny input, so that a compilation error shows here."""
    table = np.zeros((_N, 8))  # only the calls matter; the values are tested elsewhere
    pieces_t = np.zeros((5, 1))
    pieces_t[0, 0] = 0.25
    zero = np.zeros(1)
    out = np.empty((2, 2))  # row 1: x > limit, the exact path
    kernels["fill_exact"](
        np.array([0.5, 2.5]), pieces_t, zero, zero, False, table, 1.0, out, 0, 1.0
    )
    stacked = np.empty((6, 1, 1))
    kernels["factors"](np.array([0.5]), pieces_t, table, True, stacked)
    index = np.zeros(1, dtype=np.intp)
    kernels["rotate_gather"](index, index, stacked, stacked, out, 0)


_KERNELS: dict[str, Any] | None = None
_STATE: dict[str, bool | None] = {"loaded": False, "enabled": None}


def _load() -> None:
    """Import numba and wrap the kernels, once (numba's import takes a noticeable moment)."""
    global _KERNELS
    if not _STATE["loaded"]:
        _KERNELS = _compile()
        _STATE["loaded"] = True
        if _STATE["enabled"] is None:
            _STATE["enabled"] = _KERNELS is not None


def available() -> bool:
    """True when numba is installed and not disabled by PESPEC_PURE_NUMPY."""
    _load()
    return _KERNELS is not None


def enabled() -> bool:
    """True when the exact reference uses the compiled kernels."""
    _load()
    return bool(_STATE["enabled"])


def set_enabled(value: bool) -> bool:
    """Use the kernels (True, when available) or the NumPy path (False); returns the old state."""
    old = enabled()
    _STATE["enabled"] = bool(value) and _KERNELS is not None
    return old


def fill_exact(
    x: F64,
    pieces: F64,
    extra: tuple[F64, F64] | None,
    sign: float,
    out: F64,
    layout: int,
    limit: float,
) -> None:
    """out (n, d) ← x (n,) ≥ 0 plus ``extra`` turns by the fractional path (the exact path
    where x > ``limit``), in the layout code."""
    assert _KERNELS is not None
    zero = np.zeros(pieces.shape[0])
    ex_hi, ex_lo = (zero, zero) if extra is None else extra
    ex_hi = np.ascontiguousarray(np.broadcast_to(ex_hi, zero.shape), dtype=np.float64)
    ex_lo = np.ascontiguousarray(np.broadcast_to(ex_lo, zero.shape), dtype=np.float64)
    _KERNELS["fill_exact"](
        np.ascontiguousarray(x, dtype=np.float64),
        np.ascontiguousarray(pieces.T),
        ex_hi,
        ex_lo,
        extra is not None,
        circle_table(),
        float(sign),
        out,
        layout,
        float(limit),
    )


def factors(x: F64, pieces: F64, *, anchor: bool) -> F64:
    """The stacked split factors (6, n, K) at the angles x·W, x (n,) ≥ 0."""
    assert _KERNELS is not None
    out = np.empty((6, x.shape[0], pieces.shape[0]))
    _KERNELS["factors"](
        np.ascontiguousarray(x, dtype=np.float64),
        np.ascontiguousarray(pieces.T),
        circle_table(),
        bool(anchor),
        out,
    )
    return out


def rotate_gather(
    a_index: NDArray[np.intp],
    f_index: NDArray[np.intp],
    anchor: F64,
    fine: F64,
    out: F64,
    layout: int,
) -> None:
    """out (n, d) ← the rotation of anchor rows a_index by fine rows f_index, in the layout."""
    assert _KERNELS is not None
    _KERNELS["rotate_gather"](
        np.ascontiguousarray(a_index, dtype=np.intp),
        np.ascontiguousarray(f_index, dtype=np.intp),
        anchor,
        fine,
        out,
        layout,
    )
