"""The block rotation of the exact angle kernel (SPEC Annex C.5): tables of sin and cos for
many positions from a few anchors and GRID fine offsets, bit for bit a function of each position.

What: :class:`Rotator` fills rows of sin and cos of 2π·x·W_k for integer and real positions x,
each element within 2^-52 of the exact value for |angle| ≤ 2^40 (SPEC Annex C's theorem), laid
out as a :class:`TableLayout` says. Why: every exact reference fills its
tables with it; it names no family. Compiled kernels (:mod:`pespec.numerics.kernels`) replace
the NumPy loops when numba is installed, with the same bits. Shapes: out (n, 2K), x (n,).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from pespec.numerics import kernels
from pespec.numerics.faithful import faithful_limit, sincos_faithful
from pespec.numerics.turns import (
    CHUNK_ELEMENTS,
    Factors,
    row_chunks,
    sincos_turns,
    turns,
)

__all__ = [
    "GRID",
    "ORDERS",
    "SIN_COS_HALVES",
    "TILE_ELEMENTS",
    "Rotator",
    "TableLayout",
    "fill_positions",
    "fine_factors",
    "layout_code",
    "negate_sine",
    "rotate",
    "sin_cos_views",
]

F64 = NDArray[np.float64]
C128 = NDArray[np.complex128]

GRID: Final = 64
"""B: integer positions are rotated from anchors at multiples of GRID (SPEC Annex C)."""

TILE_ELEMENTS: Final = 1 << 15
"""Elements per rotation tile (256 KiB per float64 array)."""
_FACTOR_BYTES: Final = 64  # per (angle, column) of a Factors: 1 complex + 6 float64
_FINE_CACHE_BYTES: Final = 1 << 24  # fine factors up to 16 MiB are cached per configuration
_KERNEL_ANCHOR_ELEMENTS: Final = 1 << 15  # kernels: anchor factors per gather block (2 MiB)
FAITHFUL_CHUNK_ELEMENTS = 1 << 14
"""Angles per block of the fractional path (NumPy): ~12 temporaries of 128 KiB (measured)."""


ORDERS: Final = ("interleaved", "sin_cos_halves", "cos_sin_halves")
"""Where the sine and cosine of angle k go in a row of 2K columns: (2k, 2k + 1), (k, K + k)
or (K + k, k)."""


@dataclass(frozen=True)
class TableLayout:
    """How a table row is laid out and what is added to its positions (a family-free value).

    ``order``: one of :data:`ORDERS`; ``shift``: an integer added to every position (exactly,
    |x + shift| ≤ 2^53); ``negated``: True when every angle is the negative of x·W_k (the sine
    columns are negated, the cosines kept).
    """

    order: str = "interleaved"
    shift: int = 0
    negated: bool = False

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}; got {self.order!r}")

    def sin_columns(self, width: int) -> NDArray[np.intp]:
        """Column index of the sine of angle k for k = 0 .. width/2 − 1, shape (width/2,)."""
        half = width // 2
        k = np.arange(half, dtype=np.intp)
        if self.order == "interleaved":
            return 2 * k
        if self.order == "sin_cos_halves":
            return k
        return k + half

    def cos_columns(self, width: int) -> NDArray[np.intp]:
        """Column index of the cosine of angle k for k = 0 .. width/2 − 1, shape (width/2,)."""
        half = width // 2
        k = np.arange(half, dtype=np.intp)
        if self.order == "interleaved":
            return 2 * k + 1
        if self.order == "sin_cos_halves":
            return k + half
        return k


SIN_COS_HALVES: Final = TableLayout("sin_cos_halves")
"""The sines of every angle, then their cosines; no shift, no negation."""


def fine_factors(pieces: F64) -> Factors:
    """The read-only factors of the fine offsets q = 0 .. GRID − 1 for ``pieces``."""
    fine = Factors(np.arange(GRID, dtype=np.float64), pieces, anchor=False)
    for name in Factors.NAMES:
        getattr(fine, name).setflags(write=False)
    return fine


# ---------------------------------------------------------------------------
# block rotation: integer positions x = A + q, A = GRID·floor(x/GRID), 0 <= q < GRID


def rotate(
    anchor: Factors,
    a_index: Any,
    fine: Factors,
    f_index: Any,
    sin_out: F64,
    cos_out: F64,
    scratch: tuple[C128, F64, F64],
) -> None:
    """sin_out, cos_out ← sin and cos of A + F for broadcast-compatible selections.

    sin(A+F) = [s1·c1' + c1·s1'] + [(s1·c2' + c1·s2') + (s2·C' + c2·S')] and
    cos(A+F) = [c1·c1' − s1·s1'] + [(c1·c2' − s1·s2') + (c2·C' − s2·S')], where 1 = head,
    2 = tail, C', S' = full heads of the fine factor. The bracketed head products are exact
    (24 + 24 bits), so the complex multiply rounds each part once whatever its internal
    order; every other step is a plain IEEE operation in a fixed order, so each element is
    a function of (A, F) alone, bit for bit, whatever the array shapes.
    """
    big, acc, tmp = scratch
    np.multiply(anchor.head[a_index], fine.head[f_index], out=big)
    a1, c1, a2, c2 = (getattr(anchor, n)[a_index] for n in ("h_re", "h_im", "t_re", "t_im"))
    b2, d2, bh, dh = (getattr(fine, n)[f_index] for n in ("t_re", "t_im", "f_re", "f_im"))
    _signed_products(
        acc, tmp, [(a1, b2, np.add), (c1, d2, np.add), (a2, bh, np.add), (c2, dh, np.add)]
    )
    np.add(big.real, acc, out=sin_out)
    _signed_products(
        acc, tmp, [(c1, b2, np.add), (a1, d2, np.subtract), (c2, bh, np.add), (a2, dh, np.subtract)]
    )
    np.add(big.imag, acc, out=cos_out)


def _signed_products(acc: F64, tmp: F64, terms: list[tuple[F64, F64, np.ufunc]]) -> None:
    """acc ← ((x₀·y₀ ± x₁·y₁) ± x₂·y₂) ± …, left to right (the first sign is +)."""
    first, *rest = terms
    np.multiply(first[0], first[1], out=acc)
    for x, y, combine in rest:
        np.multiply(x, y, out=tmp)
        combine(acc, tmp, out=acc)


def sin_cos_views(out: F64, layout: TableLayout) -> tuple[F64, F64]:
    """The sin and cos column views of ``out`` (..., d); strided for the interleaved layout."""
    half = out.shape[-1] // 2
    if layout.order == "interleaved":
        return out[..., 0::2], out[..., 1::2]
    if layout.order == "sin_cos_halves":
        return out[..., :half], out[..., half:]
    return out[..., half:], out[..., :half]


def layout_code(layout: TableLayout) -> int:
    """The kernels' layout code: 0 interleaved, 1 sin|cos halves, 2 cos|sin halves."""
    return {"interleaved": 0, "sin_cos_halves": 1}.get(layout.order, 2)


def _scratch(shape: tuple[int, ...]) -> tuple[C128, F64, F64]:
    return np.empty(shape, dtype=np.complex128), np.empty(shape), np.empty(shape)


def negate_sine(out: F64, layout: TableLayout, rows: NDArray[np.bool_] | None = None) -> None:
    """Negate the sine columns of ``out`` (n, d) in place, of all rows or where ``rows``."""
    if rows is None:
        sin_view = sin_cos_views(out, layout)[0]
        np.negative(sin_view, out=sin_view)
        return
    index = np.ix_(np.flatnonzero(rows), layout.sin_columns(out.shape[-1]))
    out[index] = -out[index]


class Rotator:
    """Encodes integer positions x (|x| ≤ 2^53) by the block rotation; value depends on x only.

    The rotation runs on |x| with the absolute pieces |W_k| (non-negative angles, so no
    anchor is negative); the sine is negated where c·x < 0 (``flip`` says whether c < 0).
    """

    def __init__(
        self, pieces: F64, layout: TableLayout, shared_fine: Callable[[], Factors] | None = None
    ) -> None:
        self.pieces = pieces
        self.flip = layout.negated
        self.layout = layout
        self.half = self.pieces.shape[0]
        self._fine: Factors | None = None
        self._shared_fine = shared_fine
        # work in tiles of about TILE_ELEMENTS elements: g anchors × GRID offsets × kt columns
        self.kt = max(1, min(self.half, TILE_ELEMENTS // GRID))
        self.group = max(1, TILE_ELEMENTS // (GRID * self.kt))

    @property
    def fine(self) -> Factors:
        """Factors of the fine offsets q = 0 .. GRID−1 (from ``shared_fine``, a cache the
        caller keeps per configuration, when they are small)."""
        if self._fine is None:
            small = GRID * self.half * _FACTOR_BYTES <= _FINE_CACHE_BYTES
            if small and self._shared_fine is not None:
                self._fine = self._shared_fine()
            else:
                self._fine = fine_factors(self.pieces)
        return self._fine

    def freeze_fine(self) -> None:
        """Build the fine factors now, whatever their size, and make them read-only."""
        self._fine = fine_factors(self.pieces)

    def _anchors(self, first: float, count: int) -> Factors:
        return Factors(first + GRID * np.arange(count, dtype=np.float64), self.pieces, anchor=True)

    def fill_range(self, out: F64, x0: int) -> None:
        """out (n, d) ← rows for the positions x0, x0 + 1, …, x0 + n − 1."""
        n = out.shape[0]
        if x0 < 0:  # the negative part is its positive mirror, reversed, sine negated
            negative = min(n, -x0)
            self._fill_mirrored(out[:negative], x0)
            if negative < n:
                self.fill_range(out[negative:], 0)
            return
        self._fill_range(out, x0)
        if self.flip:  # c < 0: every angle but that of x = 0 is negative
            negate_sine(out[1:] if x0 == 0 else out, self.layout)

    def _fill_mirrored(self, out: F64, x0: int) -> None:
        """out (m, d) ← rows for x0 … x0 + m − 1 < 0, from tiles of |x| (≤ 2 MiB each)."""
        m, d = out.shape
        rows = max(GRID, (1 << 18) // d // GRID * GRID)
        for r0 in range(0, m, rows):
            r1 = min(m, r0 + rows)
            tile = np.empty((r1 - r0, d), dtype=np.float64)
            self._fill_range(tile, -(x0 + r1 - 1))  # |x| for rows r1 − 1 … r0
            out[r0:r1] = tile[::-1]
        if not self.flip:
            negate_sine(out, self.layout)

    def _fill_range(self, out: F64, x0: int) -> None:
        """fill_range for x0 ≥ 0 at the angles |c|·x·ω (no sign applied)."""
        n = out.shape[0]
        if n < GRID:  # fewer rows than fine offsets: evaluate only the offsets used
            self._fill_gather(out, np.arange(x0, x0 + n, dtype=np.int64))
            return
        first_block = x0 // GRID
        n_blocks = (x0 + n - 1) // GRID - first_block + 1
        batch = max(1, CHUNK_ELEMENTS // self.half)
        for b0 in range(0, n_blocks, batch):
            b1 = min(n_blocks, b0 + batch)
            anchors = self._anchors(float((first_block + b0) * GRID), b1 - b0)
            if kernels.enabled():
                r0 = max(0, (first_block + b0) * GRID - x0)
                r1 = min(n, (first_block + b1) * GRID - x0)
                x = np.arange(x0 + r0, x0 + r1, dtype=np.int64)
                kernels.rotate_gather(
                    x // GRID - (first_block + b0),
                    x % GRID,
                    anchors.stack(),
                    self.fine.stack(),
                    out[r0:r1],
                    layout_code(self.layout),
                )
                continue
            b = b0
            while b < b1:
                start = (first_block + b) * GRID - x0  # row of q = 0 (may be < 0)
                r0, r1 = max(0, start), min(n, start + GRID)
                if r1 - r0 < GRID:  # partial first or last block
                    self._block(out[r0:r1], anchors, b - b0, r0 - start)
                    b += 1
                    continue
                full = min(self.group, b1 - b, (n - r0) // GRID)  # consecutive full blocks
                rows = out[r0 : r0 + full * GRID].reshape(full, GRID, out.shape[1])
                self._group(rows, anchors, b - b0)
                b += full

    def _block(self, rows: F64, anchors: Factors, j: int, q0: int) -> None:
        """One partial block: rows (m, d) with offsets q0 .. q0 + m − 1 from anchor j."""
        m = rows.shape[0]
        sin_out, cos_out = sin_cos_views(rows, self.layout)
        scratch = _scratch((m, self.kt))
        for k0 in range(0, self.half, self.kt):
            cols = slice(k0, min(self.half, k0 + self.kt))
            width = cols.stop - cols.start
            rotate(
                anchors,
                (slice(j, j + 1), cols),
                self.fine,
                (slice(q0, q0 + m), cols),
                sin_out[:, cols],
                cos_out[:, cols],
                tuple(s[:, :width] for s in scratch),  # type: ignore[arg-type]
            )

    def _group(self, rows: F64, anchors: Factors, j: int) -> None:
        """Full blocks: rows (g, GRID, d) for anchors j .. j + g − 1."""
        g = rows.shape[0]
        sin_out, cos_out = sin_cos_views(rows, self.layout)
        scratch = _scratch((g, GRID, self.kt))
        for k0 in range(0, self.half, self.kt):
            cols = slice(k0, min(self.half, k0 + self.kt))
            width = cols.stop - cols.start
            rotate(
                anchors,
                (slice(j, j + g), None, cols),
                self.fine,
                (None, slice(None), cols),
                sin_out[..., cols],
                cos_out[..., cols],
                tuple(s[..., :width] for s in scratch),  # type: ignore[arg-type]
            )

    def fill_gather(self, out: F64, x: NDArray[np.int64]) -> None:
        """out (n, d) ← rows for arbitrary integer positions x (n,)."""
        negative = x < 0
        self._fill_gather(out, np.abs(x))
        if self.flip:
            negative = ~negative & (x != 0)
        if np.any(negative):
            negate_sine(out, self.layout, negative)

    def _fill_gather(self, out: F64, x: NDArray[np.int64]) -> None:
        """fill_gather for x ≥ 0 at the angles |c|·x·ω (no sign applied)."""
        if kernels.enabled():
            rows = max(1, _KERNEL_ANCHOR_ELEMENTS // self.half)
            for start in range(0, x.shape[0], rows):
                block = x[start : start + rows]
                q = block % GRID
                anchors, a_index = np.unique(block - q, return_inverse=True)
                anchor = Factors(anchors.astype(np.float64), self.pieces, anchor=True)
                kernels.rotate_gather(
                    a_index.reshape(-1),
                    q,
                    anchor.stack(),
                    self.fine.stack(),
                    out[start : start + rows],
                    layout_code(self.layout),
                )
            return
        for start, stop in row_chunks(x.shape[0], self.half):
            block = x[start:stop]
            q = block % GRID
            anchors, a_index = np.unique(block - q, return_inverse=True)
            anchor = Factors(anchors.astype(np.float64), self.pieces, anchor=True)
            a_index = a_index.reshape(-1)  # a slice when 0, 1, …, m − 1: no gather
            in_order = np.array_equal(a_index, np.arange(a_index.shape[0]))
            sin_out, cos_out = sin_cos_views(out[start:stop], self.layout)
            rotate(
                anchor,
                slice(None) if in_order else a_index,
                *self._fine_rows(q),
                sin_out,
                cos_out,
                _scratch(sin_out.shape),
            )

    def _fine_rows(self, q: NDArray[np.int64]) -> tuple[Factors, Any]:
        """(factors, index): the fine factors of the offsets q (m,), row i at index[i] (the same
        values whether from the configuration's cached factors or evaluated for the offsets
        present)."""
        cached = GRID * self.half * _FACTOR_BYTES <= _FINE_CACHE_BYTES and bool(self._shared_fine)
        if self._fine is None and not cached:
            offsets, q_index = np.unique(q, return_inverse=True)
            if offsets.shape[0] < GRID:
                fine = Factors(offsets.astype(np.float64), self.pieces, anchor=False)
                return fine, q_index.reshape(-1)
        return self.fine, q.astype(np.intp)


def _is_unit_range(p: NDArray[Any]) -> bool:
    """True for a 1-D int array p_0, p_0 + 1, …, p_0 + n − 1."""
    if p.ndim != 1 or p.dtype.kind not in "iu" or p.shape[0] < 2:
        return False
    return bool(int(p[-1]) - int(p[0]) == p.shape[0] - 1 and np.all(np.diff(p) == 1))


def fill_positions(out: F64, p: NDArray[Any], rotator: Rotator) -> None:
    """out (n, d) ← encoding of the flat positions p (n,), int64 or float64.

    Integer values (ints, and floats with integral values) go through the block rotation,
    other floats through the exact path, so every element depends on its position only.
    The caller checks the domain: |p + shift| ≤ 2^53, |angle| ≤ 2^40 for the proved bound.
    """
    pieces, offset = rotator.pieces, rotator.layout.shift
    if p.dtype.kind in "iu":
        if _is_unit_range(p):
            rotator.fill_range(out, int(p[0]) + offset)
        else:
            rotator.fill_gather(out, p.astype(np.int64) + offset)
        return
    integral = p == np.rint(p)
    if np.any(integral):
        rows = np.flatnonzero(integral)
        values = p[rows].astype(np.int64)
        block = np.empty((rows.shape[0], out.shape[1]))
        rotator.fill_gather(block, values + offset)
        out[rows] = block
    fractional = ~integral
    if not np.any(fractional):
        return
    # |θ| = |c|·|p + o|·ω: rows with p + o < 0 are evaluated at −p − o (−p exact, the offset
    # reduced as −o) and their sine negated, like rows with p + o > 0 when c < 0.
    negative = p < -offset  # exact: |o| ≤ 2^53
    for mirrored in (False, True):
        rows = np.flatnonzero(fractional & (negative if mirrored else ~negative))
        if rows.size == 0:
            continue
        extra: tuple[F64, F64] | None = None
        if offset:
            hi, lo = turns(np.array([float(-offset if mirrored else offset)]), pieces)
            extra = (hi[0], lo[0])
        x = -p[rows] if mirrored else p[rows]
        sign = -1.0 if mirrored != rotator.flip else 1.0
        _fill_exact(out, rows, x, extra, sign, rotator)


def _fill_exact(
    out: F64,
    rows: NDArray[np.intp],
    x: F64,
    extra: tuple[F64, F64] | None,
    sign: float,
    rotator: Rotator,
) -> None:
    """out[rows] ← rows by the exact path at x + o > 0 (turns of o in ``extra``), sine × sign."""
    pieces, layout = rotator.pieces, rotator.layout
    if kernels.enabled():
        _fill_exact_kernels(out, rows, x, extra, sign, rotator)
        return
    sin_cols = layout.sin_columns(out.shape[1])
    cos_cols = layout.cos_columns(out.shape[1])
    far = x > faithful_limit(pieces)  # |angle| beyond the fractional path's proof: exact path
    if np.any(far):
        for start, stop in row_chunks(int(np.count_nonzero(far)), pieces.shape[0]):
            s_hi, s_lo, c_hi, c_lo = sincos_turns(*turns(x[far][start:stop], pieces, extra))
            target = rows[far][start:stop, None]
            out[target, sin_cols] = sign * (s_hi + s_lo)
            out[target, cos_cols] = c_hi + c_lo
        rows, x = rows[~far], x[~far]
    step = max(1, FAITHFUL_CHUNK_ELEMENTS // pieces.shape[0])
    for start in range(0, rows.shape[0], step):
        stop = min(rows.shape[0], start + step)
        first, last = int(rows[start]), int(rows[stop - 1])
        if last - first == stop - start - 1:  # consecutive rows (increasing): in place
            views = sin_cos_views(out[first : last + 1], layout)
            sincos_faithful(x[start:stop], pieces, extra, views)  # SPEC Annex C.8
            if sign != 1.0:
                np.negative(views[0], out=views[0])
            continue
        sin, cos = sincos_faithful(x[start:stop], pieces, extra)
        target = rows[start:stop, None]
        out[target, sin_cols] = sin if sign == 1.0 else -sin
        out[target, cos_cols] = cos


def _fill_exact_kernels(
    out: F64,
    rows: NDArray[np.intp],
    x: F64,
    extra: tuple[F64, F64] | None,
    sign: float,
    rotator: Rotator,
) -> None:
    """:func:`_fill_exact` by the compiled kernels, in blocks of rows (written in place when
    the block's rows are consecutive, else through one block-sized buffer)."""
    step = max(1, _KERNEL_ANCHOR_ELEMENTS // rotator.half)
    for start in range(0, rows.shape[0], step):
        block = rows[start : start + step]
        first, last = int(block[0]), int(block[-1])
        consecutive = block.shape[0] == last - first + 1  # rows are increasing
        buffer = out[first : last + 1] if consecutive else np.empty((block.shape[0], out.shape[1]))
        layout = layout_code(rotator.layout)
        kernels.fill_exact(
            x[start : start + step],
            rotator.pieces,
            extra,
            sign,
            buffer,
            layout,
            faithful_limit(rotator.pieces),
        )
        if not consecutive:
            out[block] = buffer
