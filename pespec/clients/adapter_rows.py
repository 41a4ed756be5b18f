"""Helpers shared by the rotary adapters of several libraries: a layer that has no position
argument sees each row at its position in a sequence of zeros (:func:`occurrences` says in
which sequence), and a library with one schedule refuses other configurations
(:func:`default_rope`). Imported only when a client is built (NumPy, the rotary family)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["default_rope", "in_sequences", "occurrences"]


def default_rope(client: Client, config: str | None, pairing: str) -> RopeConfig:
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


def in_sequences(
    x: NDArray[Any], positions: NDArray[Any], rotate: Callable[[NDArray[np.float32]], Any]
) -> NDArray[Any]:
    """x (n, width) rotated by a layer that has no position argument: each row placed at its
    position in a float32 sequence of zeros (seq_len, width), ``rotate(sequence)`` (an array
    of that shape), the rows read back; one sequence per repetition of a position (rows are
    independent in the layer). The result has the layer's dtype, shape (n, width)."""
    p = np.asarray(positions, dtype=np.int64)
    rank = occurrences(p)
    out: NDArray[Any] | None = None
    for k in range(int(rank.max()) + 1):
        rows = np.flatnonzero(rank == k)
        sequence = np.zeros((int(p[rows].max()) + 1, x.shape[1]), dtype=np.float32)
        sequence[p[rows]] = np.asarray(x, dtype=np.float32)[rows]
        rotated = np.asarray(rotate(sequence))[p[rows]]
        if out is None:
            out = np.empty((x.shape[0], x.shape[1]), dtype=rotated.dtype)
        out[rows] = rotated
    assert out is not None
    return out
