"""``client:NAME@DTYPE``: the backend spec of a client, resolved by the front ends.

The command line, the supervised worker and the pytest plugin turn such a spec into the
family's :class:`~pespec.conformance.backends.Backend` before the family's suite loads it, so
a client runs exactly like any backend (supervised, with timeouts) and a report names it by a
spec a user can paste: ``pespec check --family rope client:transformers:llama@bfloat16
--config Llama-3.1-8B`` (``--client transformers:llama --dtype bfloat16`` says the same).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
from typing import Any

from pespec.clients.catalog import get_client
from pespec.clients.model import Client

__all__ = [
    "CLIENT_PREFIX",
    "client_backend",
    "client_spec",
    "load_client_config",
    "parse_client_spec",
    "resolve",
]

CLIENT_PREFIX = "client:"


def client_spec(name: str, dtype: str = "float32") -> str:
    """The backend spec of client ``name`` in ``dtype``."""
    return f"{CLIENT_PREFIX}{name}@{dtype}"


def parse_client_spec(spec: str) -> tuple[Client, str]:
    """``client:NAME[@DTYPE]`` -> (the client, the dtype; default its first)."""
    name, _, dtype = spec.removeprefix(CLIENT_PREFIX).strip().partition("@")
    client = get_client(name)
    return client, dtype or client.dtypes[0]


def versions(client: Client) -> dict[str, str]:
    """Installed version of each distribution the client needs (ValueError if one is missing)."""
    found = {}
    for dist in client.distributions:
        try:
            found[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            raise ValueError(
                f"client {client.name} needs {dist}, which is not installed (pip install {dist})"
            ) from None
    return found


def client_backend(spec: str, config: str | None) -> Any:
    """The family Backend of ``client:NAME@DTYPE`` for ``--config`` ``config``."""
    from pespec.families import get_family

    client, dtype = parse_client_spec(spec)
    libraries = versions(client)
    fn = client.build(dtype, config)
    backend = get_family(client.family).load("load_backend")(fn)
    return dataclasses.replace(
        backend, name=client.name, spec=client_spec(client.name, dtype), libraries=libraries
    )


def resolve(backend: Any, config: str | None) -> Any:
    """``backend`` itself, or its client's Backend when it is a ``client:`` spec."""
    if isinstance(backend, str) and backend.strip().startswith(CLIENT_PREFIX):
        return client_backend(backend, config)
    return backend


def load_client_config(
    backend: Any, text: str, layer_type: str | None = None, seq_len: int | str | None = None
) -> Any:
    """The rotary ``--config`` reading of ``backend``: a client whose options name a
    ``config_reader`` (``module:attr``, e.g. transformers' ``defaults``) reads the names it
    knows, from the configuration its module is built from; anything else is
    :func:`pespec.rope.presets.load_config`'s."""
    from pespec.rope.presets import load_config

    if isinstance(backend, str) and backend.strip().startswith(CLIENT_PREFIX):
        client, _ = parse_client_spec(backend)
        reader = client.options.get("config_reader")
        if reader:
            module, _, attr = str(reader).partition(":")
            read = getattr(importlib.import_module(module), attr)
            reading = read(client, text, layer_type, seq_len)
            if reading is not None:
                return reading
    return load_config(text, layer_type, seq_len)
