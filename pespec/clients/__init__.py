"""Real library entry points as clients of pespec (issue 29): declarations as data
(:data:`CLIENTS`), their adapters (imported when a client runs; optional libraries) and the
``client:NAME@DTYPE`` backend spec the front ends resolve (:func:`resolve`)."""

from pespec.clients.catalog import CLIENTS, get_client
from pespec.clients.model import Client
from pespec.clients.resolve import CLIENT_PREFIX, client_backend, client_spec, resolve

__all__ = [
    "CLIENTS",
    "CLIENT_PREFIX",
    "Client",
    "client_backend",
    "client_spec",
    "get_client",
    "resolve",
]
