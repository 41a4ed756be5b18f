"""Every diffusers client (issue 29; issue 38 step 5: one client module per library), one
declaration each, read by :mod:`pespec.clients.catalog` in table order. The adapters run the
library's code by kind of call and stay in their modules (they import NumPy and the families,
this module neither): timestep tables :mod:`pespec.clients.sinusoidal_libraries`, the 1-D
rotary :mod:`pespec.clients.diffusers_rotary`, the 2-D/3-D sin-cos tables
:mod:`pespec.clients.multiaxis_clients`, the multi-axis rotaries
:mod:`pespec.clients.mrope_clients`, the Fourier projections
:mod:`pespec.clients.fourier_clients`.

Configurations are rotary, multi-axis (SPEC §9, §9.7) or fourier (SPEC §10) presets. The
sin-cos functions return float64 tables (``float64``: as returned) that the models keep as
float32 (``float32``: cast so); the multi-axis rotaries run in float32, as the models run them.
The UNets are declared with their ``flip_sin_to_cos`` (default True) and judged against the
convention that flag documents ("Whether to flip sin to cos for Fourier time embedding",
diffusers ``UNet2DModel``'s docstring): cos|sin, of log σ for ``UNet2DModel`` (its
GaussianFourierProjection keeps log=True), of σ for ``UNet2DConditionModel`` (log=False).
"""

from __future__ import annotations

from pespec.clients.model import Client

__all__ = ["FOURIER", "MULTIAXIS_ROTARY", "ROTARY", "SINCOS", "SINUSOIDS"]

_DIFFUSERS = "huggingface/diffusers src/diffusers/models"
_EMBEDDINGS = "huggingface/diffusers src/diffusers/models/embeddings.py"
_MROPE = "pespec.clients.mrope_clients:build"
_GFP = "diffusers.models.embeddings.GaussianFourierProjection"
_AUDIO = (
    "diffusers.models.transformers.stable_audio_transformer.StableAudioGaussianFourierProjection"
)


def _timesteps(name: str, entry: str, dtypes: tuple[str, ...] = ("float32",)) -> Client:
    return Client(
        name=f"diffusers:{name}",
        family="sinusoidal",
        library="diffusers",
        requires=("torch",),
        entry=entry,
        source=_EMBEDDINGS,
        adapter="pespec.clients.sinusoidal_libraries:build",
        configs=("declared",),
        dtypes=dtypes,
    )


SINUSOIDS = (
    _timesteps("get_timestep_embedding", "diffusers.models.embeddings.get_timestep_embedding"),
    _timesteps("unet-timesteps", "diffusers.models.embeddings.Timesteps (UNet2DConditionModel)"),
    _timesteps("sd3-timesteps", "diffusers.models.embeddings.Timesteps (SD3, PixArt)"),
    _timesteps(
        "flux-timesteps",
        "diffusers.models.embeddings.Timesteps (FluxTransformer2DModel)",
        dtypes=("float32", "bfloat16"),
    ),
)
"""The timestep tables (sinusoidal family)."""


def _rotary(
    name: str, entry: str, configs: tuple[str, ...], dtypes: tuple[str, ...], **options: object
) -> Client:
    return Client(
        name=f"diffusers:{name}",
        family="rope",
        library="diffusers",
        requires=("torch",),
        entry=entry,
        source=_EMBEDDINGS,
        adapter="pespec.clients.diffusers_rotary:build",
        configs=configs,
        dtypes=dtypes,
        options=options,
    )


ROTARY = (
    _rotary(
        "get_1d_rotary_pos_embed",
        "diffusers.models.embeddings.get_1d_rotary_pos_embed + apply_rotary_emb",
        ("Llama-2-7B", "GPT-J-6B", "Gemma-3-4B global layers"),
        ("float32", "bfloat16"),
    ),
    _rotary(  # ntk_factor (issue 36): θ·F, judged as ``default`` with θ·F (SPEC Annex F.7)
        "get_1d_rotary_pos_embed-ntk-factor",
        "diffusers.models.embeddings.get_1d_rotary_pos_embed(ntk_factor=4) + apply_rotary_emb",
        ("diffusers-1d-64-theta-10000-ntk-factor-4",),
        ("float32",),
        ntk_factor=4.0,
    ),
)
"""diffusers' 1-D rotary functions (real cos/sin, both pairings)."""


SINCOS = (
    Client(
        name="diffusers:get_2d_sincos_pos_embed",
        family="multiaxis",
        library="diffusers",
        requires=("torch",),
        entry="diffusers.models.embeddings.get_2d_sincos_pos_embed",
        source=_EMBEDDINGS,
        adapter="pespec.clients.multiaxis_clients:sincos_2d",
        configs=("dit-xl-2-256", "pixart-alpha-1024", "sd3-medium"),
        dtypes=("float64", "float32"),
        note="float32: the table as PatchEmbed keeps it (pos_embed.float())",
    ),
    Client(
        name="diffusers:get_3d_sincos_pos_embed",
        family="multiaxis",
        library="diffusers",
        requires=("torch",),
        entry="diffusers.models.embeddings.get_3d_sincos_pos_embed (CogVideoXPatchEmbed)",
        source=_EMBEDDINGS,
        adapter="pespec.clients.multiaxis_clients:sincos_3d",
        configs=("cogvideox-2b",),
        dtypes=("float64", "float32"),
        note="float32: the table as CogVideoXPatchEmbed keeps it (a float32 buffer)",
    ),
)

"""The 2-D and 3-D sin-cos tables (family ``multiaxis``)."""


def _video(name: str, entry: str, path: str, kind: str, config: str) -> Client:
    return Client(
        name=f"diffusers:{name}",
        family="multiaxis-rope",
        library="diffusers",
        requires=("torch",),
        entry=entry,
        source=f"{_DIFFUSERS}/{path}",
        adapter=_MROPE,
        configs=(config,),
        options={"kind": kind},
    )


MULTIAXIS_ROTARY = (
    _video(
        "FluxPosEmbed",
        "diffusers.models.transformers.transformer_flux.FluxPosEmbed + apply_rotary_emb",
        "transformers/transformer_flux.py",
        "flux",
        "flux.1",
    ),
    _video(
        "WanRotaryPosEmbed",
        "diffusers.models.transformers.transformer_wan.WanRotaryPosEmbed + WanAttnProcessor",
        "transformers/transformer_wan.py",
        "wan",
        "wan2.1",
    ),
    _video(
        "HunyuanVideoRotaryPosEmbed",
        "diffusers.models.transformers.transformer_hunyuan_video.HunyuanVideoRotaryPosEmbed"
        " + apply_rotary_emb",
        "transformers/transformer_hunyuan_video.py",
        "hunyuan",
        "hunyuanvideo",
    ),
    _video(
        "get_3d_rotary_pos_embed",
        "diffusers.models.embeddings.get_3d_rotary_pos_embed + apply_rotary_emb (CogVideoX)",
        "embeddings.py",
        "cogvideox",
        "cogvideox-5b",
    ),
)
"""The video and image multi-axis rotaries (family ``multiaxis-rope``)."""


def _unet(name: str, path: str, config: str) -> Client:
    return Client(
        name=f"diffusers:{name}.time_proj",
        family="fourier",
        library="diffusers",
        requires=("torch",),
        entry=f"diffusers.models.unets.{path}.{name}(time_embedding_type='fourier').time_proj",
        source=f"{_DIFFUSERS}/unets/{path}.py",
        adapter="pespec.clients.fourier_clients:unet_time_proj",
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


FOURIER = (
    *(
        Client(
            name=f"diffusers:{name}",
            family="fourier",
            library="diffusers",
            requires=("torch",),
            entry=entry,
            source=f"{_DIFFUSERS}/{path}",
            adapter="pespec.clients.fourier_clients:gaussian_fourier",
            configs=(config,),
            options={"module": module, **options},
            note=note,
        )
        for name, module, entry, path, config, options, note in _GAUSSIAN_ROWS
    ),
    _unet("UNet2DModel", "unet_2d", "diffusers-gaussian-fourier-log-flip"),
    _unet("UNet2DConditionModel", "unet_2d_condition", "diffusers-gaussian-fourier-flip"),
)
"""The Fourier projections (family ``fourier``), in table order."""
