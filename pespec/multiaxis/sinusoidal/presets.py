"""Published 2-D sin-cos configurations, with their grids and sources (SPEC §9.3).

Each preset is a :class:`MultiAxisConfig` (positions (h, w): axis 0 is h, axis 1 is w;
(t, h, w) for video) and
the grid its model builds (:func:`pespec.multiaxis.sinusoidal.grid.grid_positions`). diffusers'
``get_2d_sincos_pos_embed`` (0.42.1, ``models/embeddings.py``) and MAE's
``util/pos_embed.py`` both build ``meshgrid(grid_w, grid_h)`` and feed ``grid[0]``, the *w*
coordinate, to the first half of the columns: D/2 columns [sin | cos] of w, then D/2 of h,
each the 1-D encoding of d = D/2 with ω_k = 10000^(−k/(D/4)) (canonical frequencies of d,
layout ``sin_cos_halves``). A transcription with h first is a different configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from numpy.typing import NDArray

from pespec.multiaxis.combinator import resolve_preset
from pespec.multiaxis.sinusoidal.config import Arrangement, MultiAxisConfig, Section
from pespec.multiaxis.sinusoidal.grid import grid_positions
from pespec.sinusoidal.reference.conventions import Convention

__all__ = ["PRESETS", "Preset", "preset", "resolve_config", "sincos_2d"]


def sincos_2d(
    embed_dim: int,
    *,
    w_first: bool = True,
    name: str = "custom",
    arrangement: Arrangement = "sectioned",
    frequency_shift: int = 0,
) -> MultiAxisConfig:
    """The 2-D sin-cos at width ``embed_dim``: two sections of D/2, each [sin | cos] with
    ω_k = 10000^(−k/(D/4 − s)) (s = ``frequency_shift``: 0 for diffusers, MAE and timm, 1 for
    big_vision), the w coordinate's first (``w_first``) in ``arrangement``."""
    if isinstance(embed_dim, bool) or not isinstance(embed_dim, int) or embed_dim % 4:
        raise ValueError(f"embed_dim must be an int divisible by 4; got {embed_dim!r}")
    first, second = (1, 0) if w_first else (0, 1)
    half = embed_dim // 2
    layout = Convention(layout="sin_cos_halves", frequency_shift=frequency_shift, name="halves")
    sections = (Section(first, half, convention=layout), Section(second, half, convention=layout))
    return MultiAxisConfig(sections, axes=2, arrangement=arrangement, name=name)


@dataclass(frozen=True)
class Preset:
    """A published configuration, the grid its model builds, and where the facts are from."""

    name: str
    config: MultiAxisConfig
    sizes: tuple[int, ...]
    base_size: float | None
    interpolation_scale: float | tuple[float, ...]
    source: str
    leading_rows: int = 0
    """Rows the model's own table has before the grid's, not encodings (MAE's cls token: one
    row of zeros); :func:`~pespec.multiaxis.sinusoidal.adapters.grid_table_backend` skips them when
    asked. Not part of the configuration (:meth:`to_dict`)."""

    def positions(self) -> NDArray[Any]:
        """The grid's positions (n, k), last axis fastest (the model's row order)."""
        return grid_positions(
            self.sizes, base_size=self.base_size, interpolation_scale=self.interpolation_scale
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "grid": list(self.sizes),
            "base_size": self.base_size,
            "interpolation_scale": (
                list(self.interpolation_scale)
                if isinstance(self.interpolation_scale, tuple)
                else self.interpolation_scale
            ),
            "source": self.source,
        }


def _diffusers(name: str, dim: int, grid: int, base: int, scale: float, source: str) -> Preset:
    return Preset(name, sincos_2d(dim, name=name), (grid, grid), base, scale, source)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _diffusers(
            "sd3-medium",
            1536,
            192,
            64,
            1.0,
            "stabilityai/stable-diffusion-3-medium-diffusers transformer/config.json "
            "(sample_size 128, patch_size 2, 24 heads × 64, pos_embed_max_size 192) → "
            "diffusers PatchEmbed: base_size = 128 // 2 = 64, grid 192: positions i/3; "
            "a 1024² image uses the centre 64×64 crop (PatchEmbed.cropped_pos_embed)",
        ),
        _diffusers(
            "pixart-alpha-1024",
            1152,
            64,
            64,
            2.0,
            "PixArt-alpha/PixArt-XL-2-1024-MS transformer/config.json (sample_size 128, "
            "patch_size 2, 16 heads × 72) → PixArtTransformer2DModel: interpolation_scale = "
            "max(128 // 64, 1) = 2, base_size 64, grid 64: positions i/2",
        ),
        _diffusers(
            "dit-xl-2-256",
            1152,
            16,
            16,
            1.0,
            "facebook/DiT-XL-2-256 transformer/config.json (sample_size 32, patch_size 2, "
            "16 heads × 72) → DiTTransformer2DModel PatchEmbed: grid 16 = base_size, "
            "positions 0..15",
        ),
        Preset(
            "mae-vit-b-16",
            sincos_2d(768, name="mae-vit-b-16"),
            (14, 14),
            None,
            1.0,
            "facebookresearch/mae util/pos_embed.py get_2d_sincos_pos_embed(768, 14, "
            "cls_token=True) for ViT-B/16 at 224²: positions 0..13; its first row (the cls "
            "token's zeros) is no encoding and is not part of the preset",
            leading_rows=1,
        ),
        Preset(
            "timm-sincos2d-768",
            sincos_2d(768, w_first=False, arrangement="grouped", name="timm-sincos2d-768"),
            (14, 14),
            None,
            1.0,
            "timm layers/pos_embed_sincos.py build_sincos2d_pos_embed([14, 14], dim=768) with "
            "its defaults (temperature 10000, reverse_coord=False, interleave_sin_cos=False): "
            "bands 1/10000^(k/(D/4)), ndgrid (h, w), [sin h | sin w | cos h | cos w]; float32 "
            "throughout; the 14×14 grid of a ViT-B/16 at 224²",
        ),
        Preset(
            "big-vision-vit-s16",
            sincos_2d(384, frequency_shift=1, name="big-vision-vit-s16"),
            (14, 14),
            None,
            1.0,
            "google-research/big_vision models/vit.py posemb_sincos_2d(14, 14, 384) (posemb "
            "'sincos2d' of the ViT-S/16 i1k config): omega = arange(D/4)/(D/4 − 1), "
            "1/10000^omega, [sin x | cos x | sin y | cos y] (x = w first): s = 1",
        ),
        Preset(
            "cogvideox-2b",
            MultiAxisConfig(
                (Section(0, 480), Section(2, 720), Section(1, 720)), axes=3, name="cogvideox-2b"
            ),
            (13, 30, 45),
            None,
            (1.0, 1.875, 1.875),
            "THUDM/CogVideoX-2b transformer/config.json (30 heads × 64 = 1920, patch_size 2, "
            "sample 60×90, 49 frames, temporal_compression_ratio 4, spatial/temporal "
            "interpolation scale 1.875/1.0) → CogVideoXPatchEmbed: get_3d_sincos_pos_embed("
            "1920, (45, 30), 13, 1.875, 1.0): columns [t: D/4 | w: 3D/8 | h: 3D/8], rows t, "
            "h, w (w fastest), h and w at i/1.875",
        ),
    )
}
"""The presets by name (SPEC §9.3)."""


def preset(name: str) -> Preset:
    """The preset called ``name``; ValueError naming the known ones and the closest."""
    if name in PRESETS:
        return PRESETS[name]
    from pespec._suggest import did_you_mean

    raise ValueError(
        f"config must be one of {list(PRESETS)} or a JSON file; got {name!r}"
        f"{did_you_mean(name, PRESETS)}"
    )


def _from_mapping(data: dict[str, Any]) -> Preset:
    """A preset from a JSON object ``{"config": {...}, "grid": [H, W], "base_size": b,
    "interpolation_scale": s}`` (a bare config has no grid: refused, naming the keys)."""
    if "config" not in data or "grid" not in data:
        raise ValueError(
            "a multiaxis JSON config must have the keys config and grid (and optionally "
            f"base_size, interpolation_scale, source); got {sorted(data)}"
        )
    unknown = sorted(set(data) - {"config", "grid", "base_size", "interpolation_scale", "source"})
    if unknown:
        raise ValueError(f"a multiaxis JSON config has unknown keys {unknown}")
    config = MultiAxisConfig.from_dict(data["config"])
    sizes = tuple(data["grid"]) if isinstance(data["grid"], list) else data["grid"]
    if not isinstance(sizes, tuple) or len(sizes) != config.axes:
        raise ValueError(f"grid must be a list of {config.axes} sizes; got {data['grid']!r}")
    scale = data.get("interpolation_scale", 1.0)
    result = Preset(
        config.name,
        config,
        sizes,
        data.get("base_size"),
        tuple(scale) if isinstance(scale, list) else scale,
        str(data.get("source", "a JSON file")),
    )
    result.positions()  # validates the grid now, naming the bad value
    return result


def resolve_config(value: Any) -> Preset:
    """A preset name, a :class:`Preset`, a dict (see :func:`_from_mapping`) or the path of
    a JSON file of that dict (:func:`pespec.multiaxis.combinator.resolve_preset`)."""
    return resolve_preset(value, Preset, PRESETS, lambda data, _name: _from_mapping(dict(data)))
