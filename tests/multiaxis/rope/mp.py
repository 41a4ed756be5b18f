"""An independent mpmath transcription of the published multi-axis rotary formulas (400 bits).

Written from the sources, not from pespec:

* transformers 5.24 Qwen2-VL / Qwen2.5-VL: ``inv_freq[j] = θ^(−2j/D)``; cos/sin of
  ``position_ids[a]·inv_freq`` per axis a = t, h, w; ``freq.split(mrope_section)`` and chunk i
  taken from axis i mod 3; ``cat((freq, freq))``; ``q·cos + rotate_half(q)·sin``: pair j is
  (q_j, q_{j+D/2}) → (q_j c − q_{j+D/2} s, q_{j+D/2} c + q_j s).
* Qwen3-VL: the same, but ``freqs_t[..., offset:3·section[a]:3] = freqs[a]`` for h (offset 1)
  and w (offset 2) over t.
* diffusers 0.42.1 ``FluxPosEmbed``: axis i has ``dim = axes_dim[i]``, ω_j = θ^(−2j/dim),
  cos/sin ``repeat_interleave(2)``, concatenated over axes; ``apply_rotary_emb`` with
  ``use_real_unbind_dim=-1``: pairs (x_{2j}, x_{2j+1}) →
  (x_{2j} c − x_{2j+1} s, x_{2j+1} c + x_{2j} s).

Each output is the exact value rounded once to float64.
"""

from __future__ import annotations

from collections.abc import Sequence

import mpmath

PREC = 400


def qwen_axis(j: int, section: Sequence[int], interleaved: bool) -> int:
    """The axis (0 t, 1 h, 2 w) whose position feeds frequency j."""
    if interleaved:
        for axis, offset in ((1, 1), (2, 2)):
            if j % 3 == offset and j < 3 * section[axis]:
                return axis
        return 0
    edge = 0
    for i, size in enumerate(section):
        edge += size
        if j < edge:
            return i % 3
    raise ValueError(j)


def _rotate(a: float, b: float, angle: mpmath.mpf) -> tuple[float, float]:
    c, s = mpmath.cos(angle), mpmath.sin(angle)
    return float(mpmath.mpf(a) * c - mpmath.mpf(b) * s), float(
        mpmath.mpf(b) * c + mpmath.mpf(a) * s
    )


def qwen_row(
    x: Sequence[float], pos: Sequence[int], theta: float, section: Sequence[int], interleaved: bool
) -> list[float]:
    """One rotated row of a Qwen-VL M-RoPE head (D = len(x)) at position (t, h, w)."""
    d = len(x)
    out = [0.0] * d
    with mpmath.workprec(PREC):
        for j in range(d // 2):
            omega = mpmath.power(mpmath.mpf(theta), -mpmath.mpf(2 * j) / d)
            angle = mpmath.mpf(int(pos[qwen_axis(j, section, interleaved)])) * omega
            out[j], out[j + d // 2] = _rotate(x[j], x[j + d // 2], angle)
    return out


def flux_row(
    x: Sequence[float], pos: Sequence[int], theta: float, axes_dim: Sequence[int]
) -> list[float]:
    """One rotated row of Flux's multi-axis rotary (adjacent pairs) at position ``pos``."""
    out = [0.0] * len(x)
    start = 0
    with mpmath.workprec(PREC):
        for axis, dim in enumerate(axes_dim):
            for j in range(dim // 2):
                omega = mpmath.power(mpmath.mpf(theta), -mpmath.mpf(2 * j) / dim)
                angle = mpmath.mpf(int(pos[axis])) * omega
                k = start + 2 * j
                out[k], out[k + 1] = _rotate(x[k], x[k + 1], angle)
            start += dim
    return out


def vision_row(x: Sequence[float], pos: Sequence[int], theta: float) -> list[float]:
    """One rotated row of the Qwen2-VL / Qwen2.5-VL vision rotary (transformers 5.24
    ``Qwen2_5_VLVisionRotaryEmbedding``): D = len(x), ``inv_freq[j] = θ^(−2j/(D/2))`` for
    j < D/4; angles ``cat(h·inv_freq, w·inv_freq)`` (D/2 of them), ``cat`` twice and
    ``rotate_half``: angle k turns the pair (x_k, x_{k+D/2})."""
    d = len(x)
    out = [0.0] * d
    with mpmath.workprec(PREC):
        for k in range(d // 2):
            j, axis = k % (d // 4), k // (d // 4)
            omega = mpmath.power(mpmath.mpf(theta), -mpmath.mpf(2 * j) / (d // 2))
            angle = mpmath.mpf(int(pos[axis])) * omega
            out[k], out[k + d // 2] = _rotate(x[k], x[k + d // 2], angle)
    return out
