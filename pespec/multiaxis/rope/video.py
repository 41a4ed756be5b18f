"""Video-diffusion rotary layouts: the t/h/w head splits of Wan, HunyuanVideo, CogVideoX (§9.7).

All three are per-axis rotaries (:func:`~pespec.multiaxis.rope.config.per_axis_rotary`): axis t, h,
w
each a rotary of its own head_dim, θ, adjacent pairs, concatenated t, h, w. Only the split
of ``attention_head_dim`` = D differs (diffusers 0.42.1):

* Wan 2.1 (``WanRotaryPosEmbed.__init__``): h = w = 2·⌊D/6⌋, t = D − h − w; D 128 → 44, 42, 42.
  ``forward`` splits the table by the same ``t_dim, h_dim, w_dim``. ChronoEdit's copy
  (``transformer_chronoedit.py``) splits it in ``forward`` by [D − 2⌊D/3⌋, ⌊D/3⌋, ⌊D/3⌋]
  instead: the same for D ≡ 0, 2 (mod 6) (D 128), not for D ≡ 4 (mod 6) (D 64: a table built
  as 24, 20, 20 read as 22, 21, 21), :func:`wan_forward_split`.
* HunyuanVideo (``HunyuanVideoTransformer3DModel``): ``rope_axes_dim`` (16, 56, 56), θ 256.
* CogVideoX (``get_3d_rotary_pos_embed``): t = ⌊D/4⌋, h = w = ⌊D/8⌋·3; D 64 → 16, 24, 24.
"""

from __future__ import annotations

from pespec.multiaxis.rope.config import MultiAxisRopeConfig, per_axis_rotary

__all__ = ["cogvideox_axes_dim", "video_rotary", "wan_axes_dim", "wan_forward_split"]


def _head(head_dim: int, divisor: int) -> int:
    if isinstance(head_dim, bool) or not isinstance(head_dim, int) or head_dim < divisor:
        raise ValueError(f"attention_head_dim must be an int >= {divisor}; got {head_dim!r}")
    return head_dim


def wan_axes_dim(head_dim: int) -> tuple[int, int, int]:
    """Wan's (t, h, w) rotary dims: h = w = 2·⌊D/6⌋, t = D − h − w."""
    d = _head(head_dim, 6)
    hw = 2 * (d // 6)
    return d - 2 * hw, hw, hw


def wan_forward_split(head_dim: int) -> tuple[int, int, int]:
    """ChronoEdit's ``forward`` split of the same table: [D − 2⌊D/3⌋, ⌊D/3⌋, ⌊D/3⌋]."""
    d = _head(head_dim, 6)
    return d - 2 * (d // 3), d // 3, d // 3


def cogvideox_axes_dim(head_dim: int) -> tuple[int, int, int]:
    """CogVideoX's (t, h, w) rotary dims: ⌊D/4⌋, ⌊D/8⌋·3, ⌊D/8⌋·3 (sum D when 8 | D)."""
    d = _head(head_dim, 8)
    return d // 4, d // 8 * 3, d // 8 * 3


def video_rotary(axes_dim: tuple[int, int, int], theta: float, name: str) -> MultiAxisRopeConfig:
    """The per-axis rotary over (t, h, w) with adjacent pairs (every odd dim refused)."""
    odd = [d for d in axes_dim if d % 2]
    if odd:
        raise ValueError(f"every axis dim must be even; got axes_dim {list(axes_dim)}")
    return per_axis_rotary(axes_dim, theta, pairing="interleaved", name=name)
