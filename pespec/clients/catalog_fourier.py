"""The Fourier-feature clients of timm and nerfstudio (issue 43; SPEC §10), one declaration
each, read by :mod:`pespec.clients.catalog` (diffusers' are in
:mod:`pespec.clients.diffusers_clients`). Configurations are fourier presets (``pespec check
--family fourier --config NAME``); the adapters are in :mod:`pespec.clients.fourier_clients`.
"""

from __future__ import annotations

from pespec.clients.model import Client

__all__ = ["FOURIER_CLIENTS"]

_ADAPTERS = "pespec.clients.fourier_clients"

FOURIER_CLIENTS = (
    Client(
        name="timm:build_fourier_pos_embed",
        family="fourier",
        library="timm",
        requires=("torch",),
        entry="timm.layers.pos_embed_sincos.build_fourier_pos_embed",
        source="huggingface/pytorch-image-models timm/layers/pos_embed_sincos.py",
        adapter=f"{_ADAPTERS}:timm_fourier",
        configs=("timm-fourier", "timm-fourier-linear"),
        note="the module file alone where torchvision is missing",
    ),
    Client(
        name="nerfstudio:NeRFEncoding",
        family="fourier",
        library="nerfstudio",
        requires=("torch", "jaxtyping"),
        entry="nerfstudio.field_components.encodings.NeRFEncoding(implementation='torch')",
        source="nerfstudio-project/nerfstudio nerfstudio/field_components/encodings.py",
        adapter=f"{_ADAPTERS}:nerfstudio_nerf",
        configs=("nerfstudio-nerf",),
        note="the torch path (the tiny-cuda-nn path needs CUDA)",
    ),
)
"""timm's and nerfstudio's Fourier clients, in table order."""
