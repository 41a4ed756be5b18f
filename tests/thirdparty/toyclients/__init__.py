"""Clients declared by a package outside pespec (entry-point group ``pespec.clients``), for
the conformance table's tests: one correct, one wrong, and one of each way a client can fail
to give a verdict (refuses at build, hangs, ends its process, library missing, GPU needed).
The rotary rotation here is written independently: ω_j = θ^(−2j/d) in float64, halves."""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from pespec.clients.model import Client


def _rotation(theta_factor: float) -> Any:
    def fn(x: Any, positions: Any, rope: Any) -> Any:
        d = rope.d_r
        j = np.arange(d // 2, dtype=np.float64)
        omega = (rope.theta * theta_factor) ** (-2.0 * j / d)
        phase = np.asarray(positions, dtype=np.float64)[:, None] * omega[None, :]
        out = np.array(x, dtype=np.float64)
        a, b = out[:, : d // 2].copy(), out[:, d // 2 : d].copy()
        out[:, : d // 2] = a * np.cos(phase) - b * np.sin(phase)
        out[:, d // 2 : d] = a * np.sin(phase) + b * np.cos(phase)
        return out

    return fn


def correct(client: Client, dtype: str, config: str | None) -> Any:
    return _rotation(1.0)


def wrong_theta(client: Client, dtype: str, config: str | None) -> Any:
    return _rotation(100.0)


def refuses(client: Client, dtype: str, config: str | None) -> Any:
    raise ValueError(f"client {client.name} cannot express --config {config!r}")


def hangs(client: Client, dtype: str, config: str | None) -> Any:
    time.sleep(3600)
    raise AssertionError("unreachable")


def exits(client: Client, dtype: str, config: str | None) -> Any:
    def fn(x: Any, positions: Any, rope: Any) -> Any:
        os._exit(0)

    return fn


def _client(name: str, adapter: str, **more: Any) -> Client:
    return Client(
        name=f"toy:{name}",
        family="rope",
        library="numpy",
        entry=f"toyclients.{adapter}",
        source="pespec tests/thirdparty/toyclients/__init__.py",
        adapter=f"toyclients:{adapter}",
        configs=("Llama-2-7B",),
        dtypes=("float64",),
        **more,
    )


CLIENTS = [
    _client("correct", "correct"),
    _client("wrong-theta", "wrong_theta"),
    _client("refuses", "refuses"),
    _client("hangs", "hangs"),
    _client("exits", "exits"),
    _client("missing", "correct", requires=("no-such-distribution-pespec-test",)),
    _client("gpu", "correct", device="cuda"),
]
