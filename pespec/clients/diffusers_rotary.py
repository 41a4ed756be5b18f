"""diffusers' 1-D rotary entry points as a rotary backend (issue 29).

``get_1d_rotary_pos_embed(d_r, positions, theta=θ, use_real=True, linear_factor=s,
repeat_interleave_real=(pairs interleaved))`` gives float32 cos/sin (n, d_r), and
``apply_rotary_emb(x, (cos, sin), use_real=True, use_real_unbind_dim=-1 | -2)`` rotates x
(1, 1, n, d_r) in float32 and returns x's dtype (consecutive pairs for unbind -1, halves for
-2), as diffusers' transformers call them; features past d_r pass unchanged.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pespec.clients.model import Client
from pespec.rope.config import RopeConfig

__all__ = ["build"]


def build(client: Client, dtype: str, config: str | None) -> Any:
    """The rotary backend of diffusers' ``get_1d_rotary_pos_embed`` + ``apply_rotary_emb``."""
    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a preset or a config.json)")
    rope = read_config(config)
    ntk = float(client.options.get("ntk_factor", 1.0))
    if rope.rope_type not in ("default", "linear") or rope.pairing not in ("halves", "interleaved"):
        raise ValueError(
            f"client {client.name} has θ, a linear factor and halves or interleaved pairs; "
            f"--config {config!r} has rope_type {rope.rope_type!r}, {rope.pairing} pairs"
        )
    torch = importlib.import_module("torch")
    embeddings = importlib.import_module("diffusers.models.embeddings")
    interleaved = rope.pairing == "interleaved"
    factor = rope.factor if rope.rope_type == "linear" and rope.factor else 1.0
    torch_dtype = getattr(torch, dtype)
    library_theta = rope.theta / ntk  # the θ a user passes with ntk_factor (SPEC Annex F.7)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        d = rope.d_r
        cos, sin = embeddings.get_1d_rotary_pos_embed(
            d,
            np.asarray(positions, dtype=np.int64),
            theta=rope.theta if ntk == 1.0 else library_theta,
            use_real=True,
            linear_factor=factor,
            ntk_factor=ntk,
            repeat_interleave_real=interleaved,
        )
        xs = torch.from_numpy(np.asarray(x)).to(torch_dtype)
        with torch.no_grad():
            out = embeddings.apply_rotary_emb(
                xs[None, None, :, :d],
                (cos, sin),
                use_real=True,
                use_real_unbind_dim=-1 if interleaved else -2,
            )[0, 0]
        return torch.cat([out, xs[:, d:]], dim=-1)

    return fn
