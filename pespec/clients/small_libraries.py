"""Rotary entry points of x-transformers (torch) and equinox (JAX) as rotary backends.

x-transformers: ``RotaryEmbedding(d_r, base=θ)(positions)`` gives the phases of consecutive
pairs, ``apply_rotary_pos_emb(x, freqs)`` rotates the first d_r features (partial rotation,
as GPT-J) in float32 and returns x's dtype. equinox: ``nn.RotaryPositionalEmbedding(head_dim,
theta, dtype)`` rotates x (seq_len, head_dim) at positions 0 … seq_len − 1 (halves pairs;
cos/sin made in float32 and cast to its dtype, the rotation in that dtype): it has no position
argument, so the adapter places each row at its position in a sequence of zeros and reads it
back, one sequence per repetition of a position (rows are independent in the layer).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["build_equinox", "build_equinox_after", "build_x_transformers", "occurrences"]


def _rope(client: Client, config: str | None, pairing: str) -> RopeConfig:
    """The configuration of ``--config``, refused unless default schedule with ``pairing``."""
    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a preset or a config.json)")
    rope = read_config(config)
    if rope.rope_type != "default" or rope.pairing != pairing:
        raise ValueError(
            f"client {client.name} rotates {pairing} pairs with the default schedule; "
            f"--config {config!r} has {rope.pairing} pairs, rope_type {rope.rope_type!r}"
        )
    return rope


def build_x_transformers(client: Client, dtype: str, config: str | None) -> Any:
    """x-transformers' ``RotaryEmbedding`` + ``apply_rotary_pos_emb`` on x in ``dtype``."""
    rope = _rope(client, config, "interleaved")
    torch = importlib.import_module("torch")
    xt = importlib.import_module("x_transformers.x_transformers")
    module = xt.RotaryEmbedding(rope.d_r, base=rope.theta)
    torch_dtype = getattr(torch, dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        xs = torch.from_numpy(np.asarray(x)).to(torch_dtype)
        with torch.no_grad():
            freqs, _ = module(torch.from_numpy(np.asarray(positions, dtype=np.int64)))
            return xt.apply_rotary_pos_emb(xs[None], freqs)[0]

    return fn


def occurrences(positions: NDArray[Any]) -> NDArray[np.int64]:
    """For each row, how many earlier rows have its position (0 for the first)."""
    order = np.argsort(positions, kind="stable")
    ranked = np.asarray(positions)[order]
    starts = np.r_[0, np.flatnonzero(np.diff(ranked)) + 1]
    counts = np.diff(np.r_[starts, ranked.size])
    within = np.arange(ranked.size) - np.repeat(starts, counts)
    out = np.empty(ranked.size, dtype=np.int64)
    out[order] = within
    return out


def build_equinox(client: Client, dtype: str, config: str | None) -> Any:
    """equinox's ``nn.RotaryPositionalEmbedding(head_dim, θ, dtype)`` at the rows' positions."""
    rope = _rope(client, config, "halves")
    if rope.d_r != rope.head_dim:
        raise ValueError(f"client {client.name} rotates every feature; d_r is {rope.d_r}")
    eqx = importlib.import_module("equinox")
    jnp = importlib.import_module("jax.numpy")
    layer = eqx.nn.RotaryPositionalEmbedding(rope.head_dim, theta=rope.theta, dtype=dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> NDArray[Any]:
        p = np.asarray(positions, dtype=np.int64)
        rank = occurrences(p)
        out: NDArray[Any] | None = None
        for k in range(int(rank.max()) + 1):
            rows = np.flatnonzero(rank == k)
            sequence = np.zeros((int(p[rows].max()) + 1, x.shape[1]), dtype=np.float32)
            sequence[p[rows]] = np.asarray(x, dtype=np.float32)[rows]
            rotated = np.asarray(layer(jnp.asarray(sequence).astype(dtype)))[p[rows]]
            if out is None:
                out = np.empty((x.shape[0], x.shape[1]), dtype=rotated.dtype)
            out[rows] = rotated
        assert out is not None
        return out

    return fn


def build_equinox_after(client: Client, dtype: str, config: str | None) -> Any:
    """equinox's layer for ``config`` built and called after a layer of the configuration
    ``client.options["first"]`` (another θ, the same head_dim and dtype) was called in this
    process on its whole context, as a user who runs two models in one session meets them
    (issue 36): equinox caches cos/sin in a module-level dict keyed by (embedding size,
    dtype), not θ, and rebuilds it only for a longer sequence."""
    from pespec.rope.presets import read_config

    first = read_config(str(client.options["first"]))
    eqx = importlib.import_module("equinox")
    jnp = importlib.import_module("jax.numpy")
    earlier = eqx.nn.RotaryPositionalEmbedding(first.head_dim, theta=first.theta, dtype=dtype)
    length = first.context_length or 4096  # the first model run on its whole context
    np.asarray(earlier(jnp.zeros((length, first.head_dim), dtype=dtype)))
    return build_equinox(client, dtype, config)
