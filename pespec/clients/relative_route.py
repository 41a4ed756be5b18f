"""The command line's route for relative-table clients (SPEC §10.10): whether a
``client:NAME@DTYPE`` names one, and its table-only check with the library versions recorded.

Apart from :mod:`pespec.clients.relative_clients` (the declarations, which the catalog reads)
so that the catalog does not import the resolver that reads the catalog.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_client", "is_relative_client"]


def is_relative_client(spec: Any) -> bool:
    """True when ``spec`` is a ``client:NAME@DTYPE`` of a relative-table client."""
    if not isinstance(spec, str) or not spec.strip().startswith("client:"):
        return False  # not a client (the resolver's CLIENT_PREFIX): nothing imported
    from pespec.clients.resolve import parse_client_spec

    try:
        client, _ = parse_client_spec(spec)
    except ValueError:  # an unknown client: the family's own route reports it
        return False
    return "relative" in client.options


def check_client(spec: str, level: str | None = None) -> Any:
    """The table-only check (:func:`~pespec.sinusoidal.relative.check_relative`) of the relative
    client ``spec``: its Report, with the library versions and the spec recorded."""
    from pespec.clients.relative_clients import relative_declaration
    from pespec.clients.resolve import client_spec, parse_client_spec, versions
    from pespec.sinusoidal.relative import check_relative

    client, dtype = parse_client_spec(spec)
    libraries = versions(client)
    build = client.build(dtype, None)
    report = check_relative(build, relative_declaration(client), level=level, name=client.name)
    report.backend_spec = client_spec(client.name, dtype)
    report.libraries = libraries
    return report
