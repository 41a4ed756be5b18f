"""keras-hub's position layers as pespec backends, on the JAX backend (issue 29).

``keras_hub.layers.RotaryEmbedding`` (halves pairs, ``rope_type`` linear/dynamic/yarn with its
``scaling_factor``, ``truncate`` and betas as the configuration states them) is called on x
(1, n, head_dim) with ``positions`` = the row's positions, in a layer of the row's dtype
(its ``compute_dtype``: cos/sin and the rotation in that dtype, the phase in float32).
``keras_hub.layers.SinePositionEncoding(max_wavelength=base)`` is called with ``positions``
(the canonical interleaved convention). ``KERAS_BACKEND=jax`` is set in this process before
keras is imported (each table row runs in its own process).
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from pespec.clients.model import Client

if TYPE_CHECKING:  # the catalog imports this module: no NumPy, no rotary family until a build
    from numpy.typing import NDArray

    from pespec.rope.config import RopeConfig

__all__ = [
    "KERAS_HUB_CLIENTS",
    "build_rotary",
    "build_sine",
    "keras_hub",
    "rotary_layer",
    "sine_position_encoding",
]


def keras_hub() -> Any:
    """keras_hub on the JAX backend (RuntimeError when keras runs another backend here)."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras = importlib.import_module("keras")
    if keras.backend.backend() != "jax":
        raise RuntimeError(
            f"keras-hub clients run on the JAX backend; keras uses {keras.backend.backend()!r} "
            "(set KERAS_BACKEND=jax)"
        )
    return importlib.import_module("keras_hub")


def rotary_layer(rope: RopeConfig, dtype: str) -> Any:
    """``keras_hub.layers.RotaryEmbedding`` with the configuration's fields (ValueError for a
    configuration the layer cannot express)."""
    if rope.pairing != "halves" or rope.d_r != rope.head_dim:
        raise ValueError(
            "keras-hub's RotaryEmbedding rotates every feature in halves pairs; the "
            f"configuration has {rope.pairing} pairs, d_r {rope.d_r} of {rope.head_dim}"
        )
    layers = keras_hub().layers
    if rope.rope_type == "default":
        return layers.RotaryEmbedding(max_wavelength=rope.theta, dtype=dtype)
    if rope.rope_type == "linear":
        return layers.RotaryEmbedding(
            max_wavelength=rope.theta, scaling_factor=rope.factor, dtype=dtype
        )
    if rope.rope_type == "dynamic":  # the layer's "dynamic" takes the factor only (issue 36)
        return layers.RotaryEmbedding(
            max_wavelength=rope.theta, rope_type="dynamic", scaling_factor=rope.factor, dtype=dtype
        )
    if rope.rope_type == "yarn" and rope.attention_factor is None and rope.mscale is None:
        stated = {
            "beta_fast": rope.beta_fast,
            "beta_slow": rope.beta_slow,
            "original_max_position_embeddings": rope.original_max_position_embeddings,
            "truncate": rope.truncate,
        }  # the layer's defaults (32, 1, 4096, True) are HF's where the config is silent
        return layers.RotaryEmbedding(
            max_wavelength=rope.theta,
            rope_type="yarn",
            scaling_factor=rope.factor,
            dtype=dtype,
            **{k: v for k, v in stated.items() if v is not None},
        )
    raise ValueError(
        "keras-hub's RotaryEmbedding has the default, linear, dynamic and yarn (A from the factor) "
        f"schedules; the configuration has rope_type {rope.rope_type!r}"
    )


def build_rotary(client: Client, dtype: str, config: str | None) -> Any:
    """The rotary backend ``fn(x, positions, rope)`` of keras-hub's RotaryEmbedding."""
    import numpy as np

    from pespec.rope.presets import read_config

    if config is None:
        raise ValueError(f"client {client.name} needs --config (a preset or a config.json)")
    layer = rotary_layer(read_config(config), dtype)
    jnp = importlib.import_module("jax.numpy")

    def fn(x: NDArray[Any], positions: NDArray[Any], rope: RopeConfig) -> Any:
        xs = jnp.asarray(np.asarray(x, dtype=np.float32)[None]).astype(dtype)
        return layer(xs, positions=jnp.asarray(np.asarray(positions, dtype=np.int32)))[0]

    return fn


def sine_position_encoding(positions: NDArray[Any], d_model: int, base: float) -> Any:
    """``SinePositionEncoding(max_wavelength=base)`` on (1, n, d_model) at ``positions``."""
    import numpy as np

    layer = keras_hub().layers.SinePositionEncoding(max_wavelength=base)
    jnp = importlib.import_module("jax.numpy")
    p = np.asarray(positions, dtype=np.float32)
    return layer(jnp.zeros((1, p.shape[0], d_model), jnp.float32), positions=jnp.asarray(p))[0]


sine_position_encoding.pespec_capabilities = {"convention": "canonical"}  # type: ignore[attr-defined]


def build_sine(client: Client, dtype: str, config: str | None) -> Any:
    """The sinusoidal backend of keras-hub's SinePositionEncoding (float32)."""
    return sine_position_encoding


KERAS_HUB_CLIENTS = (
    Client(
        name="keras-hub:RotaryEmbedding",
        family="rope",
        library="keras-hub",
        requires=("keras", "jax"),
        entry="keras_hub.layers.RotaryEmbedding (KERAS_BACKEND=jax)",
        source="keras-team/keras-hub keras_hub/src/layers/modeling/rotary_embedding.py",
        adapter="pespec.clients.keras_hub_clients:build_rotary",
        configs=(
            "Llama-2-7B",
            "Qwen2.5-7B-Instruct",
            "Gemma-3-4B global layers",
            "gpt-oss-20b",
            "Qwen2.5-7B-Instruct-yarn-4",  # the variants: issue 36
            "Llama-2-7B-dynamic-4-seq-len-4096",
            "Llama-2-7B-dynamic-4-seq-len-16384",
        ),
        dtypes=("float32", "bfloat16"),
    ),
    Client(
        name="keras-hub:SinePositionEncoding",
        family="sinusoidal",
        library="keras-hub",
        requires=("keras", "jax"),
        entry="keras_hub.layers.SinePositionEncoding (KERAS_BACKEND=jax)",
        source="keras-team/keras-hub keras_hub/src/layers/modeling/sine_position_encoding.py",
        adapter="pespec.clients.keras_hub_clients:build_sine",
        configs=("declared",),
    ),
)
"""keras-hub on the JAX backend."""
