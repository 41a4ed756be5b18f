"""transformers' and diffusers' sinusoidal entry points as sinusoidal backends.

Each adapts a published function or module to the sinusoidal calling convention
``(positions, d_model, base) -> (n, d_model)`` without re-implementing it: table-based modules
(Whisper ``sinusoids``, M2M100, Marian, XLM) build their table for the requested d_model once,
as the model does, and rows are looked up; diffusers' ``get_timestep_embedding`` and
``Timesteps`` are called on the positions as timesteps. Each declares the convention it
implements and honest capabilities (``pespec_capabilities``). Module-level functions, so a
reproduction rebuilds them as ``pespec.clients.sinusoidal_libraries:NAME``; torch,
transformers and diffusers are imported when a backend is called.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client

WHISPER_POSITIONS = 1500
"""openai/whisper-large: max_source_positions 1500, d_model 1280."""

OPUS_POSITIONS = 512
"""Helsinki-NLP/opus-mt-*: max_position_embeddings 512, d_model up to 1024 (big models)."""


PYTHON_LOOP_TABLES = 64
"""Tables kept per builder that loops in Python (about a second each at d_model 1024): one
check asks for some 30 distinct d_model, a few times each; 64 of at most 2 MiB each."""


def _table_capabilities(rows: int, max_d_model: int, convention: str, **more: Any) -> Any:
    return {
        "integer_positions_only": True,
        "non_negative_positions": True,
        "max_position": rows - 1,
        "max_d_model": max_d_model,
        "convention": convention,
        **more,
    }


def _library(module: str) -> Any:
    """A library module, imported when a backend is called (its functions typed as Any: some
    are untyped, and base is passed as the float it is where a library annotates int)."""
    return importlib.import_module(module)


def _rows(table: Any, positions: NDArray[Any]) -> NDArray[np.float32]:
    import torch

    index = torch.as_tensor(np.asarray(positions, dtype=np.int64))
    rows: NDArray[np.float32] = table[index].detach().cpu().numpy()
    return rows


def whisper_sinusoids(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """transformers ``models.whisper.modeling_whisper.sinusoids(length, channels,
    max_timescale)``: the encoder's position table; base is its max_timescale."""
    return _rows(_whisper_table(d_model, base), positions)


@functools.lru_cache(maxsize=8)
def _whisper_table(d_model: int, base: float) -> Any:
    """The table, built once per (d_model, base) as the model builds it once."""
    from transformers.models.whisper.modeling_whisper import sinusoids

    return sinusoids(WHISPER_POSITIONS, d_model, max_timescale=base)


whisper_sinusoids.pespec_capabilities = _table_capabilities(  # type: ignore[attr-defined]
    WHISPER_POSITIONS, 1280, "whisper"
)


def m2m100(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """transformers ``M2M100SinusoidalPositionalEmbedding.get_embedding(num, dim, padding_idx=1)``:
    token i (from 0) is table row i + padding_idx + 1 = i + 2 (fairseq's make_positions), the
    fairseq convention; base 10000 is fixed by the code."""
    offset = 2  # padding_idx + 1, as M2M100SinusoidalPositionalEmbedding.offset
    return _rows(_m2m100_table(d_model, offset), np.asarray(positions, dtype=np.int64) + offset)


@functools.lru_cache(maxsize=8)
def _m2m100_table(d_model: int, offset: int) -> Any:
    from transformers.models.m2m_100.modeling_m2m_100 import (
        M2M100SinusoidalPositionalEmbedding,
    )

    return M2M100SinusoidalPositionalEmbedding.get_embedding(
        OPUS_POSITIONS + offset, d_model, padding_idx=1
    )


m2m100.pespec_capabilities = _table_capabilities(  # type: ignore[attr-defined]
    OPUS_POSITIONS, 1024, "fairseq", bases=[10000.0]
)


def marian(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """transformers ``MarianSinusoidalPositionalEmbedding(num_positions, dim).create_weight()``
    (the table the model's weight init copies in); base 10000 is fixed by the code."""
    return _rows(_marian_table(d_model), positions)


@functools.lru_cache(maxsize=PYTHON_LOOP_TABLES)
def _marian_table(d_model: int) -> Any:
    """The table, built once per d_model (create_weight loops in Python: seconds a call)."""
    module = _library("transformers.models.marian.modeling_marian")
    return module.MarianSinusoidalPositionalEmbedding(OPUS_POSITIONS, d_model).create_weight()


marian.pespec_capabilities = _table_capabilities(  # type: ignore[attr-defined]
    OPUS_POSITIONS, 1024, "marian", bases=[10000.0]
)


def xlm(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """transformers ``models.xlm.modeling_xlm.create_sinusoidal_embeddings(n_pos, dim, out)``
    into a float32 table: interleaved, canonical frequencies; base 10000 fixed."""
    return _rows(_xlm_table(d_model), positions)


@functools.lru_cache(maxsize=PYTHON_LOOP_TABLES)
def _xlm_table(d_model: int) -> Any:
    """The table, built once per d_model (the function loops in Python: seconds a call)."""
    import torch

    create = _library("transformers.models.xlm.modeling_xlm").create_sinusoidal_embeddings
    out = torch.empty(OPUS_POSITIONS, d_model, dtype=torch.float32)
    return create(OPUS_POSITIONS, d_model, out)


xlm.pespec_capabilities = _table_capabilities(  # type: ignore[attr-defined]
    OPUS_POSITIONS, 1024, "canonical", bases=[10000.0]
)


def _timestep_embedding(
    positions: NDArray[Any], d_model: int, base: float, **kwargs: Any
) -> NDArray[Any]:
    import torch

    get_timestep_embedding = _library("diffusers.models.embeddings").get_timestep_embedding
    timesteps = torch.as_tensor(np.asarray(positions, dtype=np.float64)).to(torch.float32)
    out = get_timestep_embedding(timesteps, d_model, max_period=base, **kwargs)
    result: NDArray[Any] = out.numpy()
    return result


def diffusers_default(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """diffusers ``get_timestep_embedding(t, dim, max_period=base)`` with its defaults."""
    return _timestep_embedding(positions, d_model, base)


diffusers_default.pespec_capabilities = {"convention": "diffusers"}  # type: ignore[attr-defined]


def diffusers_unet(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """What ``UNet2DConditionModel`` calls (``Timesteps(C, flip_sin_to_cos=True,
    freq_shift=0)``): ``get_timestep_embedding(t, dim, True, 0, max_period=base)``."""
    return _timestep_embedding(
        positions, d_model, base, flip_sin_to_cos=True, downscale_freq_shift=0
    )


diffusers_unet.pespec_capabilities = {"convention": "diffusers-unet"}  # type: ignore[attr-defined]


def sd3_timesteps(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """diffusers ``Timesteps(d_model, flip_sin_to_cos=True, downscale_freq_shift=0)``, the
    module SD3 and PixArt build with 256 channels (max_period is its default 10000)."""
    import torch
    from diffusers.models.embeddings import Timesteps

    module = Timesteps(d_model, flip_sin_to_cos=True, downscale_freq_shift=0)
    timesteps = torch.as_tensor(np.asarray(positions, dtype=np.float64)).to(torch.float32)
    result: NDArray[Any] = module(timesteps).numpy()
    return result


sd3_timesteps.pespec_capabilities = {  # type: ignore[attr-defined]
    "convention": "sd3",
    "bases": [10000.0],
}


def flux_timesteps(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """Flux's timestep embedding as diffusers' Flux transformer forms it at float32: t in
    [0, 1], ``Timesteps(dim, True, 0)(t * 1000)`` (c = 1000, the flux preset)."""
    return _flux(positions, d_model, base, None)


flux_timesteps.pespec_capabilities = {  # type: ignore[attr-defined]
    "convention": "flux",
    "bases": [10000.0],
    "max_position": 1.0,
}


def flux_timesteps_bfloat16(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
    """The same with t cast to bfloat16 first, as diffusers' ``FluxTransformer2DModel``
    does (``timestep.to(hidden_states.dtype) * 1000``) in a bfloat16 pipeline."""
    return _flux(positions, d_model, base, "bfloat16")


flux_timesteps_bfloat16.pespec_capabilities = flux_timesteps.pespec_capabilities  # type: ignore[attr-defined]


def _flux(positions: NDArray[Any], d_model: int, base: float, cast: str | None) -> NDArray[Any]:
    import torch
    from diffusers.models.embeddings import Timesteps

    t = torch.as_tensor(np.asarray(positions, dtype=np.float64))
    scaled = t.to(torch.bfloat16 if cast == "bfloat16" else torch.float32) * 1000
    module = Timesteps(d_model, flip_sin_to_cos=True, downscale_freq_shift=0)
    result: NDArray[Any] = module(scaled).to(torch.float32).numpy()
    return result


ADAPTERS: dict[tuple[str, str], Any] = {
    ("transformers:whisper", "float32"): whisper_sinusoids,
    ("transformers:m2m100", "float32"): m2m100,
    ("transformers:marian", "float32"): marian,
    ("transformers:xlm", "float32"): xlm,
    ("diffusers:get_timestep_embedding", "float32"): diffusers_default,
    ("diffusers:unet-timesteps", "float32"): diffusers_unet,
    ("diffusers:sd3-timesteps", "float32"): sd3_timesteps,
    ("diffusers:flux-timesteps", "float32"): flux_timesteps,
    ("diffusers:flux-timesteps", "bfloat16"): flux_timesteps_bfloat16,
}
"""(client, dtype) -> its backend function (bfloat16: Flux's timesteps cast as its pipeline
casts them in bfloat16; the embedding itself is float32)."""


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: the function of (client, dtype); the convention is declared."""
    return ADAPTERS[(client.name, dtype)]
