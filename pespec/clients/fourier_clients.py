"""Fourier-feature clients (issue 43; SPEC §10): diffusers' Gaussian Fourier projections and
timm's Fourier grid, as ``backend(x, config) -> (n, D)`` of the ``fourier`` family.

* ``gaussian_fourier``: diffusers ``GaussianFourierProjection`` (and the Stable Audio copy)
  built as the library builds it (``log`` as the client declares: the convention's
  ``input_log``), its random weight replaced by the convention's given B (the check is given B);
  x is sent as the float32 noise level the models pass.
* ``unet_time_proj``: the ``time_proj`` of a diffusers UNet built with
  ``time_embedding_type="fourier"`` and the client's ``flip_sin_to_cos`` (the real model's
  constructor decides what reaches GaussianFourierProjection), B set likewise.
* ``timm_fourier``: timm ``build_fourier_pos_embed(feat_shape, in_pixels=False)`` (or, for
  linear "pixel" bands, ``in_pixels=True, grid_type="index"``) for the integer grid of the
  convention's domain; each input row is a grid index (h, w), answered
  from the returned [pos_sin, pos_cos], each (H, W, 2, bands) flattened to its last two axes.
  timm's package ``__init__`` imports torchvision; where it is not installed the module file
  ``timm/layers/pos_embed_sincos.py`` is loaded by itself from the installed timm (with its
  sibling modules ``_fx``, ``grid``, ``trace_utils``), under a private package name.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

from pespec.clients.model import Client

__all__ = [
    "gaussian_fourier",
    "nerfstudio_nerf",
    "timm_fourier",
    "timm_sincos_module",
    "unet_time_proj",
]


def _conv(client: Client, config: Any, in_dims: int) -> Any:
    from pespec.fourier.presets import convention_from

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a fourier preset or JSON file)")
    conv = convention_from(config)
    if conv.in_dims != in_dims:
        raise ValueError(
            f"client {client.name} takes {in_dims}-D inputs; got in_dims={conv.in_dims}"
        )
    return conv


def _set_weight(module: Any, conv: Any) -> None:
    """Replace the module's random weight by the convention's B (one column)."""
    torch = importlib.import_module("torch")
    if conv.law != "matrix" or len(conv.matrix) != module.weight.shape[0]:
        raise ValueError(
            f"the projection holds {module.weight.shape[0]} weights; the convention must give "
            f"B as {module.weight.shape[0]} rows (law matrix)"
        )
    with torch.no_grad():
        module.weight.copy_(torch.tensor([row[0] for row in conv.matrix], dtype=torch.float32))


def _projection_backend(module: Any, dtype: str) -> Any:
    torch = importlib.import_module("torch")

    def backend(x: Any, config: Any) -> Any:
        t = torch.tensor(np.asarray(x)[:, 0], dtype=getattr(torch, dtype))
        with torch.no_grad():
            return module(t).numpy()

    return backend


def gaussian_fourier(client: Client, dtype: str, config: Any) -> Any:
    """``GaussianFourierProjection`` (``options``: ``module`` the dotted class, ``flip``,
    ``log``)."""
    conv = _conv(client, config, 1)
    path, _, name = str(client.options["module"]).rpartition(".")
    cls = getattr(importlib.import_module(path), name)
    log, flip = bool(client.options.get("log", False)), bool(client.options["flip"])
    module = cls(embedding_size=len(conv.matrix), log=log, flip_sin_to_cos=flip)
    _set_weight(module, conv)
    return _projection_backend(module, dtype)


def unet_time_proj(client: Client, dtype: str, config: Any) -> Any:
    """The ``time_proj`` of a small diffusers UNet (``options``: ``model`` the dotted class,
    ``flip``), whose first block width is the convention's number of angles."""
    conv = _conv(client, config, 1)
    path, _, name = str(client.options["model"]).rpartition(".")
    cls = getattr(importlib.import_module(path), name)
    width = len(conv.matrix)
    model = cls(**_unet_arguments(name, width, bool(client.options["flip"])))
    module = model.time_proj
    _set_weight(module, conv)
    return _projection_backend(module, dtype)


def _unet_arguments(name: str, width: int, flip: bool) -> dict[str, Any]:
    """The smallest UNet of class ``name`` with a Fourier time embedding of ``width`` angles."""
    common: dict[str, Any] = {"time_embedding_type": "fourier", "flip_sin_to_cos": flip}
    if name == "UNet2DModel":
        blocks = ("DownBlock2D", "DownBlock2D")
        up = ("UpBlock2D", "UpBlock2D")
        return {**common, "sample_size": 8, "block_out_channels": (width, width),
                "down_block_types": blocks, "up_block_types": up, "layers_per_block": 1,
                "norm_num_groups": 4}  # fmt: skip
    if name == "UNet2DConditionModel":
        return {**common, "sample_size": 8, "block_out_channels": (width, width),
                "down_block_types": ("DownBlock2D", "CrossAttnDownBlock2D"),
                "up_block_types": ("CrossAttnUpBlock2D", "UpBlock2D"), "layers_per_block": 1,
                "cross_attention_dim": 8, "norm_num_groups": 4,
                "time_embedding_dim": 2 * width}  # fmt: skip
    raise ValueError(f"no UNet arguments for {name!r}")


def timm_sincos_module() -> Any:
    """timm's ``layers/pos_embed_sincos.py``: through the package when it imports, else the
    module file by itself (see the module docstring)."""
    try:
        return importlib.import_module("timm.layers.pos_embed_sincos")
    except ImportError:
        pass
    spec = importlib.util.find_spec("timm")
    if spec is None or spec.origin is None:
        raise ImportError("timm is not installed")
    layers = Path(spec.origin).parent / "layers"
    root, package = "pespec_timm_file", "pespec_timm_file.layers"
    if package + ".pos_embed_sincos" in sys.modules:
        return sys.modules[package + ".pos_embed_sincos"]
    for name, path in ((root, layers.parent), (package, layers)):
        module = types.ModuleType(name)
        module.__path__ = [str(path)]
        sys.modules.setdefault(name, module)
    return importlib.import_module(package + ".pos_embed_sincos")


def timm_fourier(client: Client, dtype: str, config: Any) -> Any:
    """``build_fourier_pos_embed`` on the integer grid of the convention's domain."""
    torch = importlib.import_module("torch")
    conv = _conv(client, config, 2)
    low, high = conv.domain
    if not conv.integer_inputs or low != 0.0 or high != int(high):
        raise ValueError(f"client {client.name} answers on integer grids 0..N; got {conv.domain}")
    side = int(high) + 1
    kwargs: dict[str, Any] = {"num_bands": conv.bands, "in_pixels": False}
    if conv.law == "linear":  # pixel bands (in_pixels=True) on the index grid (grid_type)
        kwargs.update(in_pixels=True, grid_type="index", linear_bands=True)
        kwargs.update(max_res=int(2 * conv.linear_stop))
    else:
        kwargs.update(temperature=conv.base)
    sin, cos = timm_sincos_module().build_fourier_pos_embed([side, side], **kwargs)
    table = torch.cat([sin.flatten(-2), cos.flatten(-2)], dim=-1).reshape(side * side, -1)
    table = table.to(getattr(torch, dtype)).numpy()

    def backend(x: Any, config: Any) -> Any:
        index = np.asarray(x)
        if np.any(index != np.round(index)) or np.any(index < 0) or np.any(index >= side):
            raise ValueError(f"timm's grid answers integer (h, w) in 0..{side - 1}")
        rows = index[:, 0].astype(np.int64) * side + index[:, 1].astype(np.int64)
        return table[rows]

    return backend


def nerfstudio_nerf(client: Client, dtype: str, config: Any) -> Any:
    """nerfstudio ``NeRFEncoding`` (torch path) built from the convention's band law: 2^e for
    e = linspace(min_freq_exp, max_freq_exp, bands) (law geometric with base 2, or base2),
    ``include_input`` when the raw input is appended; x sent as float32, as the fields do."""
    torch = importlib.import_module("torch")
    encodings = importlib.import_module("nerfstudio.field_components.encodings")
    from pespec.fourier.presets import convention_from

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a fourier preset or JSON file)")
    conv = convention_from(config)
    if conv.law not in ("base2", "geometric") or conv.base != 2.0 or conv.raw == "first":
        raise ValueError(
            f"client {client.name} computes 2^linspace bands with the input appended or not; "
            f"got law {conv.law}, base {conv.base}, raw {conv.raw}"
        )
    low, high = conv.frequency(0)[1], conv.frequency(conv.bands - 1)[1]  # ω_j = 2^e_j
    module = encodings.NeRFEncoding(
        in_dim=conv.in_dims, num_frequencies=conv.bands, min_freq_exp=float(low),
        max_freq_exp=float(high), include_input=conv.raw == "last", implementation="torch",
    )  # fmt: skip

    def backend(x: Any, config: Any) -> Any:
        with torch.no_grad():
            out = module(torch.tensor(np.asarray(x), dtype=getattr(torch, dtype)))
        return out.numpy()

    return backend
