"""torchtune's rotary modules as rotary backends (torchtune 0.6.1 with torchao 0.11.0).

``RotaryPositionalEmbeddings(dim, max_seq_len, base)`` and ``Llama3ScaledRoPE(dim,
max_seq_len, base, scale_factor, low_freq_factor, high_freq_factor, old_context_len)`` rotate
consecutive pairs of x (b, s, n_h, h_d) at ``input_pos`` from a float32 cos/sin cache, in
float32, and return x's dtype. torchtune loads a Hugging Face checkpoint by permuting each
head's q/k rows from halves to consecutive pairs (``convert_weights``' ``_permute``), so for
a configuration with halves pairs the adapter does the same to x and undoes it on the output:
the scores q·k are those of the model. Partial rotation (d_r < head_dim, GPT-J) rotates the
first d_r dims and passes the rest, as GPT-J's attention does.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pespec.clients.model import Client

if TYPE_CHECKING:  # the catalog imports this module: no NumPy, no rotary family until a build
    from numpy.typing import NDArray

    from pespec.rope.config import RopeConfig

__all__ = ["TORCHTUNE_CLIENTS", "build", "halves_to_pairs", "pairs_to_halves", "torchtune_backend"]


def halves_to_pairs(x: Any, d: int) -> Any:
    """x[..., :d] with halves pairs (j, j + d/2) reordered to consecutive pairs (2j, 2j + 1)."""
    half = d // 2
    return x[..., :d].reshape(*x.shape[:-1], 2, half).swapaxes(-1, -2).reshape(*x.shape[:-1], d)


def pairs_to_halves(x: Any, d: int) -> Any:
    """The inverse of :func:`halves_to_pairs`."""
    half = d // 2
    return x[..., :d].reshape(*x.shape[:-1], half, 2).swapaxes(-1, -2).reshape(*x.shape[:-1], d)


def _module(client: Client, rope: RopeConfig) -> Any:
    """The torchtune module of ``client`` for ``rope`` (float32 cache of 4096 positions)."""
    if client.options.get("llama3"):
        if rope.rope_type != "llama3":
            raise ValueError(
                f"client {client.name} runs rope_type 'llama3' configurations; "
                f"the configuration has {rope.rope_type!r}"
            )
        module = importlib.import_module("torchtune.models.llama3_1")
        return module.Llama3ScaledRoPE(
            rope.d_r,
            base=rope.theta,
            scale_factor=rope.factor,
            low_freq_factor=rope.low_freq_factor,
            high_freq_factor=rope.high_freq_factor,
            old_context_len=rope.original_max_position_embeddings,
        )
    if rope.rope_type != "default":
        raise ValueError(
            f"client {client.name} has the default schedule (θ only); "
            f"the configuration has rope_type {rope.rope_type!r}"
        )
    if client.options.get("phi3"):  # halves pairs natively (issue 36)
        phi3 = importlib.import_module("torchtune.models.phi3._position_embeddings")
        return phi3.Phi3RotaryPositionalEmbeddings(rope.d_r, base=rope.theta)
    modules = importlib.import_module("torchtune.modules")
    return modules.RotaryPositionalEmbeddings(rope.d_r, base=rope.theta)


def torchtune_backend(client: Client, rope: RopeConfig, dtype_name: str) -> Any:
    """``fn(x, positions, rope)``: the client's torchtune module at ``input_pos`` = positions."""
    import numpy as np

    module = _module(client, rope)  # refuses an inexpressible configuration before any import
    torch = importlib.import_module("torch")
    dtype = getattr(torch, dtype_name)
    halves = rope.pairing == "halves" and not client.options.get("phi3")  # phi3: its own
    if client.options.get("phi3") and rope.pairing != "halves":
        raise ValueError(f"client {client.name} rotates halves pairs; got {rope.pairing}")

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        d = rope.d_r
        top = int(np.max(positions)) + 1
        if top > module.cache.shape[0]:
            module.build_rope_cache(top)  # torchtune's own cache, for the positions asked
        xs = torch.from_numpy(np.asarray(x)).to(dtype)
        part = halves_to_pairs(xs, d) if halves else xs[..., :d]
        pos = torch.from_numpy(np.asarray(positions, dtype=np.int64))[:, None]
        with torch.no_grad():
            out = module(part[:, None, None, :], input_pos=pos)[:, 0, 0, :]
        out = pairs_to_halves(out, d) if halves else out
        return torch.cat([out, xs[..., d:]], dim=-1)

    return fn


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter: refuses (ValueError) a configuration torchtune cannot express."""
    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a preset or a config.json)")
    rope = read_config(config)
    if rope.pairing not in ("halves", "interleaved"):
        raise ValueError(
            f"client {client.name} rotates halves (permuted as torchtune loads a checkpoint) "
            f"or interleaved pairs; --config {config!r} has {rope.pairing} pairs"
        )
    return torchtune_backend(client, rope, dtype)


_TORCHTUNE_ROWS: tuple[tuple[str, str, str, tuple[str, ...], dict[str, object]], ...] = (
    # name, entry (in torchtune.), source file (in torchtune/), configs, options
    (
        "RotaryPositionalEmbeddings",
        "modules.RotaryPositionalEmbeddings",
        "modules/position_embeddings.py",
        ("Llama-2-7B", "Qwen2.5-7B-Instruct", "GPT-J-6B"),
        {},
    ),
    (
        "Llama3ScaledRoPE",
        "models.llama3_1.Llama3ScaledRoPE",
        "models/llama3_1/_position_embeddings.py",
        ("Llama-3.1-8B",),
        {"llama3": True},
    ),
    (  # Phi-3.5's LongRoPE: refused (the module has θ only); a default one runs (issue 36)
        "Phi3RotaryPositionalEmbeddings",
        "models.phi3.phi3 (Phi3RotaryPositionalEmbeddings)",
        "models/phi3/_position_embeddings.py",
        ("Llama-2-7B", "Phi-3.5-mini-instruct-seq-len-131072"),
        {"phi3": True},
    ),
)

TORCHTUNE_CLIENTS = tuple(
    Client(
        name=f"torchtune:{name}",
        family="rope",
        library="torchtune",
        requires=("torch", "torchao"),
        entry=f"torchtune.{entry}",
        source=f"pytorch/torchtune torchtune/{path}",
        adapter="pespec.clients.torchtune_clients:build",
        configs=configs,
        dtypes=("float32", "bfloat16"),
        options=dict(options),
        note="torchtune 0.6.1 imports only with torchao 0.11.0",
    )
    for name, entry, path, configs, options in _TORCHTUNE_ROWS
)
"""torchtune 0.6.1 (with torchao 0.11.0)."""
