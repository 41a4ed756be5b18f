"""equinox's rotary layer as clients (issue 29; issue 38 step 5: one client module per
library): their declarations and adapters.

``nn.RotaryPositionalEmbedding(head_dim, theta, dtype)`` rotates x (seq_len, head_dim) at
positions 0 … seq_len − 1 (halves pairs; cos/sin made in float32 and cast to its dtype, the
rotation in that dtype): it has no position argument, so the adapter places each row at its
position in a sequence of zeros and reads it back, one sequence per repetition of a position
(rows are independent in the layer). NumPy, JAX and the rotary family are imported only when a
client is built (loading the catalog imports neither).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pespec.clients.model import Client

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from pespec.rope.config import RopeConfig

__all__ = ["EQUINOX_CLIENTS", "build", "build_after"]

_ADAPTERS = "pespec.clients.equinox_clients"

EQUINOX_CLIENTS = (
    Client(
        name="equinox:nn.RotaryPositionalEmbedding",
        family="rope",
        library="equinox",
        requires=("jax",),
        entry="equinox.nn.RotaryPositionalEmbedding",
        source="patrick-kidger/equinox equinox/nn/_embedding.py",
        adapter=f"{_ADAPTERS}:build",
        configs=("Llama-2-7B",),  # Gemma-3-4B local layers: conformant, ~55 s a row
        dtypes=("float32", "bfloat16"),
    ),
    Client(
        name="equinox:nn.RotaryPositionalEmbedding-second-theta",
        family="rope",
        library="equinox",
        requires=("jax",),
        entry="equinox.nn.RotaryPositionalEmbedding, after Qwen2.5-7B-Instruct's (θ 1e6)",
        source="patrick-kidger/equinox equinox/nn/_embedding.py",
        adapter=f"{_ADAPTERS}:build_after",
        configs=("Llama-2-7B",),
        dtypes=("float32", "bfloat16"),
        options={"first": "Qwen2.5-7B-Instruct"},
        note="two models in one process: the cos/sin cache is keyed by size and dtype, not θ",
    ),
)
"""equinox's clients, in table order."""


def build(client: Client, dtype: str, config: str | None) -> Any:
    """equinox's ``nn.RotaryPositionalEmbedding(head_dim, θ, dtype)`` at the rows' positions."""

    from pespec.clients.adapter_rows import default_rope, in_sequences

    rope = default_rope(client, config, "halves")
    if rope.d_r != rope.head_dim:
        raise ValueError(f"client {client.name} rotates every feature; d_r is {rope.d_r}")
    eqx = importlib.import_module("equinox")
    jnp = importlib.import_module("jax.numpy")
    layer = eqx.nn.RotaryPositionalEmbedding(rope.head_dim, theta=rope.theta, dtype=dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> NDArray[Any]:
        return in_sequences(x, positions, lambda s: layer(jnp.asarray(s).astype(dtype)))

    return fn


def build_after(client: Client, dtype: str, config: str | None) -> Any:
    """equinox's layer for ``config`` built and called after a layer of the configuration
    ``client.options["first"]`` (another θ, the same head_dim and dtype) was called in this
    process on its whole context, as a user who runs two models in one session meets them
    (issue 36): equinox caches cos/sin in a module-level dict keyed by (embedding size,
    dtype), not θ, and rebuilds it only for a longer sequence."""
    import numpy as np

    from pespec.rope.presets import read_config

    first = read_config(str(client.options["first"]))
    eqx = importlib.import_module("equinox")
    jnp = importlib.import_module("jax.numpy")
    earlier = eqx.nn.RotaryPositionalEmbedding(first.head_dim, theta=first.theta, dtype=dtype)
    length = first.context_length or 4096  # the first model run on its whole context
    np.asarray(earlier(jnp.zeros((length, first.head_dim), dtype=dtype)))
    return build(client, dtype, config)
