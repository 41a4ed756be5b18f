"""The Fourier-feature clients (issue 43; SPEC §10), one declaration each, read by
:mod:`pespec.clients.catalog`. Configurations are fourier presets (``pespec check --family
fourier --config NAME``); the adapters are in :mod:`pespec.clients.fourier_clients`.

The UNets are declared with their ``flip_sin_to_cos`` (default True) and judged against
the convention that flag documents ("Whether to flip sin to cos for Fourier time
embedding", diffusers ``UNet2DModel``'s docstring): cos|sin, of log σ for ``UNet2DModel``
(its GaussianFourierProjection keeps log=True), of σ for ``UNet2DConditionModel``
(log=False).
"""

from __future__ import annotations

from pespec.clients.model import Client

__all__ = ["FOURIER_CLIENTS"]

_DIFFUSERS = "huggingface/diffusers src/diffusers/models"
_ADAPTERS = "pespec.clients.fourier_clients"
_GFP = "diffusers.models.embeddings.GaussianFourierProjection"
_AUDIO = (
    "diffusers.models.transformers.stable_audio_transformer.StableAudioGaussianFourierProjection"
)


def _unet(name: str, path: str, config: str) -> Client:
    return Client(
        name=f"diffusers:{name}.time_proj",
        family="fourier",
        library="diffusers",
        requires=("torch",),
        entry=f"diffusers.models.unets.{path}.{name}(time_embedding_type='fourier').time_proj",
        source=f"{_DIFFUSERS}/unets/{path}.py",
        adapter=f"{_ADAPTERS}:unet_time_proj",
        configs=(config,),
        options={"model": f"diffusers.models.unets.{path}.{name}", "flip": True},
        note="flip_sin_to_cos=True (the default); B given",
    )


_GAUSSIAN_ROWS: tuple[tuple[str, str, str, str, str, dict[str, bool], str], ...] = (
    # name, module, entry, source file (in models/), config, options beyond module, note
    (
        "GaussianFourierProjection-log",
        _GFP,
        f"{_GFP}() (log=True, its default)",
        "embeddings.py",
        "diffusers-gaussian-fourier-log",
        {"flip": False, "log": True},
        "B given",
    ),
    (
        "GaussianFourierProjection",
        _GFP,
        _GFP,
        "embeddings.py",
        "diffusers-gaussian-fourier",
        {"flip": False},
        "log=False; B given",
    ),
    (
        "GaussianFourierProjection-flip",
        _GFP,
        f"{_GFP}(flip_sin_to_cos=True)",
        "embeddings.py",
        "diffusers-gaussian-fourier-flip",
        {"flip": True},
        "log=False; B given",
    ),
    (
        "StableAudioGaussianFourierProjection",
        _AUDIO,
        _AUDIO,
        "transformers/stable_audio_transformer.py",
        "diffusers-gaussian-fourier",
        {"flip": False},
        "log=False; B given",
    ),
)
"""diffusers' Gaussian Fourier projections: one row each, read by :data:`FOURIER_CLIENTS`."""


FOURIER_CLIENTS = (
    *(
        Client(
            name=f"diffusers:{name}",
            family="fourier",
            library="diffusers",
            requires=("torch",),
            entry=entry,
            source=f"{_DIFFUSERS}/{path}",
            adapter=f"{_ADAPTERS}:gaussian_fourier",
            configs=(config,),
            options={"module": module, **options},
            note=note,
        )
        for name, module, entry, path, config, options, note in _GAUSSIAN_ROWS
    ),
    _unet("UNet2DModel", "unet_2d", "diffusers-gaussian-fourier-log-flip"),
    _unet("UNet2DConditionModel", "unet_2d_condition", "diffusers-gaussian-fourier-flip"),
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
"""The Fourier clients, in table order."""
