"""diffusers' 2-D/3-D sin-cos tables as multi-axis clients (issue 29; SPEC §9).

``get_2d_sincos_pos_embed(D, grid, base_size=b, interpolation_scale=s)`` (SD3, PixArt-α,
DiT) and ``get_3d_sincos_pos_embed(D, (W, H), T, s_hw, s_t)`` (CogVideoX) take no positions:
they return the whole grid's table, which :func:`grid_table_backend` answers from. The
parameters are read from the ``--config`` preset (its ``d_model``, grid, ``base_size`` and
``interpolation_scale``). dtype ``float64`` is the functions' own output (float32 grid
coordinates, float64 after); ``float32`` is that table cast to float32, as the models keep
it (``PatchEmbed``'s ``pos_embed.float()``, CogVideoX's float32 buffer).
"""

from __future__ import annotations

import importlib
from typing import Any

from pespec.clients.model import Client

__all__ = ["sincos_2d", "sincos_3d"]


def _preset(client: Client, config: Any, axes: int) -> Any:
    from pespec.multiaxis.sinusoidal.presets import resolve_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a multiaxis preset or a JSON file)")
    chosen = resolve_config(config)
    if len(chosen.sizes) != axes:
        raise ValueError(
            f"client {client.name} builds {axes}-axis grids; --config {config!r} has "
            f"{len(chosen.sizes)} axes"
        )
    return chosen


def _cast(table: Any, dtype: str) -> Any:
    """The table as the model keeps it: float64 as returned, or cast to ``dtype``."""
    if dtype == "float64":
        return table
    torch = importlib.import_module("torch")
    return table.to(getattr(torch, dtype))


def sincos_2d(client: Client, dtype: str, config: Any) -> Any:
    """The multi-axis backend of ``get_2d_sincos_pos_embed`` on the (H, W) grid of ``config``
    (a preset name, a JSON file or its dict, as :func:`resolve_config` takes)."""
    from pespec.multiaxis.sinusoidal.adapters import grid_table_backend

    chosen = _preset(client, config, 2)
    if chosen.base_size is None or isinstance(chosen.interpolation_scale, tuple):
        raise ValueError(
            f"client {client.name} scales the grid by base_size and one interpolation_scale; "
            f"--config {config!r} has base_size {chosen.base_size}, interpolation_scale "
            f"{chosen.interpolation_scale}"
        )
    embeddings = importlib.import_module("diffusers.models.embeddings")
    h, w = chosen.sizes

    def table() -> Any:
        out = embeddings.get_2d_sincos_pos_embed(
            chosen.config.d_model,
            h if h == w else (h, w),
            base_size=chosen.base_size,
            interpolation_scale=chosen.interpolation_scale,
            output_type="pt",
        )
        return _cast(out, dtype)

    return grid_table_backend(table, config, name=client.name)


def sincos_3d(client: Client, dtype: str, config: Any) -> Any:
    """The multi-axis backend of ``get_3d_sincos_pos_embed`` on the preset's (T, H, W) grid
    (rows t-major, then h, then w: the table's (T, H·W, D) flattened, as CogVideoX does)."""
    from pespec.multiaxis.sinusoidal.adapters import grid_table_backend

    chosen = _preset(client, config, 3)
    scale = chosen.interpolation_scale
    t_scale, h_scale, w_scale = scale if isinstance(scale, tuple) else (scale,) * 3
    if chosen.base_size is not None or h_scale != w_scale:
        raise ValueError(
            f"client {client.name} scales h and w by one spatial scale, without base_size; "
            f"--config {config!r} has base_size {chosen.base_size}, interpolation_scale {scale}"
        )
    embeddings = importlib.import_module("diffusers.models.embeddings")
    t, h, w = chosen.sizes

    def table() -> Any:
        out = embeddings.get_3d_sincos_pos_embed(
            chosen.config.d_model, (w, h), t, h_scale, t_scale
        ).flatten(0, 1)
        return _cast(out, dtype)

    return grid_table_backend(table, config, name=client.name)
