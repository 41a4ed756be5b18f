"""The clients: every real entry point pespec runs, one declaration each (issue 29).

Adding an entry point is adding an entry here (and, for a new kind of call, an adapter); the
conformance table (``pespec table``) and ``pespec check --client`` read only this list.
Sources are the files of the libraries' repositories at the versions in ``library``'s row of
the table; the configurations are rotary presets or published config.json copies shipped in
``pespec/rope/published`` (PROVENANCE.md there).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from types import MappingProxyType

from pespec._suggest import did_you_mean
from pespec.clients.catalog_engines import ENGINE_CLIENTS
from pespec.clients.catalog_fourier import FOURIER_CLIENTS
from pespec.clients.catalog_hf import SURVEY_CLIENTS
from pespec.clients.catalog_more import GPU_CLIENTS, MORE_CLIENTS
from pespec.clients.catalog_multiaxis import MULTIAXIS_CLIENTS
from pespec.clients.model import Client
from pespec.clients.relative_clients import RELATIVE_CLIENTS

__all__ = ["CLIENTS", "ENTRY_POINT_GROUP", "all_clients", "get_client"]

ENTRY_POINT_GROUP = "pespec.clients"
"""Entry-point group through which another package declares clients: each entry's object is
a :class:`Client` or a sequence of them (built-in names win)."""

_TORCH_DTYPES = ("float32", "bfloat16")
_HF = "huggingface/transformers"
_HF_ROTARY = "pespec.clients.hf_rotary:build"
_SINUSOIDAL = "pespec.clients.sinusoidal_libraries:build"


def _transformers_rotary(
    model_type: str, module: str, configs: tuple[str, ...], **options: object
) -> Client:
    path = f"src/transformers/models/{model_type}/modeling_{model_type}.py"
    return Client(
        name=f"transformers:{model_type}",
        family="rope",
        library="transformers",
        requires=("torch",),
        entry=f"transformers.models.{model_type}.modeling_{model_type}.{module}",
        source=f"{_HF} {path}",
        adapter=_HF_ROTARY,
        configs=configs,
        dtypes=(*_TORCH_DTYPES, "module-bfloat16"),  # hf_rotary.MODULE_CAST: model.to(bf16)
        options={"config_reader": "pespec.clients.hf_rotary:read_config", **options},
    )


def _transformers_sinusoidal(name: str, entry: str, path: str) -> Client:
    return Client(
        name=f"transformers:{name}",
        family="sinusoidal",
        library="transformers",
        requires=("torch",),
        entry=entry,
        source=f"{_HF} {path}",
        adapter=_SINUSOIDAL,
        configs=("declared",),
    )


def _diffusers(name: str, entry: str, dtypes: tuple[str, ...] = ("float32",)) -> Client:
    return Client(
        name=f"diffusers:{name}",
        family="sinusoidal",
        library="diffusers",
        requires=("torch",),
        entry=entry,
        source="huggingface/diffusers src/diffusers/models/embeddings.py",
        adapter=_SINUSOIDAL,
        configs=("declared",),
        dtypes=dtypes,
    )


_ROTARY = (
    _transformers_rotary(
        "llama",
        "LlamaRotaryEmbedding",
        ("Llama-2-7B", "Llama-3.1-8B", "Llama-2-7B-dynamic-4-per-call"),  # variants: issue 36
    ),
    _transformers_rotary(
        "qwen2", "Qwen2RotaryEmbedding", ("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct-yarn-4")
    ),
    _transformers_rotary(
        "gemma3",
        "Gemma3RotaryEmbedding",
        ("Gemma-3-4B global layers", "Gemma-3-4B local layers"),
    ),
    _transformers_rotary("gpt_oss", "GptOssRotaryEmbedding", ("gpt-oss-20b",)),
    _transformers_rotary(
        "deepseek_v3", "DeepseekV3RotaryEmbedding", ("DeepSeek-V3",), interleave=True
    ),
    _transformers_rotary(
        "phi3",
        "Phi3RotaryEmbedding",
        ("Phi-3.5-mini-instruct-seq-len-4096", "Phi-3.5-mini-instruct-seq-len-131072"),
        forced_seq_len=True,
    ),
    _transformers_rotary(  # PhiMoE: a core client since issue 36 (was in the survey)
        "phimoe", "PhimoeRotaryEmbedding", ("Phi-3.5-MoE-instruct-per-call", "defaults")
    ),
    _transformers_rotary("glm", "GlmRotaryEmbedding", ("glm-4-9b-chat-hf",)),
    _transformers_rotary("cohere", "CohereRotaryEmbedding", ("c4ai-command-r-v01",)),
    Client(
        name="transformers:gptj",
        family="rope",
        library="transformers",
        requires=("torch",),
        entry="transformers.models.gptj.modeling_gptj.apply_rotary_pos_emb",
        source=f"{_HF} src/transformers/models/gptj/modeling_gptj.py",
        adapter="pespec.clients.hf_special:every_two",  # sin/cos cast to x's dtype, as GPT-J
        configs=("GPT-J-6B",),
        dtypes=(*_TORCH_DTYPES, "module-bfloat16"),
    ),
    Client(
        name="rotary-embedding-torch:RotaryEmbedding",
        family="rope",
        library="rotary-embedding-torch",
        requires=("torch",),
        entry="rotary_embedding_torch.RotaryEmbedding",
        source="lucidrains/rotary-embedding-torch rotary_embedding_torch/rotary_embedding_torch.py",
        adapter="pespec.clients.torch_rotary:rotary_embedding_torch",
        configs=("GPT-J-6B",),
        dtypes=_TORCH_DTYPES,
    ),
    Client(
        name="rotary-embedding-torch:RotaryEmbedding-pixel",
        family="rope",
        library="rotary-embedding-torch",
        requires=("torch",),
        entry="rotary_embedding_torch.RotaryEmbedding(freqs_for='pixel', max_freq=10)",
        source="lucidrains/rotary-embedding-torch rotary_embedding_torch/rotary_embedding_torch.py",
        adapter="pespec.clients.torch_rotary:rotary_embedding_torch_pixel",
        configs=("rotary-embedding-torch-pixel-64-max-freq-10",),
        dtypes=("float32",),
        options={"max_freq": 10.0},
    ),
    Client(
        name="rotary-embedding-torch:RotaryEmbedding-theta-rescale",
        family="rope",
        library="rotary-embedding-torch",
        requires=("torch",),
        entry="rotary_embedding_torch.RotaryEmbedding(theta_rescale_factor=4)",
        source="lucidrains/rotary-embedding-torch rotary_embedding_torch/rotary_embedding_torch.py",
        adapter="pespec.clients.torch_rotary:rotary_embedding_torch_options",
        configs=("rotary-embedding-torch-ntk-64-theta-rescale-4",),
        dtypes=("float32",),
        options={"theta_rescale_factor": 4.0},
    ),
    Client(
        name="rotary-embedding-torch:RotaryEmbedding-constant",
        family="rope",
        library="rotary-embedding-torch",
        requires=("torch",),
        entry="rotary_embedding_torch.RotaryEmbedding(freqs_for='constant', num_freqs=1)",
        source="lucidrains/rotary-embedding-torch rotary_embedding_torch/rotary_embedding_torch.py",
        adapter="pespec.clients.torch_rotary:rotary_embedding_torch_options",
        configs=("rotary-embedding-torch-constant-64-num-freqs-1",),
        dtypes=("float32",),
        options={"freqs_for": "constant", "num_freqs": 1},
    ),
    Client(
        name="rotary-embedding-torch:RotaryEmbedding-xpos",
        family="rope",
        library="rotary-embedding-torch",
        requires=("torch",),
        entry="rotary_embedding_torch.RotaryEmbedding(use_xpos=True) (rotate_queries_and_keys)",
        source="lucidrains/rotary-embedding-torch rotary_embedding_torch/rotary_embedding_torch.py",
        adapter="pespec.clients.torch_rotary:rotary_embedding_torch_xpos",
        configs=(
            "rotary-embedding-torch-xpos-64-32-base-512-query",
            "rotary-embedding-torch-xpos-64-32-base-512-key",
        ),
        dtypes=("float32",),
    ),
)

_WHISPER = "src/transformers/models/whisper/modeling_whisper.py"
_SINUSOIDS = (
    _transformers_sinusoidal(
        "whisper", "transformers.models.whisper.modeling_whisper.sinusoids", _WHISPER
    ),
    _transformers_sinusoidal(
        "m2m100",
        "transformers.models.m2m_100.modeling_m2m_100.M2M100SinusoidalPositionalEmbedding",
        "src/transformers/models/m2m_100/modeling_m2m_100.py",
    ),
    _transformers_sinusoidal(
        "marian",
        "transformers.models.marian.modeling_marian.MarianSinusoidalPositionalEmbedding",
        "src/transformers/models/marian/modeling_marian.py",
    ),
    _transformers_sinusoidal(
        "xlm",
        "transformers.models.xlm.modeling_xlm.create_sinusoidal_embeddings",
        "src/transformers/models/xlm/modeling_xlm.py",
    ),
    _diffusers("get_timestep_embedding", "diffusers.models.embeddings.get_timestep_embedding"),
    _diffusers("unet-timesteps", "diffusers.models.embeddings.Timesteps (UNet2DConditionModel)"),
    _diffusers("sd3-timesteps", "diffusers.models.embeddings.Timesteps (SD3, PixArt)"),
    _diffusers(
        "flux-timesteps",
        "diffusers.models.embeddings.Timesteps (FluxTransformer2DModel)",
        dtypes=("float32", "bfloat16"),
    ),
)

CLIENTS: Mapping[str, Client] = MappingProxyType(
    {
        c.name: c
        for c in _ROTARY
        + SURVEY_CLIENTS
        + _SINUSOIDS
        + RELATIVE_CLIENTS
        + MORE_CLIENTS
        + MULTIAXIS_CLIENTS
        + FOURIER_CLIENTS
        + GPU_CLIENTS
        + ENGINE_CLIENTS
    }
)
"""The built-in clients by name, in table order."""


def all_clients() -> dict[str, Client]:
    """The built-in clients, then those of the entry-point group :data:`ENTRY_POINT_GROUP`."""
    found = dict(CLIENTS)
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            declared = entry.load()
        except Exception:  # a broken package's clients are left out, never a crash here
            continue
        for client in [declared] if isinstance(declared, Client) else list(declared):
            if isinstance(client, Client) and client.name not in found:
                found[client.name] = client
    return found


def get_client(name: str) -> Client:
    """The client called ``name``; ValueError naming close matches."""
    if name in CLIENTS:
        return CLIENTS[name]
    known = all_clients()
    if name in known:
        return known[name]
    raise ValueError(
        f"client must be one of the names `pespec table --list` prints; got {name!r}"
        f"{did_you_mean(name, known)}"
    )
