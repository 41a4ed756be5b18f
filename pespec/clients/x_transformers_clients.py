"""x-transformers' rotary entry point as a client (issue 29; issue 38 step 5: one client
module per library): its declaration and its adapter.

``RotaryEmbedding(d_r, base=θ)(positions)`` gives the phases of consecutive pairs,
``apply_rotary_pos_emb(x, freqs)`` rotates the first d_r features (partial rotation, as GPT-J)
in float32 and returns x's dtype. NumPy, torch and the rotary family are imported only when the
client is built (loading the catalog imports neither).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pespec.clients.model import Client

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from pespec.rope.config import RopeConfig

__all__ = ["X_TRANSFORMERS_CLIENTS", "build"]

X_TRANSFORMERS_CLIENTS = (
    Client(
        name="x-transformers:RotaryEmbedding",
        family="rope",
        library="x-transformers",
        requires=("torch",),
        entry="x_transformers.x_transformers.RotaryEmbedding + apply_rotary_pos_emb",
        source="lucidrains/x-transformers x_transformers/x_transformers.py",
        adapter="pespec.clients.x_transformers_clients:build",
        configs=("GPT-J-6B",),
        dtypes=("float32", "bfloat16"),
    ),
)
"""x-transformers' client."""


def build(client: Client, dtype: str, config: str | None) -> Any:
    """x-transformers' ``RotaryEmbedding`` + ``apply_rotary_pos_emb`` on x in ``dtype``."""
    import numpy as np

    from pespec.clients.adapter_rows import default_rope

    rope = default_rope(client, config, "interleaved")
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
