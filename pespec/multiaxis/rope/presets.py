"""Published multi-axis rotary configurations and the positions their models build (§9.7).

Qwen-VL presets are read from copies of published ``config.json`` files
(``pespec/rope/published``, PROVENANCE.md): θ = ``rope_theta``, D = ``head_dim`` (else
hidden_size / num_attention_heads), ``mrope_section`` from ``rope_scaling`` or
``rope_parameters`` (top level or ``text_config``), interleaved for ``mrope_interleaved`` or
model_type ``qwen3_vl`` (transformers 5.24's Qwen3-VL rotary interleaves whatever the flag).
Flux.1 is diffusers 0.42.1's ``FluxTransformer2DModel`` default: ``FluxPosEmbed(theta=10000,
axes_dim=(16, 56, 56))``. Wan 2.1, HunyuanVideo and CogVideoX-5b are diffusers 0.42.1's class
defaults (:mod:`pespec.multiaxis.rope.video`), checked on their pipelines' default latent patch
grids
(``grid`` ids: (t, h, w) indices from 0, no text token rotated). EVA-02-B's 2-D rotary is
``eva02-b`` (``grid2d`` ids: (h, w)). ``qwen2.5-vl-vision`` is Qwen2.5-VL's vision encoder,
read from the published config.json's ``vision_config`` (``qwen-vision`` ids: (h, w) per
patch in the encoder's token order).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numpy.typing import NDArray

from pespec.multiaxis.combinator import resolve_preset
from pespec.multiaxis.rope.config import MultiAxisRopeConfig, mrope, per_axis_rotary
from pespec.multiaxis.rope.diffusers_config import from_diffusers_config
from pespec.multiaxis.rope.positions import (
    flux_positions,
    qwen_vision_positions,
    qwen_vl_positions,
    vision_grid,
)
from pespec.multiaxis.rope.video import cogvideox_axes_dim, video_rotary, wan_axes_dim

__all__ = ["PRESETS", "Preset", "from_hf_config", "resolve_config"]

PUBLISHED = Path(__file__).resolve().parents[2] / "rope" / "published"
IDS = ("qwen-vl", "flux", "grid", "grid2d", "qwen-vision")
AXES2 = ("grid2d", "qwen-vision")
"""The ids rules of (h, w) positions (2 axes)."""


@dataclass(frozen=True)
class Preset:
    """A configuration, the positions checked (``ids`` rule, text tokens before and after,
    the (T, H, W) vision grid) and where the facts are from."""

    name: str
    config: MultiAxisRopeConfig
    ids: str
    grid: tuple[int, int, int]
    text_before: int
    text_after: int
    source: str

    def positions(self) -> NDArray[Any]:
        """The (n, 3) position ids (:mod:`pespec.multiaxis.rope.positions`)."""
        if self.ids == "flux":
            return flux_positions(self.grid[1], self.grid[2], text=self.text_before)
        if self.ids == "grid":
            return vision_grid(self.grid)
        if self.ids == "grid2d":
            return vision_grid(self.grid)[:, 1:]
        if self.ids == "qwen-vision":
            return qwen_vision_positions(self.grid[1], self.grid[2], *QWEN_VISION_ORDER)
        return qwen_vl_positions(self.text_before, self.grid, self.text_after)

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "ids": self.ids,
            "grid": list(self.grid),
            "text_before": self.text_before,
            "text_after": self.text_after,
            "source": self.source,
        }


def _rotary_fields(data: Mapping[str, Any]) -> Mapping[str, Any]:
    text = data.get("text_config")
    return text if isinstance(text, Mapping) else data


def from_hf_config(data: Mapping[str, Any], name: str = "config.json") -> MultiAxisRopeConfig:
    """The M-RoPE of a Qwen-VL ``config.json`` (ValueError naming a missing field)."""
    text = _rotary_fields(data)
    scaling = text.get("rope_parameters") or text.get("rope_scaling") or {}
    section = scaling.get("mrope_section")
    if section is None:
        raise ValueError(f"{name}: no mrope_section in rope_scaling or rope_parameters")
    theta = scaling.get("rope_theta", text.get("rope_theta"))
    if theta is None:
        raise ValueError(f"{name}: no rope_theta")
    head_dim = text.get("head_dim")
    if head_dim is None:
        if "hidden_size" not in text or "num_attention_heads" not in text:
            raise ValueError(f"{name}: no head_dim, nor hidden_size and num_attention_heads")
        head_dim = int(text["hidden_size"]) // int(text["num_attention_heads"])
    interleaved = bool(scaling.get("mrope_interleaved")) or data.get("model_type") == "qwen3_vl"
    return mrope(head_dim, float(theta), section, interleaved=interleaved, name=name)


def _published(file: str) -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads((PUBLISHED / file).read_text(encoding="utf-8"))
    return data


VIDEO = (16, 32, 32)
"""The video grid of the presets: 16 frames (temporal patches) of 32 × 32 merged patches."""


def _qwen(name: str, file: str, source: str) -> Preset:
    config = from_hf_config(_published(file), name=name)
    return Preset(name, config, "qwen-vl", VIDEO, 16, 16, source)


VIDEO_PRESETS = (
    Preset(
        "wan2.1",
        video_rotary(wan_axes_dim(128), 10000.0, "wan2.1"),
        "grid",
        (21, 30, 52),
        0,
        0,
        "diffusers 0.42.1 transformer_wan.py WanTransformer3DModel defaults (attention_head_dim "
        "128, patch_size (1, 2, 2), rope_max_seq_len 1024) → WanRotaryPosEmbed(θ 10000): t, h, "
        "w dims 44, 42, 42, adjacent pairs; 81 frames at 480 × 832 → 21 × 30 × 52 patches",
    ),
    Preset(
        "hunyuanvideo",
        video_rotary((16, 56, 56), 256.0, "hunyuanvideo"),
        "grid",
        (33, 45, 80),
        0,
        0,
        "diffusers 0.42.1 transformer_hunyuan_video.py HunyuanVideoTransformer3DModel defaults "
        "(attention_head_dim 128, rope_axes_dim (16, 56, 56), rope_theta 256, patch 1 × 2 × 2) "
        "→ HunyuanVideoRotaryPosEmbed; 129 frames at 720 × 1280 → 33 × 45 × 80 patches",
    ),
    Preset(
        "cogvideox-5b",
        video_rotary(cogvideox_axes_dim(64), 10000.0, "cogvideox-5b"),
        "grid",
        (13, 30, 45),
        0,
        0,
        "diffusers 0.42.1 embeddings.py get_3d_rotary_pos_embed (θ 10000, linspace grid) with "
        "CogVideoXTransformer3DModel's attention_head_dim 64: t, h, w dims 16, 24, 24, adjacent "
        "pairs; 49 frames at 480 × 720 → 13 × 30 × 45 (crop (0, 0)–(30, 45): integer grid)",
    ),
)
"""Video-diffusion rotaries (diffusers class defaults, :mod:`pespec.multiaxis.rope.video`)."""

EVA02 = Preset(
    "eva02-b",
    per_axis_rotary((32, 32), 10000.0, name="eva02-b"),
    "grid2d",
    (1, 16, 16),
    0,
    0,
    "baaivision/EVA EVA-02/asuka rope.py VisionRotaryEmbeddingFast(dim=half_head_dim, "
    "pt_seq_len=16) in modeling_finetune.py: EVA-02-B/14 (768 / 12 heads = 64, half 32 per "
    "axis), θ 10000, first half h, second w, adjacent pairs (rotate_half '(d r)'); 224² → "
    "16 × 16 patches at t = i·pt/ft = i; the cls token is not rotated",
)
"""EVA-02's 2-D rotary (``grid2d`` ids: (h, w) patch indices)."""


def _vision_facts() -> tuple[int, int, int]:
    """Qwen2.5-VL-7B's vision_config (published copy): head_dim = hidden_size / num_heads,
    spatial_merge_size, and the window in merged patches (window_size // merge // patch)."""
    vision = _published("qwen2.5-vl-7b-instruct.json")["vision_config"]
    merge = int(vision["spatial_merge_size"])
    window = int(vision["window_size"]) // merge // int(vision["patch_size"])
    return int(vision["hidden_size"]) // int(vision["num_heads"]), merge, window


_VISION_HEAD, _VISION_MERGE, _VISION_WINDOW = _vision_facts()
QWEN_VISION_ORDER = (_VISION_MERGE, _VISION_WINDOW)
"""(merge, window) of the ``qwen-vision`` ids: 2 × 2 merge blocks, windows of 4 × 4 blocks."""

QWEN25_VISION = Preset(
    "qwen2.5-vl-vision",
    per_axis_rotary(
        (_VISION_HEAD // 2, _VISION_HEAD // 2), 10000.0, pairing="halves", name="qwen2.5-vl-vision"
    ),
    "qwen-vision",
    (1, 70, 70),
    0,
    0,
    "Qwen/Qwen2.5-VL-7B-Instruct config.json vision_config (published copy): D = 1280/16 = "
    "80; transformers 5.24 Qwen2_5_VLVisionRotaryEmbedding (axial, θ default 10000): "
    "inv_freq over D/2 = 40 (20 frequencies), h then w, cat twice, rotate_half (halves "
    "over the whole head); a 980² image (the largest square within the image processor's "
    "default max_pixels 28·28·1280) at patch 14 → 70 × 70 patches, 2 × 2 merge blocks, "
    "windows of 112/2/14 = 4 merged patches (get_vision_window_index order; 35 = 8·4 + 3: "
    "edge windows cut short)",
)
"""Qwen2.5-VL's vision encoder rotary (2-D, ``qwen-vision`` ids); the same layout as Qwen2-VL's
(transformers' ``Qwen2VLVisionRotaryEmbedding``, embed_dim 1280, 16 heads)."""

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        _qwen(
            "qwen2.5-vl-7b",
            "qwen2.5-vl-7b-instruct.json",
            "Qwen/Qwen2.5-VL-7B-Instruct config.json (published copy): D = 3584/28 = 128, "
            "θ 1e6, mrope_section [16, 24, 24] sectioned; the M-RoPE of Qwen2-VL",
        ),
        _qwen(
            "qwen3-vl-4b",
            "qwen3-vl-4b-instruct.json",
            "Qwen/Qwen3-VL-4B-Instruct config.json (published copy): D 128, θ 5e6, "
            "mrope_section [24, 20, 20] interleaved",
        ),
        Preset(
            "flux.1",
            per_axis_rotary((16, 56, 56), 10000.0, name="flux.1"),
            "flux",
            (1, 64, 64),
            512,
            0,
            "diffusers 0.42.1 FluxTransformer2DModel: FluxPosEmbed(theta=10000, axes_dim=(16, "
            "56, 56)), adjacent pairs; 512 text ids (0, 0, 0) and a 64 × 64 latent grid",
        ),
        *VIDEO_PRESETS,
        EVA02,
        QWEN25_VISION,
    )
}
"""The presets by name."""


def _from_file(data: Mapping[str, Any], name: str) -> Preset:
    """A bare config.json: a diffusers transformer's (``_class_name``; the ids of the preset
    of its class) or a Qwen-VL one (the video grid)."""
    if "_class_name" in data:
        config, like = from_diffusers_config(data, name)
        ids = PRESETS[like]
        return Preset(name, config, ids.ids, ids.grid, ids.text_before, ids.text_after, name)
    config = from_hf_config(data)
    return Preset(config.name, config, "qwen-vl", VIDEO, 16, 16, "a config.json")


def _from_mapping(data: Mapping[str, Any], name: str = "config.json") -> Preset:
    """A preset from ``{"config": <to_dict() or a config.json>, "ids", "grid",
    "text_before", "text_after"}`` or a bare config.json (:func:`_from_file`)."""
    if "config" not in data:
        return _from_file(data, name)
    allowed = {"config", "ids", "grid", "text_before", "text_after", "source"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ValueError(
            f"a multiaxis-rope JSON config has the keys {sorted(allowed)}; unknown {unknown}"
        )
    raw = data["config"]
    if isinstance(raw, Mapping) and "_class_name" in raw:
        config = from_diffusers_config(raw, name)[0]
    elif isinstance(raw, Mapping) and "sections" not in raw:
        config = from_hf_config(raw)
    else:
        config = MultiAxisRopeConfig.from_dict(raw)
    ids = data.get("ids", "qwen-vl")
    if ids not in IDS:
        raise ValueError(f"ids must be one of {IDS}; got {ids!r}")
    grid = tuple(data.get("grid", VIDEO))
    if len(grid) != 3:
        raise ValueError(f"grid must be a list (T, H, W); got {data.get('grid')!r}")
    result = Preset(
        config.name,
        config,
        ids,
        grid,  # type: ignore[arg-type]
        int(data.get("text_before", 0)),
        int(data.get("text_after", 0)),
        str(data.get("source", "a JSON file")),
    )
    axes = 2 if ids in AXES2 else 3
    if config.axes != axes:
        raise ValueError(f"the position ids have {axes} axes; the config has {config.axes}")
    result.positions()  # validates the grid now, naming the bad value
    return result


def resolve_config(value: Any) -> Preset:
    """A preset name, a :class:`Preset`, a dict (see :func:`_from_mapping`) or a .json path
    (:func:`pespec.multiaxis.combinator.resolve_preset`)."""
    return resolve_preset(value, Preset, PRESETS, _from_mapping)
