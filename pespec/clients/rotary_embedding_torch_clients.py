"""rotary-embedding-torch's entry points as clients (issue 29; issue 38 step 5: one client
module per library): their declarations and adapters. ``RotaryEmbedding`` with
``apply_rotary_emb`` (interleaved pairs) is a rotary entry point that is a function rather than
a model's rotary module (transformers' GPT-J runs through its rotary module:
:mod:`pespec.clients.hf_special`). It is ``fn(x (n, head_dim), positions (n,), rope)``; the
configuration's θ and d_r are passed to the library as a user would (SPEC §8.8). NumPy, torch
and the rotary family are imported only when a client is built (loading the catalog imports
neither).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pespec.clients.model import Client

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from pespec.rope.config import RopeConfig

__all__ = [
    "ROTARY_EMBEDDING_TORCH_CLIENTS",
    "rotary_embedding_torch",
    "rotary_embedding_torch_backend",
    "rotary_embedding_torch_options",
    "rotary_embedding_torch_pixel",
    "rotary_embedding_torch_xpos",
]

_RET = "rotary_embedding_torch.RotaryEmbedding"
_ROWS: tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...], dict[str, Any]], ...] = (
    # name suffix, entry after RotaryEmbedding, adapter, configs, dtypes, options
    ("", "", "rotary_embedding_torch", ("GPT-J-6B",), ("float32", "bfloat16"), {}),
    (
        "-pixel",
        "(freqs_for='pixel', max_freq=10)",
        "rotary_embedding_torch_pixel",
        ("rotary-embedding-torch-pixel-64-max-freq-10",),
        ("float32",),
        {"max_freq": 10.0},
    ),
    (
        "-theta-rescale",
        "(theta_rescale_factor=4)",
        "rotary_embedding_torch_options",
        ("rotary-embedding-torch-ntk-64-theta-rescale-4",),
        ("float32",),
        {"theta_rescale_factor": 4.0},
    ),
    (
        "-constant",
        "(freqs_for='constant', num_freqs=1)",
        "rotary_embedding_torch_options",
        ("rotary-embedding-torch-constant-64-num-freqs-1",),
        ("float32",),
        {"freqs_for": "constant", "num_freqs": 1},
    ),
    (
        "-xpos",
        "(use_xpos=True) (rotate_queries_and_keys)",
        "rotary_embedding_torch_xpos",
        (
            "rotary-embedding-torch-xpos-64-32-base-512-query",
            "rotary-embedding-torch-xpos-64-32-base-512-key",
        ),
        ("float32",),
        {},
    ),
)

ROTARY_EMBEDDING_TORCH_CLIENTS = tuple(
    Client(
        name=f"rotary-embedding-torch:RotaryEmbedding{suffix}",
        family="rope",
        library="rotary-embedding-torch",
        requires=("torch",),
        entry=f"{_RET}{call}",
        source="lucidrains/rotary-embedding-torch rotary_embedding_torch/rotary_embedding_torch.py",
        adapter=f"pespec.clients.rotary_embedding_torch_clients:{adapter}",
        configs=configs,
        dtypes=dtypes,
        options=options,
    )
    for suffix, call, adapter, configs, dtypes, options in _ROWS
)
"""rotary-embedding-torch's clients, in table order."""


def rotary_embedding_torch_backend(dtype_name: str) -> Any:
    """rotary-embedding-torch's ``RotaryEmbedding(dim=d_r, theta=θ)`` at explicit positions and
    ``apply_rotary_emb`` on x in ``dtype_name`` (interleaved pairs, the default schedule)."""
    import numpy as np

    torch = importlib.import_module("torch")
    ret = importlib.import_module("rotary_embedding_torch")
    dtype = getattr(torch, dtype_name)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        if rope.pairing != "interleaved" or rope.rope_type != "default":
            raise ValueError(
                "rotary-embedding-torch's RotaryEmbedding rotates interleaved pairs with the "
                f"default schedule; the configuration has {rope.pairing} pairs, "
                f"rope_type {rope.rope_type!r}"
            )
        module = ret.RotaryEmbedding(dim=rope.d_r, theta=rope.theta, cache_if_possible=False)
        freqs = module(torch.from_numpy(np.asarray(positions)).float())
        with torch.no_grad():
            return ret.apply_rotary_emb(freqs, torch.from_numpy(np.asarray(x)).to(dtype))

    return fn


def rotary_embedding_torch(client: Client, dtype: str, config: str | None) -> Any:
    """The client adapter of rotary-embedding-torch: refuses (ValueError) a configuration the
    library cannot express, before any check runs."""
    if config is not None:
        from pespec.rope.presets import read_config

        rope = read_config(config)
        if rope.pairing != "interleaved" or rope.rope_type != "default":
            raise ValueError(
                f"client {client.name} rotates interleaved pairs with the default schedule; "
                f"--config {config!r} has {rope.pairing} pairs, rope_type {rope.rope_type!r}"
            )
    return rotary_embedding_torch_backend(dtype)


def rotary_embedding_torch_pixel(client: Client, dtype: str, config: str | None) -> Any:
    """``RotaryEmbedding(dim=d_r, freqs_for="pixel", max_freq=...)`` (the client's options) at
    the row's positions and ``apply_rotary_emb`` on x in ``dtype`` (issue 36): judged against
    the ``custom`` schedule of the library's documented π·linspace(1, max_freq/2, d_r/2)."""
    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a custom-schedule configuration)")
    rope = read_config(config)
    if rope.pairing != "interleaved" or rope.rope_type != "custom":
        raise ValueError(
            f"client {client.name} rotates interleaved pairs with freqs_for='pixel' (the custom "
            f"schedule); --config {config!r} has {rope.pairing} pairs, rope_type {rope.rope_type!r}"
        )
    ret = importlib.import_module("rotary_embedding_torch")
    module = ret.RotaryEmbedding(
        dim=rope.d_r,
        freqs_for="pixel",
        max_freq=float(client.options["max_freq"]),
        cache_if_possible=False,
    )
    return _applied(module, dtype)


def rotary_embedding_torch_options(client: Client, dtype: str, config: str | None) -> Any:
    """``RotaryEmbedding(dim=d, theta=10000, **client.options)`` (``theta_rescale_factor`` or
    ``freqs_for="constant"`` with ``num_freqs``; issue 36) and ``apply_rotary_emb`` on x in
    ``dtype``, judged against the configuration the knob documents (``--config``)."""
    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (the knob's configuration)")
    rope = read_config(config)
    if rope.pairing != "interleaved":
        raise ValueError(
            f"client {client.name} rotates interleaved pairs; --config {config!r} has "
            f"{rope.pairing} pairs"
        )
    ret = importlib.import_module("rotary_embedding_torch")
    module = ret.RotaryEmbedding(
        dim=rope.head_dim, theta=10000, cache_if_possible=False, **dict(client.options)
    )
    return _applied(module, dtype)


def rotary_embedding_torch_xpos(client: Client, dtype: str, config: str | None) -> Any:
    """``RotaryEmbedding(dim=d_r, theta=θ, use_xpos=True, xpos_scale_base=b)`` as
    ``rotate_queries_and_keys`` runs it on t = the row's positions (issue 36): ``forward``
    (freqs), ``get_scale`` (ζ^((t − len(t)//2)/b)), inverted for the key, and
    ``apply_rotary_emb(freqs, x, scale=...)``; the configuration's ``xpos_role`` says which."""
    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (an xPos configuration)")
    rope = read_config(config)
    if rope.pairing != "interleaved" or rope.xpos_scale_base is None:
        raise ValueError(
            f"client {client.name} rotates interleaved pairs with an xPos scale; --config "
            f"{config!r} has {rope.pairing} pairs, xpos_scale_base {rope.xpos_scale_base}"
        )
    import numpy as np

    torch = importlib.import_module("torch")
    ret = importlib.import_module("rotary_embedding_torch")
    module = ret.RotaryEmbedding(
        dim=rope.d_r,
        theta=rope.theta,
        use_xpos=True,
        xpos_scale_base=rope.xpos_scale_base,
        cache_if_possible=False,
    )
    torch_dtype = getattr(torch, dtype)
    key = rope.xpos_role == "key"

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        t = torch.from_numpy(np.asarray(positions)).float()
        with torch.no_grad():
            freqs = module(t)
            scale = module.get_scale(t)
            if key:
                scale = scale**-1
            xs = torch.from_numpy(np.asarray(x)).to(torch_dtype)
            return ret.apply_rotary_emb(freqs, xs, scale=scale.to(torch_dtype))

    return fn


def _applied(module: Any, dtype: str) -> Any:
    """``fn(x, positions, rope)``: ``apply_rotary_emb(module(positions), x in dtype)``, the
    library's own two calls, for a built ``RotaryEmbedding`` ``module``."""
    import numpy as np

    torch = importlib.import_module("torch")
    ret = importlib.import_module("rotary_embedding_torch")
    torch_dtype = getattr(torch, dtype)

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        with torch.no_grad():
            freqs = module(torch.from_numpy(np.asarray(positions)).float())
            return ret.apply_rotary_emb(freqs, torch.from_numpy(np.asarray(x)).to(torch_dtype))

    return fn
