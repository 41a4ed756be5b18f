"""Multi-axis rotaries read from a diffusers transformer ``config.json`` (SPEC Annex K.1).

The class is chosen by ``_class_name``; a key the file leaves out takes the class's default
(diffusers 0.42.1, as ``from_config`` does). What each class builds:

* ``FluxTransformer2DModel``: ``FluxPosEmbed(theta=10000, axes_dim=axes_dims_rope)`` (θ fixed
  in the code; default (16, 56, 56)), adjacent pairs; the dims sum to ``attention_head_dim``.
* ``WanTransformer3DModel``: ``WanRotaryPosEmbed(attention_head_dim, patch_size,
  rope_max_seq_len)``, θ 10000: h = w = 2·⌊D/6⌋, t = D − h − w (:func:`~pespec.multiaxis.rope.video.
  wan_axes_dim`); ``rope_max_seq_len`` bounds the coordinates only.
* ``HunyuanVideoTransformer3DModel``: ``rope_axes_dim`` (16, 56, 56), ``rope_theta`` 256.
* ``CogVideoXTransformer3DModel`` with ``use_rotary_positional_embeddings`` true (its default
  is false: no rotary): ``get_3d_rotary_pos_embed(attention_head_dim)``, θ 10000, dims ⌊D/4⌋,
  3⌊D/8⌋, 3⌊D/8⌋ (:func:`~pespec.multiaxis.rope.video.cogvideox_axes_dim`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pespec.multiaxis.rope.config import MultiAxisRopeConfig, per_axis_rotary
from pespec.multiaxis.rope.video import cogvideox_axes_dim, video_rotary, wan_axes_dim

__all__ = ["DIFFUSERS_CLASSES", "from_diffusers_config"]


def _dims(name: str, value: Any) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) or not value:
        raise ValueError(f"{name} must be a list of ints; got {value!r}")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
        raise ValueError(f"{name} must be a list of positive ints; got {value!r}")
    return tuple(value)


def _head(data: Mapping[str, Any], default: int) -> int:
    value = data.get("attention_head_dim", default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        raise ValueError(f"attention_head_dim must be an int >= 2; got {value!r}")
    return value


def _summing(name: str, dims: tuple[int, ...], head: int) -> tuple[int, ...]:
    if sum(dims) != head:
        raise ValueError(
            f"{name} {list(dims)} must sum to attention_head_dim = {head}; got {sum(dims)}"
        )
    return dims


def _flux(data: Mapping[str, Any], name: str) -> MultiAxisRopeConfig:
    axes = _dims("axes_dims_rope", data.get("axes_dims_rope", (16, 56, 56)))
    axes = _summing("axes_dims_rope", axes, _head(data, 128))
    return per_axis_rotary(axes, 10000.0, name=name)


def _wan(data: Mapping[str, Any], name: str) -> MultiAxisRopeConfig:
    return video_rotary(wan_axes_dim(_head(data, 128)), 10000.0, name)


def _hunyuan(data: Mapping[str, Any], name: str) -> MultiAxisRopeConfig:
    axes = _dims("rope_axes_dim", data.get("rope_axes_dim", (16, 56, 56)))
    if len(axes) != 3:
        raise ValueError(f"rope_axes_dim must have 3 entries (t, h, w); got {list(axes)}")
    theta = data.get("rope_theta", 256.0)
    if isinstance(theta, bool) or not isinstance(theta, (int, float)) or theta <= 1:
        raise ValueError(f"rope_theta must be a number > 1; got {theta!r}")
    axes = _summing("rope_axes_dim", axes, _head(data, 128))
    return video_rotary(axes, float(theta), name)  # type: ignore[arg-type]


def _cogvideox(data: Mapping[str, Any], name: str) -> MultiAxisRopeConfig:
    if data.get("use_rotary_positional_embeddings", False) is not True:
        raise ValueError(
            f"{name}: CogVideoXTransformer3DModel with use_rotary_positional_embeddings "
            f"{data.get('use_rotary_positional_embeddings', False)!r} has no rotary (its "
            "positions are sin-cos: family multiaxis); only true is read here"
        )
    return video_rotary(cogvideox_axes_dim(_head(data, 64)), 10000.0, name)


DIFFUSERS_CLASSES: dict[str, tuple[Callable[[Mapping[str, Any], str], MultiAxisRopeConfig], str]]
DIFFUSERS_CLASSES = {
    "FluxTransformer2DModel": (_flux, "flux.1"),
    "WanTransformer3DModel": (_wan, "wan2.1"),
    "HunyuanVideoTransformer3DModel": (_hunyuan, "hunyuanvideo"),
    "CogVideoXTransformer3DModel": (_cogvideox, "cogvideox-5b"),
}
"""``_class_name`` → (its reader, the preset whose position ids it is checked at)."""


def from_diffusers_config(
    data: Mapping[str, Any], name: str = "config.json"
) -> tuple[MultiAxisRopeConfig, str]:
    """(the rotary, the preset whose ids to use) of a diffusers transformer config.json;
    ValueError naming ``_class_name`` and the classes read when it is another."""
    class_name = data.get("_class_name")
    if class_name not in DIFFUSERS_CLASSES:
        raise ValueError(
            f"{name}: _class_name {class_name!r} is not a diffusers transformer whose rotary "
            f"pespec reads; allowed: {sorted(DIFFUSERS_CLASSES)}"
        )
    reader, preset = DIFFUSERS_CLASSES[class_name]
    return reader(data, name), preset
