"""Adapters: a module, or a table it builds, as a backend (the calling convention of SPEC §6.1).

A model's positional-encoding module rarely has the backend's call ``(positions, d_model,
base) -> array``: it is built for one ``d_model`` (and base) and its ``forward`` takes
embeddings. The suite calls the backend hundreds of times with a few dozen configurations,
so an adapter that rebuilds the module, or its 5000-row table, on every call spends most of
the run building. These adapters build once per configuration and keep the last few:

* :func:`module_backend`: ``factory(d_model, base)`` builds a module whose call (or
  ``method``) maps positions to their encoding;
* :func:`table_backend`: ``build(d_model, base)`` returns a table whose row p encodes
  position p, p = 0 .. rows − 1; the backend looks rows up and declares what a table can
  take (integer positions 0 .. rows − 1, the given bases).
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.conformance.backends import Backend, callable_name
from pespec.conformance.host import to_host
from pespec.numerics.validation import check_non_negative_int
from pespec.sinusoidal.capabilities import Capabilities

__all__ = ["DEFAULT_CACHE_SIZE", "module_backend", "table_backend"]

DEFAULT_CACHE_SIZE = 4
"""Configurations kept built at a time: the suite's calls come in runs of the same
(d_model, base), and a 5000 × 4096 float32 table is 80 MB."""


class _Cache:
    """The last ``size`` values of ``make(key)``, least recently used dropped first.

    Thread-safe: backend calls run in worker threads, and a timed-out one may still be
    building when the next call starts.
    """

    def __init__(self, make: Callable[..., Any], size: int) -> None:
        self.make = make
        self.size = size
        self.items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self.lock = threading.Lock()
        self.builds = 0

    def get(self, *key: Any) -> Any:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = self.make(*key)
        with self.lock:
            self.builds += 1
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


def _check_positive(value: Any, name: str) -> int:
    """A positive int, else TypeError/ValueError naming ``name``, the value and what is allowed."""
    result = check_non_negative_int(value, name)
    if result == 0:
        raise ValueError(f"{name} must be a positive int; got 0")
    return result


def _drop_batch_axis(array: NDArray[Any], d_model: int) -> NDArray[Any]:
    """(1, n, d_model) or (n, 1, d_model), the shapes of a model's buffer, as (n, d_model)."""
    if array.ndim == 3 and array.shape[-1] == d_model and 1 in array.shape[:2]:
        return array.reshape(-1, d_model)
    return array


def _capabilities(given: Capabilities | Mapping[str, Any] | None) -> Capabilities:
    if given is None:
        return Capabilities()
    if isinstance(given, Capabilities):
        return given
    return Capabilities.from_mapping(given)


def module_backend(
    factory: Callable[[int, float], Any],
    *,
    method: str | None = None,
    capabilities: Capabilities | Mapping[str, Any] | None = None,
    name: str | None = None,
    cache_size: int = DEFAULT_CACHE_SIZE,
) -> Backend:
    """A backend calling a module built once per (d_model, base) by ``factory(d_model, base)``.

    The backend calls ``module(positions)``, or ``getattr(module, method)(positions)``, with
    the positions as a torch tensor on the module's device (under ``torch.no_grad()``) when
    the module is a ``torch.nn.Module``, else as the NumPy array; the result is the encoding,
    shape (n, d_model) (a leading batch axis of 1 is dropped). ``capabilities``: what the
    module supports (a dict or :class:`Capabilities`). The last ``cache_size`` modules are
    kept. ``name``: the report's name (default: the factory's qualified name; loaded from a
    spec such as ``pe.py:backend``, the backend is named by that spec). Example:
    ``module_backend(lambda d, b: MyEncoding(d, base=b), method="encode")``.
    """
    _check_positive(cache_size, "cache_size")
    if not callable(factory):
        raise TypeError(f"factory must be a callable (d_model, base) -> module; got {factory!r}")
    cache = _Cache(lambda d_model, base: factory(d_model, base), cache_size)

    def encode(positions: NDArray[Any], d_model: int, base: float) -> Any:
        module = cache.get(int(d_model), float(base))
        call = module if method is None else getattr(module, method)
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(module, torch.nn.Module):
            device = next(iter([*module.parameters(), *module.buffers()]), None)
            tensor = torch.from_numpy(np.array(positions, copy=True))
            if device is not None:
                tensor = tensor.to(device.device)
            with torch.no_grad():
                return _drop_batch_axis(to_host(call(tensor)), d_model)
        return _drop_batch_axis(to_host(call(positions)), d_model)

    label = name or callable_name(factory)
    backend = Backend(label, encode, capabilities=_capabilities(capabilities))
    return backend


def table_backend(
    build: Callable[[int, float], Any],
    *,
    rows: int,
    bases: Sequence[float] | None = (10000.0,),
    level: str | None = None,
    name: str | None = None,
    cache_size: int = DEFAULT_CACHE_SIZE,
) -> Backend:
    """A backend looking rows up in a table built once per (d_model, base).

    ``build(d_model, base)`` returns the table (torch tensor, NumPy or JAX array): row p is
    the encoding of position p for p = 0 .. ``rows`` − 1 (a leading axis of 1, as in a
    ``(1, max_len, d_model)`` buffer, is dropped; extra rows are ignored). The backend
    declares integer, non-negative positions up to ``rows`` − 1 and ``bases`` (None: any
    base; default 10000, for a module that fixes it), and ``level`` if given. The last
    ``cache_size`` tables are kept, in host memory. ``name`` as for :func:`module_backend`.
    """
    _check_positive(rows, "rows")
    _check_positive(cache_size, "cache_size")
    if not callable(build):
        raise TypeError(f"build must be a callable (d_model, base) -> table; got {build!r}")

    def make(d_model: int, base: float) -> NDArray[Any]:
        table = _drop_batch_axis(to_host(build(d_model, base)), d_model)
        if table.ndim != 2 or table.shape[0] < rows or table.shape[1] != d_model:
            raise ValueError(
                f"build({d_model}, {base!r}) must return a table of shape (>= {rows}, "
                f"{d_model}); got {table.shape}"
            )
        return table[:rows]

    cache = _Cache(make, cache_size)

    def look_up(positions: NDArray[Any], d_model: int, base: float) -> NDArray[Any]:
        table: NDArray[Any] = cache.get(int(d_model), float(base))
        return table[np.asarray(positions, dtype=np.int64)]

    capabilities = Capabilities(
        integer_positions_only=True,
        non_negative_positions=True,
        max_position=float(rows - 1),
        bases=None if bases is None else tuple(bases),
        level=level,
    )
    label = name or callable_name(build)
    backend = Backend(label, look_up, capabilities=capabilities)
    return backend
