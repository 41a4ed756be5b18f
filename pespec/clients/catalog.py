"""The clients: every real entry point pespec runs, one declaration each (issue 29), joined
in table order from one declaring module per library (issue 38 step 5:
:mod:`~pespec.clients.transformers_clients`, :mod:`~pespec.clients.diffusers_clients`, the
``<library>_clients.py`` modules through :mod:`~pespec.clients.catalog_more`, ...).

Adding an entry point is adding a declaration to its library's module (and, for a new kind of
call, an adapter); the conformance table (``pespec table``) and ``pespec check --client`` read
only :data:`CLIENTS`. Sources are the files of the libraries' repositories at the versions in
``library``'s row of the table; the configurations are presets or published config.json copies
shipped in ``pespec/rope/published`` (PROVENANCE.md there).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from types import MappingProxyType

from pespec._suggest import did_you_mean
from pespec.clients import diffusers_clients, transformers_clients
from pespec.clients.catalog_engines import ENGINE_CLIENTS
from pespec.clients.catalog_fourier import FOURIER_CLIENTS
from pespec.clients.catalog_more import GPU_CLIENTS, MORE_CLIENTS
from pespec.clients.model import Client
from pespec.clients.relative_clients import ESPNET_CLIENTS

__all__ = ["CLIENTS", "ENTRY_POINT_GROUP", "all_clients", "get_client"]

ENTRY_POINT_GROUP = "pespec.clients"
"""Entry-point group through which another package declares clients: each entry's object is
a :class:`Client` or a sequence of them (built-in names win)."""

_TORCH_DTYPES = ("float32", "bfloat16")

ROTARY_EMBEDDING_TORCH = (
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
"""rotary-embedding-torch's entry points (its adapters: :mod:`pespec.clients.torch_rotary`)."""

CLIENTS: Mapping[str, Client] = MappingProxyType(
    {
        c.name: c
        for c in transformers_clients.ROTARY
        + ROTARY_EMBEDDING_TORCH
        + transformers_clients.SURVEY_CLIENTS
        + transformers_clients.SINUSOIDS
        + diffusers_clients.SINUSOIDS
        + transformers_clients.RELATIVE
        + ESPNET_CLIENTS
        + MORE_CLIENTS
        + diffusers_clients.ROTARY
        + transformers_clients.MORE_SINUSOIDS
        + diffusers_clients.SINCOS
        + transformers_clients.MULTIAXIS_ROTARY
        + diffusers_clients.MULTIAXIS_ROTARY
        + diffusers_clients.FOURIER
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
