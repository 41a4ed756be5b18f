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
from pespec.clients.catalog_more import GPU_CLIENTS, MORE_CLIENTS, TE_CLIENTS
from pespec.clients.model import Client
from pespec.clients.relative_clients import ESPNET_CLIENTS
from pespec.clients.rotary_embedding_torch_clients import ROTARY_EMBEDDING_TORCH_CLIENTS

__all__ = ["CLIENTS", "ENTRY_POINT_GROUP", "all_clients", "get_client"]

ENTRY_POINT_GROUP = "pespec.clients"
"""Entry-point group through which another package declares clients: each entry's object is
a :class:`Client` or a sequence of them (built-in names win)."""

CLIENTS: Mapping[str, Client] = MappingProxyType(
    {
        c.name: c
        for c in transformers_clients.ROTARY
        + ROTARY_EMBEDDING_TORCH_CLIENTS
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
        + TE_CLIENTS
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
