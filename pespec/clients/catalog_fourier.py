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


FOURIER_CLIENTS = (
    Client(
        name="diffusers:GaussianFourierProjection-log",
        family="fourier",
        library="diffusers",
        requires=("torch",),
        entry=f"{_GFP}() (log=True, its default)",
        source=f"{_DIFFUSERS}/embeddings.py",
        adapter=f"{_ADAPTERS}:gaussian_fourier",
        configs=("diffusers-gaussian-fourier-log",),
        options={"module": _GFP, "flip": False, "log": True},
        note="B given",
    ),
    Client(
        name="diffusers:GaussianFourierProjection",
        family="fourier",
        library="diffusers",
        requires=("torch",),
        entry=_GFP,
        source=f"{_DIFFUSERS}/embeddings.py",
        adapter=f"{_ADAPTERS}:gaussian_fourier",
        configs=("diffusers-gaussian-fourier",),
        options={"module": _GFP, "flip": False},
        note="log=False; B given",
    ),
    Client(
        name="diffusers:GaussianFourierProjection-flip",
        family="fourier",
        library="diffusers",
        requires=("torch",),
        entry=f"{_GFP}(flip_sin_to_cos=True)",
        source=f"{_DIFFUSERS}/embeddings.py",
        adapter=f"{_ADAPTERS}:gaussian_fourier",
        configs=("diffusers-gaussian-fourier-flip",),
        options={"module": _GFP, "flip": True},
        note="log=False; B given",
    ),
    Client(
        name="diffusers:StableAudioGaussianFourierProjection",
        family="fourier",
        library="diffusers",
        requires=("torch",),
        entry=_AUDIO,
        source=f"{_DIFFUSERS}/transformers/stable_audio_transformer.py",
        adapter=f"{_ADAPTERS}:gaussian_fourier",
        configs=("diffusers-gaussian-fourier",),
        options={"module": _AUDIO, "flip": False},
        note="log=False; B given",
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
